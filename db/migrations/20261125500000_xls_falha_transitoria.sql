-- migrate:up
-- A processing that failed because the object store (reading its original) or the database
-- was unreachable ends ERRO with a transient reason and is retried by itself (xls_falhar with p_sqlstate
-- XL503 schedules it; xls_recuperar requeues it when due).
alter table public.xls_processamento
  add column retentar_em timestamptz,
  add column falhas_transitorias integer not null default 0;
comment on column public.xls_processamento.retentar_em is 'When an ERRO by a transient failure (the object store or the database unreachable: xls_falhar with XL503) is requeued automatically by xls_recuperar; null when no automatic retry is due.';
comment on column public.xls_processamento.falhas_transitorias is 'Consecutive transient failures (XL503) of this processing; the retry waits 15 s x 2^(n-1) (at most 10 min) and stops after 5, alarming. Back to 0 on SUCESSO.';
create index xls_processamento_retentar_em on public.xls_processamento (retentar_em) where retentar_em is not null;

-- migrate:down
drop index public.xls_processamento_retentar_em;
alter table public.xls_processamento drop column retentar_em, drop column falhas_transitorias;
