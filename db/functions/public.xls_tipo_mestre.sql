CREATE OR REPLACE FUNCTION public.xls_tipo_mestre(p_tipo text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select coalesce((select t.mestre from app.xls_tipo t where t.tipo = p_tipo), false) $function$
;

comment on function public.xls_tipo_mestre(text) is 'True for the master report type (app.xls_tipo.mestre: RELATORIO18): the one that creates branches, sellers, customers, products and vehicles that the other types reference; its success closes its batch.';
