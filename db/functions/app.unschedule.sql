CREATE OR REPLACE FUNCTION app.unschedule(p_job_name text)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if not app.cron_available() or not exists (select from pg_extension where extname = 'pg_cron') then
    return false;
  end if;
  execute 'select cron.unschedule(jobid) from cron.job where jobname = $1' using p_job_name;
  return true;
end;
$function$
;

comment on function app.unschedule(text) is 'Removes a named pg_cron job when it exists; used by down migrations.';
