CREATE OR REPLACE FUNCTION app.partner_status_pago(p_status text)
 RETURNS boolean
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  -- plpgsql, not sql: see app.partner_status_ordem
  return p_status in ('received', 'invoiced', 'shipped', 'delivered');
end;
$function$
;

comment on function app.partner_status_pago(text) is 'The platform status says the order is paid (received or a later stage).';
