-- migrate:up
-- An insertion is recorded once per statement, not once per row: one INSERIDA row holds the ids
-- of every row the statement inserted (linha_ids, in the order inserted), without key or values
-- (both are read back from the row itself, or from the next change of the same id). A 200,000-row
-- first import wrote 225,440 change-set rows, each with two index entries, which doubled its WAL
-- and cost a third more time; it now writes one row a chunk and table (bench alteracoes,
-- docs/xls-alteracoes.md). The changes of an existing row (ALTERADA, REMOVIDA) stay one row each.
alter table app.xls_alteracao add column linha_ids uuid[];
alter table app.xls_alteracao alter column linha_id drop not null, alter column chave drop not null;
alter table app.xls_alteracao alter column linha_ids set storage external;

-- the rows recorded so far, grouped per processing and table (in the order written)
insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_ids, depois)
select a.processamento_id, a.tabela, 'INSERIDA', array_agg(a.linha_id order by a.seq),
       case when bool_and(a.depois is not null) then jsonb_agg(a.depois order by a.seq) end
  from app.xls_alteracao a
 where a.operacao = 'INSERIDA'
 group by a.processamento_id, a.tabela;
delete from app.xls_alteracao a where a.operacao = 'INSERIDA' and a.linha_ids is null;

alter table app.xls_alteracao add constraint xls_alteracao_forma check (
  case when operacao = 'INSERIDA' then linha_ids is not null and linha_id is null and chave is null
       and (depois is null or jsonb_array_length(depois) = cardinality(linha_ids))
       else linha_ids is null and linha_id is not null and chave is not null end);
drop index app.xls_alteracao_chave_idx;
create index xls_alteracao_chave_idx on app.xls_alteracao (jsonb_hash_extended(chave, 0), tabela) where chave is not null;
create index xls_alteracao_linha_idx on app.xls_alteracao (linha_id) where linha_id is not null;
drop function if exists app.xls_alteracao_depois(text, uuid, jsonb, bigint);

comment on table app.xls_alteracao is 'Change set of every spreadsheet processing, in the order written (seq): INSERIDA, one row per statement, with the ids of the rows it inserted (linha_ids); ALTERADA, one row per rewritten row (antes = the stored row before the rewrite, depois = after); REMOVIDA, one row per removed row (antes = the stored row before the removal). chave = the natural key (the table''s UNIQUE constraint) as JSON and linha_id = the row''s id, for ALTERADA and REMOVIDA. Written only by the trigger app.tg__xls_alteracao during a merge; read through public.xls_alteracoes, public.xls_linhagem and public.xls_desfazer (app.xls_alteracao_itens expands an INSERIDA into its rows); purged after xls_alteracoes_retencao_dias by app.xls_alteracoes_expurgar.';
comment on column app.xls_alteracao.linha_ids is 'INSERIDA: the ids of the rows the statement inserted, in the order inserted (their key and values are read from the row, or from the antes of its next change: app.xls_alteracao_depois). Null for ALTERADA and REMOVIDA. Stored uncompressed (ids do not compress).';
comment on column app.xls_alteracao.linha_id is 'ALTERADA, REMOVIDA: the id of the row changed. Null for INSERIDA (linha_ids).';
comment on column app.xls_alteracao.chave is 'ALTERADA, REMOVIDA: the natural key of the row (the table''s UNIQUE constraint) as JSON. Null for INSERIDA.';
comment on column app.xls_alteracao.depois is 'ALTERADA: the row after the rewrite. REMOVIDA: null. INSERIDA: null while the rows are as recorded elsewhere (app.xls_alteracao_depois reads each: the next change''s antes, else the stored row); public.xls_desfazer fills it in (a JSON array aligned with linha_ids) before removing the rows.';
comment on index app.xls_alteracao_chave_idx is 'Finds the ALTERADA / REMOVIDA rows of one natural key (the undo''s conflict check, xls_linhagem): 64-bit hash of chave, then tabela; the queries compare chave itself after the probe.';
comment on index app.xls_alteracao_linha_idx is 'Finds the ALTERADA / REMOVIDA rows of one row id: the later changes of an inserted row (its values as inserted, the undo''s conflict check, xls_linhagem).';

-- migrate:down
drop index app.xls_alteracao_linha_idx;
drop index app.xls_alteracao_chave_idx;
alter table app.xls_alteracao drop constraint xls_alteracao_forma;
-- one row per inserted row again; key and values are those of the row now (or the undo's record)
create temp table xls_alteracao_desagrupar on commit drop as
select a.processamento_id, a.tabela, u.id, u.n, a.depois -> (u.n::integer - 1) as depois
  from app.xls_alteracao a cross join lateral unnest(a.linha_ids) with ordinality u (id, n)
 where a.operacao = 'INSERIDA'
 order by a.seq, u.n;
delete from app.xls_alteracao a where a.operacao = 'INSERIDA';
do $$
declare
  t text;
begin
  for t in select distinct d.tabela from pg_temp.xls_alteracao_desagrupar d loop
    execute format($q$
      insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_id, chave, depois)
      select d.processamento_id, d.tabela, 'INSERIDA', d.id,
             coalesce(%s, jsonb_build_object('id', d.id)), d.depois
        from pg_temp.xls_alteracao_desagrupar d
        left join public.%I t on t.id = d.id
       where d.tabela = %L$q$, app.xls_chave_sql(format('public.%I', t)::regclass, 't'), t, t);
  end loop;
end $$;
alter table app.xls_alteracao alter column linha_id set not null, alter column chave set not null;
alter table app.xls_alteracao drop column linha_ids;
create index xls_alteracao_chave_idx on app.xls_alteracao (jsonb_hash_extended(chave, 0), tabela);
comment on index app.xls_alteracao_chave_idx is 'Finds the change-set rows of one natural key (the undo''s conflict check, xls_linhagem): 64-bit hash of chave, then tabela; the queries compare chave itself after the probe.';
comment on table app.xls_alteracao is 'Change set of every spreadsheet processing, one row per bi_* row it changed, in the order written (seq): INSERIDA (depois = the row as inserted), ALTERADA (antes = the stored row before the rewrite, depois = after), REMOVIDA (antes = the stored row before the removal). chave = the natural key (the table''s UNIQUE constraint) as JSON, linha_id = the row''s id. Written only by the trigger app.tg__xls_alteracao during a merge; read through public.xls_alteracoes, public.xls_linhagem and public.xls_desfazer; purged after xls_alteracoes_retencao_dias by app.xls_alteracoes_expurgar.';
comment on column app.xls_alteracao.linha_id is null;
comment on column app.xls_alteracao.chave is null;
comment on column app.xls_alteracao.depois is 'ALTERADA: the row after the rewrite. REMOVIDA: null. INSERIDA: null while the row is as recorded elsewhere (read it with app.xls_alteracao_depois: the next change''s antes, else the stored row); public.xls_desfazer fills it in before removing the row.';
