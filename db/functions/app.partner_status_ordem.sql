CREATE OR REPLACE FUNCTION app.partner_status_ordem(p_status text)
 RETURNS integer
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  -- plpgsql, not sql: a sql function with a pinned search_path is never inlined and is parsed
  -- and planned again by every statement that calls it (partner_pedido's CHECK, the normalisation)
  return case p_status
    when 'waiting_payment' then 1 when 'refused' then 2 when 'received' then 3 when 'invoiced' then 4
    when 'shipped' then 5 when 'delivered' then 6 when 'cancelled' then 7 end;
end;
$function$
;

comment on function app.partner_status_ordem(text) is 'Lifecycle rank of a platform order status; breaks ties between two observations with the same updated_at (the later stage wins), so the final state never depends on arrival order. Null for an unknown status.';
