CREATE OR REPLACE FUNCTION app.xls_aviso(p_categoria text, p_motivo text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select jsonb_build_array(jsonb_build_object('categoria', p_categoria, 'quantidade', 1, 'linhas', '[]'::jsonb, 'motivo', p_motivo));
$function$
;

comment on function app.xls_aviso(text,text) is 'Internal, for hooks: a list holding one warning about the whole file (no rows): [{categoria, quantidade: 1, linhas: [], motivo}]; null when p_motivo is null (no warning), so that avisos || coalesce(app.xls_aviso(…), ''[]'') adds it only when there is one. Warnings about rows: app.xls_aviso_linha_avisos.';
