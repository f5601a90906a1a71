CREATE OR REPLACE FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text DEFAULT NULL::text)
 RETURNS public.partner_pedido
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_pedido;
begin
  update public.partner_pedido set
    estado = p_para,
    enfileirado_em = case when p_para = 'ENFILEIRADO' then p_agora else enfileirado_em end,
    enfileirado_por = case when p_para = 'ENFILEIRADO' then coalesce(p_por, p_motivo) else enfileirado_por end,
    liberacao = case when p_para = 'ENFILEIRADO' then
                  case when p_motivo in ('gate_transicao', 'gate_resgate_primeira_captura') then p_motivo else 'console' end
                else liberacao end
  where id = p_pedido.id
  returning * into v_row;
  insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
  values (p_pedido.id, p_pedido.estado, p_para, p_motivo, p_agora);
  if p_para = 'ENFILEIRADO' then
    perform pg_notify('partner_pedidos', v_row.code);
  end if;
  return v_row;
end;
$function$
;

comment on function app.partner_transicao(public.partner_pedido,text,text,timestamp with time zone,text) is 'Moves an order to another local state and records it in partner_pedido_transicao; a release sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue.';
