CREATE OR REPLACE FUNCTION app.json_preco(p_valor jsonb)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- below 10^10 with 2 decimals: at most 9999999999.99
  select app.json_numero(p_valor, 0, 9999999999.99, 2);
$function$
;

comment on function app.json_preco(jsonb) is 'The price in a JSON value when it is a JSON number, not negative, below 10^10 and with at most 2 decimals; otherwise null (strings such as "10.50" are not prices).';
