CREATE OR REPLACE FUNCTION public.xls_tipo_valido(p_tipo text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select exists (select from app.xls_tipo t where t.tipo = p_tipo);
$function$
;

comment on function public.xls_tipo_valido(text) is 'True when p_tipo is a spreadsheet type: a row of app.xls_tipo, the one list of types (xls_processamento.tipo references it).';
