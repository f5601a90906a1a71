CREATE OR REPLACE FUNCTION app.complete_job(p_worker text, p_id bigint)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker
    returning 1
  )
  select exists (select from done);
$function$
;

comment on function app.complete_job(text,bigint) is 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead).';
