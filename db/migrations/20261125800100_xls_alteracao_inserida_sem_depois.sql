-- migrate:up
-- An INSERIDA change no longer stores the row it inserted (depois): that doubled what a first
-- import writes (the whole row again as jsonb, WAL included) for a value the undo never needs.
-- Readers get it from app.xls_alteracao_depois (the next change's antes, else the stored row);
-- the undo stores it before it removes the inserted rows (docs/pipeline.md, merge speed).
alter table app.xls_alteracao drop constraint xls_alteracao_check1;
alter table app.xls_alteracao add constraint xls_alteracao_depois check (operacao = 'INSERIDA' or (operacao = 'REMOVIDA') = (depois is null));
comment on column app.xls_alteracao.depois is 'ALTERADA: the row after the rewrite. REMOVIDA: null. INSERIDA: null while the row is as recorded elsewhere (read it with app.xls_alteracao_depois: the next change''s antes, else the stored row); public.xls_desfazer fills it in before removing the row.';

-- migrate:down
-- the row as inserted: the next change's antes, else the row stored now (written out here: the
-- reading function of the time may be gone when this down runs)
do $$
declare
  t text;
begin
  for t in select distinct a.tabela from app.xls_alteracao a where a.operacao = 'INSERIDA' and a.depois is null loop
    execute format($q$
      update app.xls_alteracao a
         set depois = coalesce((select b.antes from app.xls_alteracao b
                                 where b.tabela = a.tabela and b.linha_id = a.linha_id and b.seq > a.seq order by b.seq limit 1),
                               (select to_jsonb(x) from public.%I x where x.id = a.linha_id),
                               a.chave || jsonb_build_object('id', a.linha_id))
       where a.operacao = 'INSERIDA' and a.depois is null and a.tabela = %L$q$, t, t);
  end loop;
end $$;
comment on column app.xls_alteracao.depois is null;
alter table app.xls_alteracao drop constraint xls_alteracao_depois;
alter table app.xls_alteracao add constraint xls_alteracao_check1 check ((operacao = 'REMOVIDA') = (depois is null));
