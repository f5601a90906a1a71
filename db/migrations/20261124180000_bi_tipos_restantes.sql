-- migrate:up
set local lock_timeout = '5s';

-- The bi_* tables of the eight remaining spreadsheet types (formats.md). Every one: uuid id,
-- a UNIQUE natural key (the merges take it from this constraint), atualizado_em (touched
-- only when a row really changes), bounded strings (values are truncated to the column
-- maximum before insert). The event trigger of the foundation grants SELECT on each to
-- bi_sync_reader. bi_cliente already has cnpj_cpf, classe, municipio and uf (MARGEM_DIA).

create table public.bi_margem_consolidada (
  id uuid primary key default gen_random_uuid(),
  competencia date not null,
  filial varchar(20) not null,
  produto varchar(20) not null,
  volume numeric,
  receita_liquida numeric,
  cmv numeric,
  margem_total numeric,
  margem_por_litro numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_margem_consolidada_nk unique (competencia, filial, produto),
  constraint bi_margem_consolidada_competencia_mes check (competencia = date_trunc('month', competencia)::date)
);
comment on table public.bi_margem_consolidada is 'Consolidated margin per month, branch and product (MARGEM_CONSOLIDADA). NK (competencia, filial, produto); competencia is the first day of the month. Scope of one file: the competências present in it. New branch codes go to bi_filial (code only).';

create table public.bi_margem_dia (
  id uuid primary key default gen_random_uuid(),
  data date not null,
  filial varchar(20) not null,
  cliente varchar(20) not null,
  produto varchar(20) not null,
  vendedor varchar(20),
  volume numeric,
  preco_medio numeric,
  custo_medio numeric,
  margem numeric,
  prazo numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_margem_dia_nk unique (data, filial, cliente, produto)
);
comment on table public.bi_margem_dia is 'Daily margin per branch, customer and product (MARGEM_DIA). NK (data, filial, cliente, produto). Scope of one file: the dates present in it. The customer''s name, CNPJ/CPF, classe, município and UF go to bi_cliente (a missing or empty field keeps the stored value).';
comment on column public.bi_margem_dia.prazo is 'Payment term in days as sent; an empty cell (or an absent column) is NULL, never 0.';

create table public.bi_meta_carteira (
  id uuid primary key default gen_random_uuid(),
  competencia date not null,
  cliente varchar(20) not null references public.bi_cliente (codigo),
  produto varchar(20) not null,
  meta_volume numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_meta_carteira_nk unique (competencia, cliente, produto),
  constraint bi_meta_carteira_competencia_mes check (competencia = date_trunc('month', competencia)::date)
);
comment on table public.bi_meta_carteira is 'Goals per customer and product (META_CARTEIRA). NK (competencia, cliente, produto). Scope of one file: the competências present in it. cliente must exist in bi_cliente: a missing customer fails the file with XL424 (transient inside a batch: retried once after the master report), as META.';
create index bi_meta_carteira_cliente_idx on public.bi_meta_carteira (cliente);

create table public.bi_posto (
  id uuid primary key default gen_random_uuid(),
  cnpj varchar(14) not null,
  razao_social varchar(150),
  nome_fantasia varchar(150),
  bandeira varchar(60),
  endereco varchar(200),
  bairro varchar(100),
  municipio varchar(100),
  uf varchar(2),
  cep varchar(8),
  tipo_instalacao varchar(60),
  atualizado_em timestamptz not null default now(),
  constraint bi_posto_cnpj_key unique (cnpj)
);
comment on table public.bi_posto is 'Fuel stations registry (POSTOS). NK cnpj (digits only). Scope: the whole table, the file is the full registry.';
comment on column public.bi_posto.cep is 'Digits only.';

create table public.bi_trr (
  id uuid primary key default gen_random_uuid(),
  cnpj varchar(14) not null,
  razao_social varchar(150),
  municipio varchar(100),
  uf varchar(2),
  tipo_instalacao varchar(60),
  qualificacao_empresa varchar(100),
  capacidade_m3 numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_trr_cnpj_key unique (cnpj)
);
comment on table public.bi_trr is 'Retail-wholesale resellers (TRR) registry. NK cnpj (digits only). Scope: the whole table, the file is the full registry.';

create table public.bi_fornecedor (
  id uuid primary key default gen_random_uuid(),
  cnpj varchar(14) not null,
  nome varchar(150),
  atualizado_em timestamptz not null default now(),
  constraint bi_fornecedor_cnpj_key unique (cnpj)
);
comment on table public.bi_fornecedor is 'Suppliers. NK cnpj (digits only). Upserted by COMPRAS (nome; an empty name keeps the stored one); never deleted by a spreadsheet.';

create table public.bi_compra (
  id uuid primary key default gen_random_uuid(),
  data date not null,
  cnpj_fornecedor varchar(14) not null references public.bi_fornecedor (cnpj),
  nota_fiscal varchar(20) not null,
  produto varchar(60) not null,
  codigo_onu smallint not null,
  quantidade numeric,
  valor_total numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_compra_nk unique (cnpj_fornecedor, nota_fiscal, produto),
  constraint bi_compra_combustivel check (codigo_onu in (1170, 1202, 1203, 1223, 1863, 3475))
);
comment on table public.bi_compra is 'Fuel purchases (COMPRAS). NK (cnpj_fornecedor, nota_fiscal, produto). Only fuels: codigo_onu in {1170, 1202, 1203, 1223, 1863, 3475}. Quantity and value raw (the client derives the average cost). Scope of one file: the calendar months its dates cover.';
create index bi_compra_data_idx on public.bi_compra (data);

create table public.bi_cota_fornecedor (
  id uuid primary key default gen_random_uuid(),
  ano smallint not null,
  polo varchar(60) not null,
  produto varchar(60) not null,
  mes smallint not null,
  quantidade numeric,
  atualizado_em timestamptz not null default now(),
  constraint bi_cota_fornecedor_nk unique (ano, polo, produto, mes),
  constraint bi_cota_fornecedor_mes check (mes between 1 and 12),
  constraint bi_cota_fornecedor_ano check (ano between 1900 and 9999)
);
comment on table public.bi_cota_fornecedor is 'Supplier quota matrix (COTA_FORNECEDOR), unpivoted: one row per (ano, polo, produto, mes). ano = the tab''s name, mes 1..12. Scope: the whole table (each send replaces the whole matrix; a send without data rows deletes nothing).';

create table public.bi_centro_custo (
  id uuid primary key default gen_random_uuid(),
  codigo varchar(20) not null,
  descricao varchar(120),
  atualizado_em timestamptz not null default now(),
  constraint bi_centro_custo_codigo_key unique (codigo)
);
comment on table public.bi_centro_custo is 'Cost centres. NK codigo. Upserted by FLUXO_PAGAR_RECEBER (descricao; an empty one keeps the stored value); never deleted by a spreadsheet.';

create table public.bi_titulo (
  id uuid primary key default gen_random_uuid(),
  posicao date not null,
  tipo varchar(7) not null,
  documento varchar(30) not null,
  parcela varchar(10) not null,
  pessoa varchar(150),
  cnpj_cpf varchar(14),
  emissao date,
  vencimento date not null,
  valor numeric,
  saldo numeric not null,
  centro_custo varchar(20),
  atual boolean not null default false,
  atualizado_em timestamptz not null default now(),
  constraint bi_titulo_nk unique (posicao, tipo, documento, parcela),
  constraint bi_titulo_tipo check (tipo in ('PAGAR', 'RECEBER'))
);
comment on table public.bi_titulo is 'Open payables and receivables (FLUXO_PAGAR_RECEBER, tab SemQuebras), with history per position (the report date). NK (posicao, tipo, documento, parcela); an empty parcela is ''''. Scope of one file: its position (a re-import replaces it). Only the rows of the newest position carry atual = true; the sync engine publishes only those (where atual).';
comment on column public.bi_titulo.atual is 'True on the rows of the newest position only (xls_merge_fluxo keeps it so under a lock). Indexed partially: a sync stream selects `where atual`.';
comment on column public.bi_titulo.tipo is 'PAGAR or RECEBER (the sheet may say Pagar/Receber or P/R).';
create index bi_titulo_atual_idx on public.bi_titulo (tipo, vencimento) where atual;

create trigger _100_touch before update on public.bi_margem_consolidada for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_margem_dia for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_meta_carteira for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_posto for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_trr for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_fornecedor for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_compra for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_cota_fornecedor for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_centro_custo for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.bi_titulo for each row execute function public.tg__touch_atualizado_em();

-- migrate:down
set local lock_timeout = '5s';
drop view if exists public.xls_v_fluxo_resumo;
drop table public.bi_titulo;
drop table public.bi_centro_custo;
drop table public.bi_cota_fornecedor;
drop table public.bi_compra;
drop table public.bi_fornecedor;
drop table public.bi_trr;
drop table public.bi_posto;
drop table public.bi_meta_carteira;
drop table public.bi_margem_dia;
drop table public.bi_margem_consolidada;
