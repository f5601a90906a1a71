-- migrate:up
-- An INSERIDA change no longer stores the row it inserted (depois): that doubled what a first
-- import writes (the whole row again as jsonb, WAL included) for a value the undo never needs.
-- Readers get it from app.xls_alteracao_depois (the next change's antes, else the stored row);
-- the undo stores it before it removes the inserted rows (docs/pipeline.md, merge speed).
alter table app.xls_alteracao drop constraint xls_alteracao_check1;
alter table app.xls_alteracao add constraint xls_alteracao_depois check (operacao = 'INSERIDA' or (operacao = 'REMOVIDA') = (depois is null));
comment on column app.xls_alteracao.depois is 'ALTERADA: the row after the rewrite. REMOVIDA: null. INSERIDA: null while the row is as recorded elsewhere (read it with app.xls_alteracao_depois: the next change''s antes, else the stored row); public.xls_desfazer fills it in before removing the row.';

-- migrate:down
update app.xls_alteracao a
   set depois = coalesce(app.xls_alteracao_depois(a.tabela, a.linha_id, a.chave, a.seq), a.chave || jsonb_build_object('id', a.linha_id))
 where a.operacao = 'INSERIDA' and a.depois is null;
comment on column app.xls_alteracao.depois is null;
alter table app.xls_alteracao drop constraint xls_alteracao_depois;
alter table app.xls_alteracao add constraint xls_alteracao_check1 check ((operacao = 'REMOVIDA') = (depois is null));
