CREATE OR REPLACE FUNCTION app.schedule(p_job_name text, p_schedule text, p_command text)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if not app.cron_available() then
    return false;
  end if;
  create extension if not exists pg_cron;
  execute 'select cron.schedule($1, $2, $3)' using p_job_name, p_schedule, p_command;
  return true;
end;
$function$
;

comment on function app.schedule(text,text,text) is 'Schedules (or re-schedules) a named pg_cron job when this database hosts pg_cron; returns false and does nothing elsewhere. Used by migrations.';
