CREATE OR REPLACE FUNCTION app.json_preco(p_valor jsonb)
 RETURNS numeric
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  n numeric;
begin
  if jsonb_typeof(p_valor) is distinct from 'number' then
    return null;
  end if;
  n := (p_valor #>> '{}')::numeric;
  if n >= 0 and n < 1e10 and n = round(n, 2) then
    return n;
  end if;
  return null;
end;
$function$
;

comment on function app.json_preco(jsonb) is 'The price in a JSON value when it is a JSON number, not negative, below 10^10 and with at most 2 decimals; otherwise null (strings such as "10.50" are not prices).';
