CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_webhook;
  v_json jsonb;
  v_evento text;
  v_code text;
  v_resultado text;
begin
  select * into v_row from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_row.situacao <> 'PENDENTE' then
    return v_row.resultado; -- already done: a repeated job is harmless
  end if;

  begin
    v_json := convert_from(v_row.corpo, 'UTF8')::jsonb;
  exception when data_exception then -- invalid UTF-8, invalid JSON, \u0000
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'json_invalido', detalhe = left(sqlerrm, 500),
           processado_em = p_agora where id = p_id;
    return 'json_invalido';
  end;

  if jsonb_typeof(v_json) <> 'object' then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'formato_desconhecido',
           detalhe = 'o corpo é JSON mas não é um objeto', payload = v_json, processado_em = p_agora where id = p_id;
    return 'formato_desconhecido';
  end if;

  v_evento := v_json ->> 'event';
  v_code := case when jsonb_typeof(v_json -> 'resource') = 'object' then nullif(btrim(v_json -> 'resource' ->> 'code'), '') end;
  if v_evento is null or v_evento not in ('order.created', 'order.paid', 'order.status.updated', 'order.cancelled') then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'evento_desconhecido',
           detalhe = 'evento ' || coalesce(quote_literal(v_evento), 'ausente'), evento = left(v_evento, 100), code = v_code,
           payload = v_json, processado_em = p_agora where id = p_id;
    return 'evento_desconhecido';
  end if;

  begin
    v_resultado := public.partner_pedido_observar(v_json -> 'resource', 'webhook', v_evento, v_json -> 'time', p_agora);
  exception when sqlstate 'PW422' then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'pedido_invalido', detalhe = left(sqlerrm, 500),
           evento = v_evento, code = v_code, payload = v_json, processado_em = p_agora where id = p_id;
    return 'pedido_invalido';
  end;

  update public.partner_webhook set situacao = 'NORMALIZADO', resultado = v_resultado, detalhe = null,
         evento = v_evento, code = v_code, payload = v_json, processado_em = p_agora where id = p_id;
  return v_resultado;
end;
$function$
;

comment on function public.partner_webhook_normalizar(uuid,timestamp with time zone) is 'Normalises one stored event. Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';
