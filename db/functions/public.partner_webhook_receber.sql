CREATE OR REPLACE FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text DEFAULT NULL::text, p_ip text DEFAULT NULL::text, p_user_agent text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id uuid;
begin
  insert into public.partner_webhook (corpo, content_type, ip, user_agent)
  values (coalesce(p_corpo, ''::bytea), left(p_content_type, 200), left(p_ip, 100), left(p_user_agent, 500))
  returning id into v_id;
  begin
    -- shared: concurrent intakes never wait for each other; see partner_normalizar_concluir
    perform pg_advisory_xact_lock_shared(app.partner_normalizar_trava());
    perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
  exception when others then
    -- the event is stored: nothing may turn the answer into an error. partner_tick re-enqueues it.
    raise warning 'partner_webhook %: falha ao enfileirar a normalização: %', v_id, sqlerrm;
  end;
  return v_id;
end;
$function$
;

comment on function public.partner_webhook_receber(bytea,text,text,text) is 'Intake of POST /webhook/partner: stores the raw body (recebido_em = clock time) and makes sure the normalisation job runs (job partner_normalizar with unique key lote: a no-op when one is pending or running; NOTIFY app_jobs), in the caller''s transaction. Returns the event id the edge answers with. Never fails on the content of the body.';
