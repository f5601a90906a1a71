-- migrate:up
set local lock_timeout = '5s';

create function app.notificar_bot(p_texto text) returns bigint
language sql volatile
set search_path to pg_catalog, public, pg_temp
as $$
  select app.enqueue('bot_mensagem', jsonb_build_object('texto', p_texto), now(), null, 8);
$$;
comment on function app.notificar_bot(text) is 'Queues a messaging-bot message (job bot_mensagem), inside the caller''s transaction: the message goes out only if the outcome it reports commits, and a failed send is retried by the job queue (8 attempts with backoff).';

-- migrate:down
set local lock_timeout = '5s';
drop function app.notificar_bot(text);
