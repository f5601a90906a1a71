-- migrate:up
-- What the processing screens need to explain themselves (docs/screens.md): the staff name of
-- each spreadsheet type, the code of a failure, the error a resent processing had, the
-- progress a running job reports, and the uploads refused before anything was stored.

alter table app.xls_tipo add column nome text check (nome is null or btrim(nome) <> '');
update app.xls_tipo t set nome = v.nome
  from (values
    ('FLUXO_PAGAR_RECEBER', 'Contas a pagar e receber'),
    ('COMPRAS', 'Compras de combustível'),
    ('RELATORIO18', 'Relatório 18 (faturamento e movimento)'),
    ('COTA_FORNECEDOR', 'Cotas do fornecedor'),
    ('POSTOS', 'Cadastro de postos'),
    ('TRR', 'Cadastro de TRRs'),
    ('MARGEM_CONSOLIDADA', 'Margem consolidada'),
    ('META_CARTEIRA', 'Metas por cliente'),
    ('META', 'Metas por vendedor'),
    ('MARGEM_DIA', 'Margem diária')) v (tipo, nome)
 where v.tipo = t.tipo;
comment on column app.xls_tipo.nome is 'The name staff read for the type on every screen (pt-BR, e.g. "Contas a pagar e receber"); null shows the code. Read through public.xls_tipo_nome.';

alter table public.xls_processamento add column erro_codigo text, add column erro_anterior text;
comment on column public.xls_processamento.erro_codigo is 'Code of the failure that ended the processing in ERRO (the SQLSTATE given to xls_falhar: XL424 missing registration, XL422 refused content, XL415 unreadable file, …); null otherwise. Read by public.xls_falha_explicar.';
comment on column public.xls_processamento.erro_anterior is 'The error message the processing had when it was last sent back to the queue from ERRO (reprocess, batch retry); null when it was never resent from ERRO. While it is PENDENTE or PROCESSANDO again the list shows it among the errors ("reenviado — aguardando").';

-- the ERRO filter of the list also shows the resent errors until they end: one index each, in list order
create index xls_processamento_erros_idx on public.xls_processamento (recebido_em desc, id desc)
  where status = 'ERRO' or (status in ('PENDENTE', 'PROCESSANDO') and erro_anterior is not null);
create index xls_processamento_erros_tipo_idx on public.xls_processamento (tipo, recebido_em desc, id desc)
  where status = 'ERRO' or (status in ('PENDENTE', 'PROCESSANDO') and erro_anterior is not null);

create table public.xls_processamento_progresso (
  -- no foreign key on purpose: its check would take a key-share lock on the processing row,
  -- which the merge transaction holds FOR UPDATE until it commits (the report would wait for the end)
  processamento_id uuid primary key,
  execucao integer not null check (execucao > 0),
  linhas_lidas integer not null check (linhas_lidas >= 0),
  atualizado_em timestamptz not null default now()
);
comment on table public.xls_processamento_progresso is 'Progress of a running processing, reported by the job after each chunk (xls_progresso) on its own autocommit connection: the merge transaction holds the processing row and commits only at the end. Meaningful while the processing is PROCESSANDO in the same execucao; kept afterwards (one row per processing). No foreign key to xls_processamento: checking it would wait for the merge''s lock on the processing row, so a report would land only after the commit.';
comment on column public.xls_processamento_progresso.execucao is 'The execution (xls_processamento.execucoes) the count belongs to: a rerun starts again from zero.';
comment on column public.xls_processamento_progresso.linhas_lidas is 'Rows read and sent to the database so far in this execution.';

create table public.xls_upload_recusa (
  id uuid primary key default gen_random_uuid(),
  recusado_em timestamptz not null default now(),
  origem text not null check (origem in ('api', 'importar')),
  arquivo text,
  tamanho_bytes bigint check (tamanho_bytes >= 0),
  uploader_id text,
  uploader_nome text,
  cliente_ip text,
  status_http integer not null check (status_http between 400 and 599),
  codigo text,
  motivo text not null check (btrim(motivo) <> '')
);
comment on table public.xls_upload_recusa is 'Uploads refused before anything was stored (POST /api/xls/processar, the manual import page): who, when, the file name and why. Never the refused bytes. Written by xls_upload_recusar, listed on /processamentos/recusas.';
comment on column public.xls_upload_recusa.origem is 'api: POST /api/xls/processar; importar: the manual import page.';
comment on column public.xls_upload_recusa.uploader_id is 'Who sent it: the identity typed on the import page; null for the API (an integration token, no person).';
comment on column public.xls_upload_recusa.cliente_ip is 'Address the request came from, as the service saw it.';
comment on column public.xls_upload_recusa.codigo is 'Error code of the refusal (XL400, XL413, …), when there is one.';
comment on column public.xls_upload_recusa.motivo is 'The refusal as the sender got it (pt-BR).';
create index xls_upload_recusa_recusado_idx on public.xls_upload_recusa (recusado_em desc, id desc);

-- migrate:down
set local lock_timeout = '5s';
drop function if exists public.xls_upload_recusar(text, text, bigint, text, text, text, integer, text, text);
drop function if exists public.xls_progresso(uuid, text, integer);
drop function if exists public.xls_falha_explicar(text, text, text, jsonb);
drop function if exists public.xls_tipo_nome(text);
drop function if exists app.xls_falha_linhas(text, text);
drop table public.xls_upload_recusa;
drop table public.xls_processamento_progresso;
drop index public.xls_processamento_erros_tipo_idx;
drop index public.xls_processamento_erros_idx;
alter table public.xls_processamento drop column erro_anterior, drop column erro_codigo;
alter table app.xls_tipo drop column nome;
