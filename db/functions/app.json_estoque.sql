CREATE OR REPLACE FUNCTION app.json_estoque(p_valor jsonb)
 RETURNS integer
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
  if n >= 0 and n <= 2147483647 and n = trunc(n) then
    return n::integer;
  end if;
  return null;
end;
$function$
;

comment on function app.json_estoque(jsonb) is 'The stock quantity in a JSON value when it is a JSON number with an integral value between 0 and 2147483647 (10.0 counts as 10); otherwise null.';
