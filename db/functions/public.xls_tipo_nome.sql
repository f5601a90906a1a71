CREATE OR REPLACE FUNCTION public.xls_tipo_nome(p_tipo text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select case when p_tipo is null then null else coalesce((select t.nome from app.xls_tipo t where t.tipo = p_tipo), p_tipo) end $function$
;

comment on function public.xls_tipo_nome(text) is 'The name staff read for a spreadsheet type (app.xls_tipo.nome, e.g. FLUXO_PAGAR_RECEBER -> "Contas a pagar e receber"); the code itself when the type has no name; null for null.';
