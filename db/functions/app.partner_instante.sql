CREATE OR REPLACE FUNCTION app.partner_instante(p_valor jsonb, p_campo text)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  if p_valor is null or jsonb_typeof(p_valor) = 'null' then
    return null;
  end if;
  if jsonb_typeof(p_valor) <> 'string' or p_valor #>> '{}' !~ '^\d{4}-\d{2}-\d{2}' then
    raise exception 'campo % não é uma data ISO-8601: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
  end if;
  -- the subtransaction of an exception block only around the cast: a null costs none
  begin
    return (p_valor #>> '{}')::timestamptz;
  exception when data_exception then
    raise exception 'campo % não é uma data ISO-8601: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
  end;
end;
$function$
;

comment on function app.partner_instante(jsonb,text) is 'Parses an ISO-8601 instant of a platform payload (without an offset: the session time zone); PW422 naming the field when it is not one. JSON null -> null.';
