CREATE OR REPLACE FUNCTION app.xls_alteracao_depois(p_tabela text, p_linha_id uuid, p_seq bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
-- A row an INSERIDA change (seq p_seq) inserted, as inserted, which the change set does not store
-- (it would double what a first import writes): the bi_* tables are written only by merges, whose
-- every write is recorded, and by the undo, which stores the values before it removes the rows.
-- So the row as inserted is the "antes" of the next change of the same id, or, when nothing
-- changed it since, the row as it is stored now.
declare
  v jsonb;
begin
  select b.antes into v
    from app.xls_alteracao b
   where b.linha_id = p_linha_id and b.tabela = p_tabela and b.seq > p_seq
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

comment on function app.xls_alteracao_depois(text,uuid,bigint) is 'Internal: a row of an INSERIDA change-set row (seq p_seq) as inserted, which app.xls_alteracao does not store until an undo: the antes of the next change of the same row (tabela, linha_id, through the id index), else the row as stored now; null when neither exists. Exact because the bi_* tables are written only by merges (every write recorded) and by public.xls_desfazer (which stores the values before removing inserted rows). Read by app.xls_alteracao_itens and public.xls_linhagem.';
