CREATE OR REPLACE FUNCTION app.json_numero(p_valor jsonb, p_min numeric, p_max numeric, p_decimais integer)
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
  if n >= p_min and n <= p_max and n = round(n, p_decimais) then
    return n;
  end if;
  return null;
end;
$function$
;

comment on function app.json_numero(jsonb,numeric,numeric,integer) is 'The number in a JSON value when it is a JSON number between p_min and p_max (both included) with at most p_decimais decimals (10.0 has none); otherwise null (a string such as "10.50" is not a number). The one shape of app.json_preco and app.json_estoque.';
