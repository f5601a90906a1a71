CREATE OR REPLACE FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text, p_epoch bigint DEFAULT NULL::bigint)
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_status text;
begin
  update app.job
     set status = case when attempts >= max_attempts then 'failed' else 'pending' end,
         run_at = now() + least(interval '1 second' * power(2, attempts), interval '10 minutes'),
         locked_by = null, locked_at = null, last_error = left(p_error, 4000), updated_at = now()
   where id = p_id and status = 'running' and locked_by = p_worker and (p_epoch is null or epoch = p_epoch)
  returning status into v_status;
  return v_status;
end;
$function$
;

comment on function app.fail_job(text,bigint,text,bigint) is 'Records a failed attempt: back to pending with exponential backoff (2^attempts s, at most 10 min), or failed when max_attempts is reached. Returns the new status, or null when the worker no longer holds the job or p_epoch (the fencing token of app.claim_jobs) is not the current claim''s.';
