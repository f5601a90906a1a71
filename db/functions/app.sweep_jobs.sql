CREATE OR REPLACE FUNCTION app.sweep_jobs()
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_rescued integer;
  v_kind text;
begin
  with rescued as (
    update app.job j set status = 'pending', locked_by = null, locked_at = null, updated_at = now(),
           last_error = coalesce(j.last_error, 'worker ' || j.locked_by || ' parou de responder')
     where j.status = 'running'
       and not exists (select from app.worker w where w.id = j.locked_by
                        and w.heartbeat_at > now() - app.worker_timeout())
    returning 1
  )
  select count(*) into v_rescued from rescued;
  delete from app.worker where heartbeat_at < now() - app.worker_timeout() * 10;
  delete from app.job where status = 'done' and updated_at < now() - interval '7 days';
  for v_kind in select distinct kind from app.job where status = 'pending' and run_at <= now() loop
    perform pg_notify('app_jobs', v_kind);
  end loop;
  return v_rescued;
end;
$function$
;

comment on function app.sweep_jobs() is 'Run every minute by pg_cron (job app_sweep_jobs), every 10 s by each live replica of the service (JOBS_SWEEP_MS) and at boot: returns jobs of dead workers to the queue, purges done jobs older than 7 days, and re-sends the wake-up for every kind with due work (covers lost notifications and delayed retries). Returns how many jobs were rescued.';
