CREATE OR REPLACE FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text DEFAULT NULL::text)
 RETURNS public.partner_pedido
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  return (app.partner_transicoes(array[p_pedido.id], p_para, array[p_motivo], p_agora, p_por))[1];
end;
$function$
;

comment on function app.partner_transicao(public.partner_pedido,text,text,timestamp with time zone,text) is 'Moves an order to another local state and records it in partner_pedido_transicao; a release sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue. app.partner_transicoes with a set of one.';
