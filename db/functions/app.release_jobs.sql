CREATE OR REPLACE FUNCTION app.release_jobs(p_worker text)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_count integer;
  v_kind text;
begin
  with released as (
    update app.job set status = 'pending', attempts = greatest(attempts - 1, 0),
           locked_by = null, locked_at = null, updated_at = now()
     where status = 'running' and locked_by = p_worker
    returning kind
  )
  select count(*) into v_count from released;
  delete from app.worker where id = p_worker;
  for v_kind in select distinct kind from app.job where status = 'pending' and run_at <= now() loop
    perform pg_notify('app_jobs', v_kind);
  end loop;
  return v_count;
end;
$function$
;

comment on function app.release_jobs(text) is 'Graceful shutdown: returns the worker''s unfinished jobs to the queue (the attempt is not counted), forgets the worker and wakes the others.';
