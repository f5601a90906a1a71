CREATE OR REPLACE FUNCTION app.notificar_bot(p_texto text)
 RETURNS bigint
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select app.enqueue('bot_mensagem', jsonb_build_object('texto', p_texto), now(), null, 8);
$function$
;

comment on function app.notificar_bot(text) is 'Queues a messaging-bot message (job bot_mensagem), inside the caller''s transaction: the message goes out only if the outcome it reports commits, and a failed send is retried by the job queue (8 attempts with backoff).';
