-- migrate:up
-- One index fewer on the change set: the primary key was (seq) beside an index on
-- (processamento_id, seq); every reader reads one processing in seq order, and nothing looks a
-- change up by seq alone, so (processamento_id, seq) is the primary key and the only index of
-- the two (seq stays unique: an identity). One btree insert less per row a merge writes.
alter table app.xls_alteracao drop constraint xls_alteracao_pkey;
drop index app.xls_alteracao_processamento_idx;
alter table app.xls_alteracao add constraint xls_alteracao_pkey primary key (processamento_id, seq);
comment on index app.xls_alteracao_pkey is 'One processing''s change set in the order written (public.xls_alteracoes, xls_simular_resumo, xls_desfazer, app.xls_alteracoes_expurgar); seq alone is unique too (identity).';

-- migrate:down
alter table app.xls_alteracao drop constraint xls_alteracao_pkey;
alter table app.xls_alteracao add constraint xls_alteracao_pkey primary key (seq);
create index xls_alteracao_processamento_idx on app.xls_alteracao (processamento_id, seq);
