-- migrate:up
set local lock_timeout = '5s';

-- The bi_* tables that RELATORIO18 and META fill. Every one: uuid id, a UNIQUE natural
-- key, atualizado_em (touched only when a row really changes), bounded strings (values
-- are truncated to the column maximum before insert). The event trigger of the
-- foundation grants SELECT on each to bi_sync_reader.

create table public.bi_filial (
  id uuid primary key default gen_random_uuid(),
  codigo varchar(20) not null,
  municipio varchar(100),
  uf varchar(2),
  atualizado_em timestamptz not null default now(),
  constraint bi_filial_codigo_key unique (codigo)
);
comment on table public.bi_filial is 'Branches. NK codigo. Spreadsheets only insert new codes (RELATORIO18, MARGEM_CONSOLIDADA); municipio and uf are manual registry data that no spreadsheet writes (a new branch gets them NULL).';

create table public.bi_vendedor (
  id uuid primary key default gen_random_uuid(),
  codigo varchar(20) not null,
  nome varchar(120),
  filial varchar(20),
  atualizado_em timestamptz not null default now(),
  constraint bi_vendedor_codigo_key unique (codigo)
);
comment on table public.bi_vendedor is 'Sellers. NK codigo. Upserted by RELATORIO18 (nome, filial of its latest billing row); never deleted by a spreadsheet. Referenced by bi_meta.';

create table public.bi_cliente (
  id uuid primary key default gen_random_uuid(),
  codigo varchar(20) not null,
  nome varchar(150),
  cnpj_cpf varchar(14),
  classe varchar(40),
  municipio varchar(100),
  uf varchar(2),
  atualizado_em timestamptz not null default now(),
  constraint bi_cliente_codigo_key unique (codigo)
);
comment on table public.bi_cliente is 'Customers. NK codigo. RELATORIO18 upserts codigo and nome only and keeps the other columns; MARGEM_DIA (later) fills cnpj_cpf, classe, municipio, uf and keeps the stored value when its sheet lacks the field.';
comment on column public.bi_cliente.cnpj_cpf is 'Digits only.';

create table public.bi_produto (
  id uuid primary key default gen_random_uuid(),
  codigo varchar(20) not null,
  descricao varchar(150),
  atualizado_em timestamptz not null default now(),
  constraint bi_produto_codigo_key unique (codigo)
);
comment on table public.bi_produto is 'Products. NK codigo. Upserted by RELATORIO18 (descricao); never deleted by a spreadsheet.';

create table public.bi_veiculo (
  id uuid primary key default gen_random_uuid(),
  placa varchar(7) not null,
  ano_fabricacao smallint,
  ano_modelo smallint,
  modelo varchar(80),
  atualizado_em timestamptz not null default now(),
  constraint bi_veiculo_placa_key unique (placa),
  constraint bi_veiculo_placa_formato check (placa ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$')
);
comment on table public.bi_veiculo is 'Vehicle registry. NK placa (normalised: uppercase, no dash or space; AAA9999 or Mercosul AAA9A99). Upserted by RELATORIO18 from billing and movement rows with a valid plate; a missing or invalid year or model keeps the stored value. Never deleted by a spreadsheet.';
comment on column public.bi_veiculo.ano_fabricacao is 'Construction year: left of the slash in ''YYYY/YYYY''.';
comment on column public.bi_veiculo.ano_modelo is 'Model year: right of the slash in ''YYYY/YYYY''.';

create table public.bi_faturamento (
  id uuid primary key default gen_random_uuid(),
  filial varchar(20) not null,
  nota_fiscal varchar(20) not null,
  serie varchar(5) not null,
  item varchar(10) not null,
  emissao date not null,
  cliente varchar(20),
  vendedor varchar(20),
  produto varchar(20),
  quantidade numeric,
  valor_unitario numeric,
  valor_total numeric,
  placa varchar(10),
  atualizado_em timestamptz not null default now(),
  constraint bi_faturamento_nk unique (filial, nota_fiscal, serie, item)
);
comment on table public.bi_faturamento is 'Billing rows of RELATORIO18 tab 20. NK (filial, nota_fiscal, serie, item); an empty serie or item is stored as ''''. Scope of one report: emissao within its period (rows of the period absent from the file are deleted).';
comment on column public.bi_faturamento.placa is 'Plate as sent, normalised (uppercase, no dash or space) even when invalid; the registry is bi_veiculo.';
create index bi_faturamento_emissao_idx on public.bi_faturamento (emissao);

create table public.bi_movimento (
  id uuid primary key default gen_random_uuid(),
  filial varchar(20) not null,
  data date not null,
  lancamento varchar(20) not null,
  conta varchar(40) not null,
  descricao_conta varchar(120),
  historico varchar(250),
  debito numeric,
  credito numeric,
  placa varchar(10),
  atualizado_em timestamptz not null default now(),
  constraint bi_movimento_nk unique (filial, lancamento, conta)
);
comment on table public.bi_movimento is 'Accounting movement rows of RELATORIO18 tab 30. NK (filial, lancamento, conta). Scope of one report: data within its period.';
create index bi_movimento_data_idx on public.bi_movimento (data);

create table public.bi_meta (
  id uuid primary key default gen_random_uuid(),
  competencia date not null,
  vendedor varchar(20) not null references public.bi_vendedor (codigo),
  produto varchar(20) not null,
  meta_volume numeric,
  meta_margem numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_meta_nk unique (competencia, vendedor, produto),
  constraint bi_meta_competencia_mes check (competencia = date_trunc('month', competencia)::date)
);
comment on table public.bi_meta is 'Goals per seller and product (META). NK (competencia, vendedor, produto); competencia is the first day of the month. Scope of one file: the competências present in it. vendedor must exist in bi_vendedor: a missing seller fails the file with XL424 (transient inside a batch: retried once after the master report).';
create index bi_meta_vendedor_idx on public.bi_meta (vendedor);

create trigger _100_touch before update on public.bi_filial for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_vendedor for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_cliente for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_produto for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_veiculo for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_faturamento for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_movimento for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_meta for each row execute function public.tg__touch_atualizado_em();

-- migrate:down
set local lock_timeout = '5s';
drop table public.bi_meta;
drop table public.bi_movimento;
drop table public.bi_faturamento;
drop table public.bi_veiculo;
drop table public.bi_produto;
drop table public.bi_cliente;
drop table public.bi_vendedor;
drop table public.bi_filial;
