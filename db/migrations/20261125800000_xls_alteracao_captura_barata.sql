-- migrate:up
-- Cheaper change-set capture (docs/pipeline.md, merge speed): every row a merge writes puts one
-- row into app.xls_alteracao, so its per-row costs multiply by the 220,000 rows of a large
-- first import.
-- 1. The foreign key to xls_processamento ran one referential check per change-set row (an
--    after-trigger event and a key-share probe each). The change-set trigger now checks once per
--    statement that the processing exists (it is locked FOR UPDATE by the merge's entry until the
--    commit), and the cascade on delete is a statement trigger on xls_processamento
--    (_100_xls_alteracao_apagar, installed with its function in db/functions).
-- 2. The key index compared whole jsonb keys at every level of the btree; it now holds the
--    key's 64-bit jsonb hash (consistent with jsonb equality) and the table: integer comparisons,
--    a quarter of the size. The undo's conflict check and xls_linhagem look up by the same hash
--    and then compare the keys themselves.
alter table app.xls_alteracao drop constraint xls_alteracao_processamento_id_fkey;
drop index app.xls_alteracao_chave_idx;
create index xls_alteracao_chave_idx on app.xls_alteracao (jsonb_hash_extended(chave, 0), tabela);
comment on index app.xls_alteracao_chave_idx is 'Finds the change-set rows of one natural key (the undo''s conflict check, xls_linhagem): 64-bit hash of chave, then tabela; the queries compare chave itself after the probe.';
comment on column app.xls_alteracao.processamento_id is 'The processing that wrote this change (public.xls_processamento.id). Not a foreign key (one referential check per row cost more than the rest of the capture): the change-set trigger checks the processing once per statement, and deleting a processing deletes its change set (trigger _100_xls_alteracao_apagar).';

-- migrate:down
drop trigger if exists _100_xls_alteracao_apagar on public.xls_processamento;
comment on column app.xls_alteracao.processamento_id is null;
drop index app.xls_alteracao_chave_idx;
create index xls_alteracao_chave_idx on app.xls_alteracao (tabela, chave, seq);
delete from app.xls_alteracao a where not exists (select from public.xls_processamento p where p.id = a.processamento_id);
alter table app.xls_alteracao add constraint xls_alteracao_processamento_id_fkey
  foreign key (processamento_id) references public.xls_processamento (id) on delete cascade;
