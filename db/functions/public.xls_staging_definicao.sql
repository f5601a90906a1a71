CREATE OR REPLACE FUNCTION public.xls_staging_definicao(p_tipo text)
 RETURNS TABLE(staging text, ordem integer, coluna text, tipo_sql text)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select c.staging, c.ordem, c.coluna, c.tipo_sql
    from app.xls_staging_coluna c
   where c.tipo = p_tipo
   order by c.staging, c.ordem;
$function$
;

comment on function public.xls_staging_definicao(text) is 'The staging tables of a spreadsheet type and their typed columns, in COPY order, as described in app.xls_staging_coluna (the contract between the reader and the merges; field names = normalised headers). Every table starts with linha, the sheet''s own 1-based row number.';
