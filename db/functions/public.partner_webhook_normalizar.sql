CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_situacao text;
  v_resultado text;
begin
  select situacao, resultado into v_situacao, v_resultado from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_situacao <> 'PENDENTE' then
    return v_resultado; -- already done: a repeated job is harmless
  end if;
  perform app.partner_webhook_normalizar_ids(array[p_id], p_agora);
  return (select resultado from public.partner_webhook where id = p_id);
end;
$function$
;

comment on function public.partner_webhook_normalizar(uuid,timestamp with time zone) is 'Normalises one stored event (app.partner_webhook_normalizar_ids with a set of one: the same rules as a batch). Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';
