CREATE OR REPLACE FUNCTION app.xls_brl(p_valor numeric)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select case when p_valor is null then null else
    translate(to_char(round(p_valor, 2), 'FM999,999,999,999,990.00'), ',.', '.,') end;
$function$
;

comment on function app.xls_brl(numeric) is 'A value in Brazilian form for messages: 1234567.891 → ''1.234.567,89''.';
