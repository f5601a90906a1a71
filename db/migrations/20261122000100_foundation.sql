-- migrate:up
set local lock_timeout = '5s';

create schema app;
comment on schema app is 'Internal machinery of the service (job queue, workers, helpers). DBAs may read it; the application owns it. Domain tables and the functions staff and DBAs call live in public.';
revoke all on schema app from public;

-- The sync engine reads every bi_* table, and nothing else. Roles are cluster-wide,
-- so the role survives a down migration (other databases of the cluster may use it).
do $$
begin
  if not exists (select from pg_roles where rolname = 'bi_sync_reader') then
    create role bi_sync_reader nologin;
  end if;
end
$$;
grant usage on schema public to bi_sync_reader;

create function app.tg__grant_bi_select() returns event_trigger
language plpgsql
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_cmd record;
begin
  for v_cmd in
    select * from pg_event_trigger_ddl_commands()
    where object_type = 'table' and schema_name = 'public'
  loop
    if (select c.relname from pg_class c where c.oid = v_cmd.objid) like 'bi\_%' then
      execute format('grant select on %s to bi_sync_reader', v_cmd.object_identity);
    end if;
  end loop;
end;
$$;
comment on function app.tg__grant_bi_select() is 'Event trigger: every table created in public whose name starts with bi_ is granted SELECT to bi_sync_reader (the sync engine''s read role), so future tables need no manual grant.';

create event trigger _100_bi_grant_sync_reader on ddl_command_end
  when tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
  execute function app.tg__grant_bi_select();

-- pg_cron lives only in the database named by cron.database_name. Migrations schedule
-- through this helper, which is a no-op everywhere else (per-test clones, replicas of
-- the schema), so one migration history serves production and tests alike.
create function app.cron_available() returns boolean
language sql stable
set search_path to pg_catalog, pg_temp
as $$
  select current_setting('cron.database_name', true) = current_database()
     and exists (select from pg_available_extensions where name = 'pg_cron');
$$;
comment on function app.cron_available() is 'True when this database is the one pg_cron serves (cron.database_name) and the extension is installed on the server.';

create function app.schedule(p_job_name text, p_schedule text, p_command text) returns boolean
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  if not app.cron_available() then
    return false;
  end if;
  create extension if not exists pg_cron;
  execute 'select cron.schedule($1, $2, $3)' using p_job_name, p_schedule, p_command;
  return true;
end;
$$;
comment on function app.schedule(text, text, text) is 'Schedules (or re-schedules) a named pg_cron job when this database hosts pg_cron; returns false and does nothing elsewhere. Used by migrations.';

create function app.unschedule(p_job_name text) returns boolean
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
begin
  if not app.cron_available() or not exists (select from pg_extension where extname = 'pg_cron') then
    return false;
  end if;
  execute 'select cron.unschedule(jobid) from cron.job where jobname = $1' using p_job_name;
  return true;
end;
$$;
comment on function app.unschedule(text) is 'Removes a named pg_cron job when it exists; used by down migrations.';

-- migrate:down
set local lock_timeout = '5s';
drop event trigger if exists _100_bi_grant_sync_reader;
revoke usage on schema public from bi_sync_reader;
drop schema app cascade;
