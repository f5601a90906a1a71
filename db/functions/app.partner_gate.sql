CREATE OR REPLACE FUNCTION app.partner_gate(p_ids uuid[], p_agora timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_desde timestamptz := (select gate_primeira_captura_desde from public.partner_configuracao);
  v_ids uuid[];
  v_motivos text[];
begin
  select array_agg(p.id), array_agg(m.motivo) into v_ids, v_motivos
    from public.partner_pedido p
    cross join lateral (select case
        when p.nao_pago_visto_em < p.recebido_visto_em then 'gate_transicao'
        when v_desde is not null and p.pago_em >= v_desde then 'gate_resgate_primeira_captura' end as motivo) m
   where p.id = any(p_ids) and p.estado = 'CAPTURADO' and app.partner_status_pago(p.status) and m.motivo is not null;
  if v_ids is null then
    return 0; -- first seen already paid: stays CAPTURADO, no alarm, until Enfileirar
  end if;
  perform app.partner_transicoes(v_ids, 'ENFILEIRADO', v_motivos, p_agora);
  return cardinality(v_ids);
end;
$function$
;

comment on function app.partner_gate(uuid[],timestamp with time zone) is 'The release rule, for a set of orders (one statement, then app.partner_transicoes for those released). A CAPTURADO order whose newest status is paid is released (ENFILEIRADO) when the transition to received was witnessed: an unpaid observation (waiting_payment/refused) older than a received one, whatever their arrival order (gate_transicao); or, when partner_configuracao.gate_primeira_captura_desde is set, when its paid_at is at or after that instant (gate_resgate_primeira_captura). Otherwise it stays CAPTURADO until Enfileirar. Returns how many were released.';
