CREATE OR REPLACE FUNCTION app.json_estoque(p_valor jsonb)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select app.json_numero(p_valor, 0, 2147483647, 0)::integer;
$function$
;

comment on function app.json_estoque(jsonb) is 'The stock quantity in a JSON value when it is a JSON number with an integral value between 0 and 2147483647 (10.0 counts as 10); otherwise null.';
