CREATE OR REPLACE FUNCTION public.partner_webhook_reprocessar(p_id uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_situacao text;
begin
  select situacao into v_situacao from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_situacao <> 'REVISAR' then
    raise exception 'evento % está %, só eventos em REVISAR são reprocessados', p_id, v_situacao using errcode = 'PW409';
  end if;
  update public.partner_webhook set situacao = 'PENDENTE', resultado = null, detalhe = null, processado_em = null,
         tentativas = 0, proxima_tentativa_em = null
   where id = p_id;
  perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
  return p_id;
end;
$function$
;

comment on function public.partner_webhook_reprocessar(uuid) is 'For DBAs, after fixing what made an event REVISAR (e.g. a corrected corpo): back to PENDENTE and normalised again. PW404 unknown id; PW409 not in REVISAR.';
