-- migrate:up
-- The change set's index by processing held (processamento_id, tabela, operacao, seq): two text
-- columns compared in the database collation at every insert, for filters that a scan of one
-- processing's rows in seq order answers as well (the API page, the counts, the preview, the
-- undo and the purge all read one processing at a time). docs/pipeline.md, merge speed.
drop index app.xls_alteracao_processamento_idx;
create index xls_alteracao_processamento_idx on app.xls_alteracao (processamento_id, seq);
comment on index app.xls_alteracao_processamento_idx is 'One processing''s change set in the order written (public.xls_alteracoes, xls_simular_resumo, xls_desfazer, app.xls_alteracoes_expurgar).';

-- migrate:down
drop index app.xls_alteracao_processamento_idx;
create index xls_alteracao_processamento_idx on app.xls_alteracao (processamento_id, tabela, operacao, seq);
