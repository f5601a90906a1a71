-- migrate:up

-- The reset checks the engine before it tells the phones: a step VERIFICAR_PARIDADE between
-- AGUARDAR_REPLICACAO and FINALIZAR (the engine finished its initial copy and serves, table by
-- table, what Postgres holds under the sync configuration's filters). replicacao_finalizar
-- refuses to advance ultimo_nuke unless that step ended SUCESSO or AVISO.
alter table public.xls_resetar_replicator
  drop constraint xls_resetar_replicator_step_falho_valido,
  drop constraint xls_resetar_replicator_step_valido,
  add constraint xls_resetar_replicator_step_falho_valido check (step_falho = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR'])),
  add constraint xls_resetar_replicator_step_valido check (step_atual = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR']));
alter table public.xls_resetar_replicator_passo
  drop constraint xls_resetar_replicator_passo_step_valido,
  add constraint xls_resetar_replicator_passo_step_valido check (step = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR']));

alter table public.xls_resetar_replicator add column paridade jsonb;
comment on column public.xls_resetar_replicator.paridade is 'The last parity figures of VERIFICAR_PARIDADE, one object per synced table: {tabela, postgres, motor, igual} (rows; igual also compares the ids). Null until the step ran.';

-- What the phones must hold: the sync configuration's data queries, one per synced table,
-- loaded by the service at start from its sync configuration (replicacao_consultas_definir).
create table app.replicacao_consulta (
  tabela text primary key check (tabela ~ '^bi_[a-z0-9_]+$'),
  bucket text not null,
  filtro text,
  consulta text not null,
  definido_em timestamptz not null default now()
);
comment on table app.replicacao_consulta is 'The sync configuration''s data queries (one per synced bi_* table): the bucket, the query as the configuration writes it and its WHERE filter (null: the whole table). Replaced as a whole by replicacao_consultas_definir (the service calls it at start with its sync configuration); read by replicacao_paridade_postgres.';
comment on column app.replicacao_consulta.filtro is 'The WHERE clause of the data query (SQL of the sync configuration, which Postgres evaluates the same way), or null for the whole table.';

-- migrate:down

drop table app.replicacao_consulta;
alter table public.xls_resetar_replicator drop column paridade;
delete from public.xls_resetar_replicator_passo where step = 'VERIFICAR_PARIDADE';
update public.xls_resetar_replicator set step_atual = 'AGUARDAR_REPLICACAO' where step_atual = 'VERIFICAR_PARIDADE';
update public.xls_resetar_replicator set step_falho = 'AGUARDAR_REPLICACAO' where step_falho = 'VERIFICAR_PARIDADE';
alter table public.xls_resetar_replicator
  drop constraint xls_resetar_replicator_step_falho_valido,
  drop constraint xls_resetar_replicator_step_valido,
  add constraint xls_resetar_replicator_step_falho_valido check (step_falho = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR'])),
  add constraint xls_resetar_replicator_step_valido check (step_atual = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR']));
alter table public.xls_resetar_replicator_passo
  drop constraint xls_resetar_replicator_passo_step_valido,
  add constraint xls_resetar_replicator_passo_step_valido check (step = any (array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
    'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR']));
