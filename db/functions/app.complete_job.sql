CREATE OR REPLACE FUNCTION app.complete_job(p_worker text, p_id bigint, p_epoch bigint DEFAULT NULL::bigint)
 RETURNS boolean
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker and (p_epoch is null or epoch = p_epoch)
    returning 1
  )
  select exists (select from done);
$function$
;

comment on function app.complete_job(text,bigint,bigint) is 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead), or when p_epoch (the fencing token returned by app.claim_jobs; the service always passes it) is not the current claim''s: a worker resumed after its job was reclaimed, even by itself, cannot close the new claim.';
