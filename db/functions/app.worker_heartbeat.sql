CREATE OR REPLACE FUNCTION app.worker_heartbeat(p_worker text, p_hostname text, p_pid integer)
 RETURNS void
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  insert into app.worker (id, hostname, pid) values (p_worker, p_hostname, p_pid)
  on conflict (id) do update set heartbeat_at = now();
$function$
;

comment on function app.worker_heartbeat(text,text,integer) is 'Registers a worker or refreshes its heartbeat.';
