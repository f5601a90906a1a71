CREATE OR REPLACE FUNCTION app.partner_numero(p_valor jsonb, p_campo text)
 RETURNS numeric
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  if p_valor is null or jsonb_typeof(p_valor) = 'null' then
    return null;
  end if;
  if jsonb_typeof(p_valor) = 'number' or (jsonb_typeof(p_valor) = 'string' and p_valor #>> '{}' ~ '^\s*-?\d+(\.\d+)?\s*$') then
    return (p_valor #>> '{}')::numeric;
  end if;
  raise exception 'campo % não é um número: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
end;
$function$
;

comment on function app.partner_numero(jsonb,text) is 'Parses a number (JSON number or numeric string) of a platform payload; PW422 naming the field otherwise. JSON null -> null.';
