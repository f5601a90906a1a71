CREATE OR REPLACE FUNCTION app.xls_alteracao_depois(p_tabela text, p_linha_id uuid, p_chave jsonb, p_seq bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- The row an INSERIDA change (seq p_seq) inserted, which the change set does not store (it would
-- double what a first import writes): the bi_* tables are written only by merges, whose every
-- write is recorded, and by the undo, which fills this value in before it removes the row. So
-- the row as inserted is the "antes" of the next change of the same row, or, when nothing
-- changed it since, the row as it is stored now.
declare
  v jsonb;
begin
  select b.antes into v
    from app.xls_alteracao b
   where jsonb_hash_extended(b.chave, 0) = jsonb_hash_extended(p_chave, 0) and b.tabela = p_tabela
     and b.linha_id = p_linha_id and b.seq > p_seq
   order by b.seq
   limit 1;
  if found then
    return v;
  end if;
  execute format('select to_jsonb(t) from public.%I t where t.id = $1', p_tabela) into v using p_linha_id;
  return v;
end;
$function$
;

comment on function app.xls_alteracao_depois(text,uuid,jsonb,bigint) is 'Internal: the "depois" of an INSERIDA change-set row (app.xls_alteracao stores it only after an undo): the antes of the next change of the same row (tabela, linha_id, found through the key index), else the row as stored now. Exact because the bi_* tables are written only by merges (every write recorded) and by public.xls_desfazer (which fills depois in before removing inserted rows). Read by public.xls_alteracoes, public.xls_simular_resumo and public.xls_linhagem.';
