CREATE OR REPLACE FUNCTION app.worker_timeout()
 RETURNS interval
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select interval '20 seconds' $function$
;

comment on function app.worker_timeout() is 'How long a worker may go without a heartbeat before it counts as dead: 20 s (workers heartbeat every 5 s, JOBS_HEARTBEAT_MS). With app.sweep_jobs and xls_recuperar run every 10 s by each live replica (pg_cron 1.4 schedules by the minute only), the jobs and PROCESSANDO of a replica that died silently are recovered within 30 s.';
