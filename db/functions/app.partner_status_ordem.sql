CREATE OR REPLACE FUNCTION app.partner_status_ordem(p_status text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select case p_status
    when 'waiting_payment' then 1 when 'refused' then 2 when 'received' then 3 when 'invoiced' then 4
    when 'shipped' then 5 when 'delivered' then 6 when 'cancelled' then 7 end;
$function$
;

comment on function app.partner_status_ordem(text) is 'Lifecycle rank of a platform order status; breaks ties between two observations with the same updated_at (the later stage wins), so the final state never depends on arrival order. Null for an unknown status.';
