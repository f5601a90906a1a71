CREATE OR REPLACE FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text DEFAULT NULL::text, p_ip text DEFAULT NULL::text, p_user_agent text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select l.id
    from public.partner_webhook_receber_lote(array[app.uuid_v7()], array[p_corpo], array[p_content_type],
                                             array[p_ip], array[p_user_agent]) l;
$function$
;

comment on function public.partner_webhook_receber(bytea,text,text,text) is 'Intake of one delivery (for DBAs and scripts; the service stores by group commit through partner_webhook_receber_lote): stores the raw body (recebido_em = clock time) and makes sure the normalisation job runs (job partner_normalizar with unique key lote: a no-op when one is pending or running; NOTIFY app_jobs), in the caller''s transaction. Returns the new event id. Never fails on the content of the body.';
