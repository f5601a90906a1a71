CREATE OR REPLACE FUNCTION app.xls_worker_vivo(p_worker text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select exists (select from app.worker w where w.id = p_worker and w.heartbeat_at > now() - app.worker_timeout());
$function$
;

comment on function app.xls_worker_vivo(text) is 'True when the app.worker p_worker heartbeated within app.worker_timeout().';
