CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.partner_webhook;
begin
  select * into v_row from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_row.situacao <> 'PENDENTE' then
    return v_row.resultado; -- already done: a repeated job is harmless
  end if;
  v_row := app.partner_webhook_interpretar(v_row, p_agora);
  update public.partner_webhook set situacao = v_row.situacao, resultado = v_row.resultado, detalhe = v_row.detalhe,
         evento = v_row.evento, code = v_row.code, payload = v_row.payload, processado_em = v_row.processado_em
   where id = p_id;
  return v_row.resultado;
end;
$function$
;

comment on function public.partner_webhook_normalizar(uuid,timestamp with time zone) is 'Normalises one stored event (app.partner_webhook_interpretar, then its row). Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';
