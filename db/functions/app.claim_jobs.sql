CREATE OR REPLACE FUNCTION app.claim_jobs(p_worker text, p_kinds text[], p_max integer DEFAULT 1)
 RETURNS SETOF app.job
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with candidate as (
    select id from app.job
    where status = 'pending' and kind = any(p_kinds) and run_at <= now()
    order by run_at, id
    limit greatest(p_max, 0)
    for update skip locked
  )
  update app.job j
     set status = 'running', locked_by = p_worker, locked_at = now(),
         attempts = j.attempts + 1, epoch = j.epoch + 1, updated_at = now()
    from candidate
   where j.id = candidate.id
  returning j.*;
$function$
;

comment on function app.claim_jobs(text,text[],integer) is 'Claims up to p_max due jobs of the given kinds for one worker. Concurrent callers never receive the same job (FOR UPDATE SKIP LOCKED). Each claim increments epoch, the fencing token the worker passes back to app.complete_job / app.fail_job.';
