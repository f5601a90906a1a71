CREATE OR REPLACE FUNCTION public.xls_tipo_mestre(p_tipo text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select p_tipo is not distinct from 'RELATORIO18' $function$
;

comment on function public.xls_tipo_mestre(text) is 'True for the master report type (RELATORIO18): the one that creates branches, sellers, customers, products and vehicles that the other types reference; its success closes its batch.';
