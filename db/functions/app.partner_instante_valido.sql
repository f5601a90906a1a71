CREATE OR REPLACE FUNCTION app.partner_instante_valido(p_texto text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  -- one subtransaction per call: only app.partner_pedido_ler's second pass calls it, after the
  -- cast of a whole set failed (Postgres 15 has no pg_input_is_valid)
  perform p_texto::timestamptz;
  return true;
exception when data_exception then
  return false;
end;
$function$
;

comment on function app.partner_instante_valido(text) is 'Whether the text is a valid timestamptz input (in the session''s time zone), without raising. One subtransaction per call: used only by app.partner_pedido_ler when the cast of a whole set of instants failed.';
