CREATE OR REPLACE FUNCTION public.xls_merge_chunk(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tipo text;
begin
  v_tipo := app.xls_merge_tipo(p_processamento_id, p_meta);
  return app.xls_merge_chunk(v_tipo, coalesce(p_meta, '{}'));
end;
$function$
;

comment on function public.xls_merge_chunk(uuid,jsonb) is 'Optional, while the staging tables are being filled: merges the rows staged so far as one chunk and empties the staging, so the database writes one chunk while the edge reads the next (same transaction, before xls_merge). The type is looked up in app.xls_alvo (the declarative merge, docs/xls-merge.md); p_meta as for xls_merge (RELATORIO18 needs its period; every chunk the same parameters). The end result is the same as one xls_merge of every row; xls_merge then finishes (keys repeated across chunks, the type''s hook, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';
