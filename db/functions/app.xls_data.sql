CREATE OR REPLACE FUNCTION app.xls_data(p_texto text)
 RETURNS date
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  return p_texto::date;
exception when data_exception then
  return null;
end;
$function$
;

comment on function app.xls_data(text) is 'Internal: the date a text holds (a parameter of p_meta such as FLUXO''s posicao), null when it is missing or not a date (no error: the caller words its own refusal).';
