-- migrate:up
set local lock_timeout = '5s';

-- Spreadsheet intake (issue 3): the processing record, the zip batch and its entries.
-- Status transitions live in functions (20261122300300_xls_transicoes.sql); tables only
-- hold state and the invariants every transition must keep.

create function public.xls_tipo_valido(p_tipo text) returns boolean
language sql immutable
set search_path to pg_catalog, pg_temp
as $$
  select p_tipo in ('FLUXO_PAGAR_RECEBER', 'COMPRAS', 'RELATORIO18', 'COTA_FORNECEDOR', 'POSTOS', 'TRR',
                    'MARGEM_CONSOLIDADA', 'META_CARTEIRA', 'META', 'MARGEM_DIA');
$$;
comment on function public.xls_tipo_valido(text) is 'True when p_tipo is one of the spreadsheet types of formats.md (FLUXO_PAGAR_RECEBER, COMPRAS, RELATORIO18, COTA_FORNECEDOR, POSTOS, TRR, MARGEM_CONSOLIDADA, META_CARTEIRA, META, MARGEM_DIA).';

create table public.xls_conjunto_lote (
  id uuid primary key default gen_random_uuid(),
  arquivo text,
  total integer not null default 0 check (total >= 0),
  recebido_em timestamptz not null default now(),
  fechado_em timestamptz,
  fechamento_motivo text,
  uploader_id text,
  uploader_nome text,
  constraint xls_conjunto_lote_fechamento check ((fechado_em is null) = (fechamento_motivo is null))
);
comment on table public.xls_conjunto_lote is 'A batch: the files sent together in one .zip. It closes (fechado_em) when its master report (RELATORIO18) commits, or when every processing of the batch has ended; on closing, items that failed by a transient foreign-key violation are reprocessed once (see xls_conjunto_avaliar).';
comment on column public.xls_conjunto_lote.arquivo is 'Name of the .zip as uploaded.';
comment on column public.xls_conjunto_lote.total is 'Number of entries of the zip (every entry: .xlsx or ignored), kept by the receipt functions.';
comment on column public.xls_conjunto_lote.fechado_em is 'When the batch closed; null while open.';
comment on column public.xls_conjunto_lote.fechamento_motivo is 'Why it closed: master report committed, or every processing ended.';

create table public.xls_processamento (
  id uuid primary key default gen_random_uuid(),
  status text not null default 'PENDENTE',
  tipo text,
  arquivo text not null,
  checksum text not null,
  recebido_em timestamptz not null default now(),
  iniciado_em timestamptz,
  finalizado_em timestamptz,
  conjunto_id uuid references public.xls_conjunto_lote (id) on delete set null,
  objeto_bucket text,
  objeto_chave text,
  objeto_tamanho_bytes bigint check (objeto_tamanho_bytes >= 0),
  arquivo_bytes bytea,
  linhas_enviadas integer,
  linhas_efetivas integer,
  linhas_removidas integer,
  metricas jsonb,
  log_arquivo text not null,
  erro_mensagem text,
  avisos jsonb not null default '[]',
  linhas_rejeitadas jsonb not null default '[]',
  uploader_id text,
  uploader_nome text,
  worker text,
  execucoes integer not null default 0 check (execucoes >= 0),
  fk_falhas integer not null default 0 check (fk_falhas >= 0),
  fk_retentar boolean not null default false,
  alarmar boolean not null default false,
  atualizado_em timestamptz not null default now(),
  constraint xls_processamento_checksum_key unique (checksum),
  constraint xls_processamento_status_valido check (status in ('PENDENTE', 'PROCESSANDO', 'SUCESSO', 'ERRO', 'IGNORADO')),
  constraint xls_processamento_tipo_valido check (tipo is null or public.xls_tipo_valido(tipo)),
  constraint xls_processamento_checksum_formato check (checksum ~ '^[0-9a-f]{64}$'),
  constraint xls_processamento_processando check (status <> 'PROCESSANDO' or (worker is not null and iniciado_em is not null)),
  constraint xls_processamento_finalizado check ((status in ('SUCESSO', 'ERRO', 'IGNORADO')) = (finalizado_em is not null)),
  constraint xls_processamento_fk_retentar check (not fk_retentar or status = 'ERRO'),
  constraint xls_processamento_objeto check ((objeto_bucket is null) = (objeto_chave is null)),
  constraint xls_processamento_arquivo_guardado check (objeto_chave is not null or arquivo_bytes is not null),
  constraint xls_processamento_avisos_lista check (jsonb_typeof(avisos) = 'array'),
  constraint xls_processamento_rejeitadas_lista check (jsonb_typeof(linhas_rejeitadas) = 'array')
);
-- xlsx is already deflated: storing it compressed again only costs CPU
alter table public.xls_processamento alter column arquivo_bytes set storage external;

comment on table public.xls_processamento is 'One processing per distinct file (checksum): its status (PENDENTE, PROCESSANDO, SUCESSO, ERRO, IGNORADO), where the original is stored, the idempotency metrics and the audit trail. Change the status only through the xls_* functions (xls_iniciar, xls_concluir, xls_ignorar, xls_falhar, xls_reprocessar*, xls_recuperar). Never select arquivo_bytes in a listing.';
comment on column public.xls_processamento.status is 'PENDENTE (queued), PROCESSANDO (held by a worker), SUCESSO, ERRO, IGNORADO (not a known type).';
comment on column public.xls_processamento.tipo is 'Detected spreadsheet type (null until detection); kept across reprocessing.';
comment on column public.xls_processamento.arquivo is 'File name as uploaded (the entry name inside the zip), of the latest send.';
comment on column public.xls_processamento.checksum is 'SHA-256 of the file, lowercase hex. Unique: the same file always maps to the same record.';
comment on column public.xls_processamento.recebido_em is 'First receipt of this file; the list order key. A resend reprocesses the record in place and keeps it.';
comment on column public.xls_processamento.iniciado_em is 'Start of the latest run (PENDENTE -> PROCESSANDO).';
comment on column public.xls_processamento.finalizado_em is 'End of the latest run; null while PENDENTE or PROCESSANDO.';
comment on column public.xls_processamento.conjunto_id is 'Batch (zip) of the latest send; null for a loose file.';
comment on column public.xls_processamento.objeto_bucket is 'Object-store bucket of the original; null when stored only in arquivo_bytes.';
comment on column public.xls_processamento.objeto_chave is 'Object key, content-addressed: <yyyy>/<mm>/<checksum>.xlsx (month of the first receipt, America/Sao_Paulo).';
comment on column public.xls_processamento.objeto_tamanho_bytes is 'Size of the original file in bytes.';
comment on column public.xls_processamento.arquivo_bytes is 'Legacy: the original file kept in the database (storage modes PSQL and PSQL_OBJSTORE). Never returned by the API.';
comment on column public.xls_processamento.linhas_enviadas is 'Rows sent, counted in the same scope as linhas_efetivas (the rows of the type''s data tables, not the reference tables). Null before the first successful merge.';
comment on column public.xls_processamento.linhas_efetivas is 'Rows really written (inserted or changed); an identical re-import writes 0.';
comment on column public.xls_processamento.linhas_removidas is 'Rows deleted because they are within the type''s scope and absent from the file.';
comment on column public.xls_processamento.metricas is 'Per-table detail of the latest merge: {"<tabela>": {"enviadas", "efetivas", "removidas"}}.';
comment on column public.xls_processamento.log_arquivo is 'Execution log, relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log (month of the first receipt, America/Sao_Paulo).';
comment on column public.xls_processamento.erro_mensagem is 'Reason of ERRO (or IGNORADO), in pt-BR for staff.';
comment on column public.xls_processamento.avisos is 'Warnings of the latest run: [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}] (vehicle-registry defence, repeated keys, suspended deletions...).';
comment on column public.xls_processamento.linhas_rejeitadas is 'Rows skipped as invalid: [{aba, linha, campo, valor, mensagem}], mensagem = linha <n>: <campo> ''<valor>'' inválido.';
comment on column public.xls_processamento.uploader_id is 'Identity of who sent the file (manual import page); null through the API.';
comment on column public.xls_processamento.worker is 'app.worker id of the replica that holds (PROCESSANDO) or last ran the processing.';
comment on column public.xls_processamento.execucoes is 'How many times the processing was started.';
comment on column public.xls_processamento.fk_falhas is 'Transient foreign-key failures since the latest send (the first one in a batch is silent and retried once).';
comment on column public.xls_processamento.fk_retentar is 'ERRO by a first transient FK failure, waiting for its batch to close to be reprocessed once.';
comment on column public.xls_processamento.alarmar is 'The latest outcome must raise an alarm (decided by SQL; the edge sends it): every ERRO except a first transient FK failure inside a batch.';

create index xls_processamento_recebido_idx on public.xls_processamento (recebido_em desc, id);
create index xls_processamento_status_idx on public.xls_processamento (status, recebido_em desc);
create index xls_processamento_tipo_idx on public.xls_processamento (tipo, recebido_em desc);
create index xls_processamento_conjunto_idx on public.xls_processamento (conjunto_id) where conjunto_id is not null;

create trigger _100_touch before update on public.xls_processamento
  for each row execute function public.tg__touch_atualizado_em();

create table public.xls_conjunto_item (
  conjunto_id uuid not null references public.xls_conjunto_lote (id) on delete cascade,
  ordem integer not null check (ordem > 0),
  arquivo text not null,
  status text not null,
  processamento_id uuid references public.xls_processamento (id) on delete set null,
  motivo text,
  primary key (conjunto_id, ordem),
  constraint xls_conjunto_item_status_valido check (status in ('ENFILEIRADO', 'REPROCESSANDO', 'DUPLICADO', 'IGNORADO')),
  constraint xls_conjunto_item_sem_processamento check (status in ('ENFILEIRADO', 'REPROCESSANDO') or processamento_id is null)
);
comment on table public.xls_conjunto_item is 'One row per entry of a batch''s zip, in zip order, with its receipt status: ENFILEIRADO (new processing), REPROCESSANDO (same checksum found in ERRO or IGNORADO: that record is reprocessed), DUPLICADO (same checksum in SUCESSO, PENDENTE or PROCESSANDO) or IGNORADO (not an .xlsx). processamento_id is null when the entry generated no processing.';
comment on column public.xls_conjunto_item.motivo is 'Why the entry was DUPLICADO (names the existing processing id), IGNORADO or REPROCESSANDO.';
create index xls_conjunto_item_processamento_idx on public.xls_conjunto_item (processamento_id) where processamento_id is not null;

-- migrate:down
set local lock_timeout = '5s';
drop table public.xls_conjunto_item;
drop table public.xls_processamento;
drop table public.xls_conjunto_lote;
drop function public.xls_tipo_valido(text);
