CREATE OR REPLACE FUNCTION app.partner_webhook_interpretar(p_row public.partner_webhook, p_agora timestamp with time zone)
 RETURNS public.partner_webhook
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_webhook := p_row;
  v_json jsonb;
  v_evento text;
  v_code text;
begin
  v_row.processado_em := p_agora;
  begin
    v_json := convert_from(p_row.corpo, 'UTF8')::jsonb;
  exception when data_exception then -- invalid UTF-8, invalid JSON, \u0000
    v_row.situacao := 'REVISAR'; v_row.resultado := 'json_invalido'; v_row.detalhe := left(sqlerrm, 500);
    return v_row;
  end;

  if jsonb_typeof(v_json) <> 'object' then
    v_row.situacao := 'REVISAR'; v_row.resultado := 'formato_desconhecido';
    v_row.detalhe := 'o corpo é JSON mas não é um objeto'; v_row.payload := v_json;
    return v_row;
  end if;

  v_evento := v_json ->> 'event';
  v_code := case when jsonb_typeof(v_json -> 'resource') = 'object' then nullif(btrim(v_json -> 'resource' ->> 'code'), '') end;
  v_row.code := v_code;
  v_row.payload := v_json;
  if v_evento is null or v_evento not in ('order.created', 'order.paid', 'order.status.updated', 'order.cancelled') then
    v_row.situacao := 'REVISAR'; v_row.resultado := 'evento_desconhecido';
    v_row.detalhe := 'evento ' || coalesce(quote_literal(v_evento), 'ausente'); v_row.evento := left(v_evento, 100);
    return v_row;
  end if;

  v_row.evento := v_evento;
  begin
    v_row.resultado := public.partner_pedido_observar(v_json -> 'resource', 'webhook', v_evento, v_json -> 'time', p_agora);
  exception when sqlstate 'PW422' then
    v_row.situacao := 'REVISAR'; v_row.resultado := 'pedido_invalido'; v_row.detalhe := left(sqlerrm, 500);
    return v_row;
  end;
  v_row.situacao := 'NORMALIZADO';
  v_row.detalhe := null;
  return v_row;
end;
$function$
;

comment on function app.partner_webhook_interpretar(public.partner_webhook, timestamp with time zone) is 'The normalisation of one stored event, without writing its row: reads the body and applies the order through partner_pedido_observar (its only write), and returns the row as it must become (situacao, resultado, detalhe, evento, code, payload, processado_em = p_agora; the rest as given). A body that is not JSON, not an object, an unknown event or an unreadable order (PW422) comes back REVISAR with the reason; unexpected errors propagate. partner_webhook_normalizar writes the row returned; partner_webhook_normalizar_lote writes a whole batch''s with one UPDATE.';
