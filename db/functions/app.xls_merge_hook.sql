CREATE OR REPLACE FUNCTION app.xls_merge_hook(p_tipo text, p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_hook text;
  v_res jsonb;
begin
  select t.hook into v_hook from app.xls_tipo t where t.tipo = p_tipo;
  if v_hook is null then
    return '{}';
  end if;
  execute format('select %s($1, $2, $3)', v_hook::regproc) into v_res using p_fase, p_staging, coalesce(p_meta, '{}');
  return coalesce(v_res, '{}');
end;
$function$
;

comment on function app.xls_merge_hook(text,text,text,jsonb) is 'Internal: calls the hook of a spreadsheet type (app.xls_tipo.hook), if it has one, at a phase of the generic merge: inicio (first chunk, p_staging null), normalizado (the chunk of target p_staging normalised, before rejections), aceito (after rejections and repeated keys, before writing), fim (after keys repeated across chunks, before the scope deletes, p_staging null; returns {avisos, tabelas, resultado}). Returns the hook''s jsonb ({} without hook).';
