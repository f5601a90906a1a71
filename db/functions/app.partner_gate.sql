CREATE OR REPLACE FUNCTION app.partner_gate(p_pedido public.partner_pedido, p_agora timestamp with time zone)
 RETURNS public.partner_pedido
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_desde timestamptz;
begin
  if p_pedido.estado <> 'CAPTURADO' or not app.partner_status_pago(p_pedido.status) then
    return p_pedido;
  end if;
  v_desde := (select gate_primeira_captura_desde from public.partner_configuracao); -- read only when it can matter
  if p_pedido.nao_pago_visto_em < p_pedido.recebido_visto_em then
    return app.partner_transicao(p_pedido, 'ENFILEIRADO', 'gate_transicao', p_agora);
  end if;
  if v_desde is not null and p_pedido.pago_em >= v_desde then
    return app.partner_transicao(p_pedido, 'ENFILEIRADO', 'gate_resgate_primeira_captura', p_agora);
  end if;
  return p_pedido; -- first seen already paid: stays CAPTURADO, no alarm, until Enfileirar
end;
$function$
;

comment on function app.partner_gate(public.partner_pedido,timestamp with time zone) is 'The release rule. A CAPTURADO order whose newest status is paid is released (ENFILEIRADO) when the transition to received was witnessed: an unpaid observation (waiting_payment/refused) older than a received one, whatever their arrival order; or, when partner_configuracao.gate_primeira_captura_desde is set, when its paid_at is at or after that instant. Otherwise it stays CAPTURADO until Enfileirar.';
