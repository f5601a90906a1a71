CREATE OR REPLACE FUNCTION app.cron_available()
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select current_setting('cron.database_name', true) = current_database()
     and exists (select from pg_available_extensions where name = 'pg_cron');
$function$
;

comment on function app.cron_available() is 'True when this database is the one pg_cron serves (cron.database_name) and the extension is installed on the server.';
