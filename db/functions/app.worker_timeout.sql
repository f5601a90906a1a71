CREATE OR REPLACE FUNCTION app.worker_timeout()
 RETURNS interval
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select interval '2 minutes' $function$
;

comment on function app.worker_timeout() is 'How long a worker may go without a heartbeat before it counts as dead.';
