-- migrate:up
set local lock_timeout = '5s';

create table app.worker (
  id text primary key,
  hostname text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now()
);
comment on table app.worker is 'One row per live application process (replica). Workers heartbeat; a worker silent for longer than app.worker_timeout() is dead and its claimed jobs return to the queue.';

create table app.job (
  id bigint generated always as identity primary key,
  kind text not null,
  payload jsonb not null default '{}',
  status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  max_attempts integer not null default 5 check (max_attempts > 0),
  unique_key text,
  locked_by text,
  locked_at timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app.job is 'Background jobs. Claimed once across replicas (FOR UPDATE SKIP LOCKED), woken by NOTIFY app_jobs (payload: the kind), swept every minute by pg_cron in case a notification was lost.';
comment on column app.job.unique_key is 'When set, at most one pending or running job per (kind, unique_key): enqueueing again is a no-op.';
create index job_claim_idx on app.job (kind, run_at, id) where status = 'pending';
create index job_running_idx on app.job (locked_by) where status = 'running';
create unique index job_unique_key_idx on app.job (kind, unique_key)
  where unique_key is not null and status in ('pending', 'running');

create function app.worker_timeout() returns interval
language sql immutable
set search_path to pg_catalog, pg_temp
as $$ select interval '2 minutes' $$;
comment on function app.worker_timeout() is 'How long a worker may go without a heartbeat before it counts as dead.';

create function app.enqueue(p_kind text, p_payload jsonb default '{}', p_run_at timestamptz default now(),
                            p_unique_key text default null, p_max_attempts integer default 5)
returns bigint
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_id bigint;
begin
  insert into app.job (kind, payload, run_at, unique_key, max_attempts)
  values (p_kind, coalesce(p_payload, '{}'), coalesce(p_run_at, now()), p_unique_key, p_max_attempts)
  on conflict (kind, unique_key) where unique_key is not null and status in ('pending', 'running') do nothing
  returning id into v_id;
  if v_id is not null and coalesce(p_run_at, now()) <= now() then
    perform pg_notify('app_jobs', p_kind);
  end if;
  return v_id;
end;
$$;
comment on function app.enqueue(text, jsonb, timestamptz, text, integer) is 'Adds a job and wakes the workers (NOTIFY app_jobs, inside the caller''s transaction). Returns the job id, or null when a pending/running job with the same unique key exists.';

create function app.worker_heartbeat(p_worker text, p_hostname text, p_pid integer) returns void
language sql volatile
set search_path to pg_catalog, pg_temp
as $$
  insert into app.worker (id, hostname, pid) values (p_worker, p_hostname, p_pid)
  on conflict (id) do update set heartbeat_at = now();
$$;
comment on function app.worker_heartbeat(text, text, integer) is 'Registers a worker or refreshes its heartbeat.';

create function app.claim_jobs(p_worker text, p_kinds text[], p_max integer default 1)
returns setof app.job
language sql volatile
set search_path to pg_catalog, pg_temp
as $$
  with candidate as (
    select id from app.job
    where status = 'pending' and kind = any(p_kinds) and run_at <= now()
    order by run_at, id
    limit greatest(p_max, 0)
    for update skip locked
  )
  update app.job j
     set status = 'running', locked_by = p_worker, locked_at = now(),
         attempts = j.attempts + 1, updated_at = now()
    from candidate
   where j.id = candidate.id
  returning j.*;
$$;
comment on function app.claim_jobs(text, text[], integer) is 'Claims up to p_max due jobs of the given kinds for one worker. Concurrent callers never receive the same job (FOR UPDATE SKIP LOCKED).';

create function app.complete_job(p_worker text, p_id bigint) returns boolean
language sql volatile
set search_path to pg_catalog, pg_temp
as $$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker
    returning 1
  )
  select exists (select from done);
$$;
comment on function app.complete_job(text, bigint) is 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead).';

create function app.fail_job(p_worker text, p_id bigint, p_error text) returns text
language plpgsql volatile
set search_path to pg_catalog, pg_temp
as $$
declare
  v_status text;
begin
  update app.job
     set status = case when attempts >= max_attempts then 'failed' else 'pending' end,
         run_at = now() + least(interval '1 second' * power(2, attempts), interval '10 minutes'),
         locked_by = null, locked_at = null, last_error = left(p_error, 4000), updated_at = now()
   where id = p_id and status = 'running' and locked_by = p_worker
  returning status into v_status;
  return v_status;
end;
$$;
comment on function app.fail_job(text, bigint, text) is 'Records a failed attempt: back to pending with exponential backoff (2^attempts s, at most 10 min), or failed when max_attempts is reached. Returns the new status, or null when the worker no longer holds the job.';

create function app.release_jobs(p_worker text) returns integer
language plpgsql volatile
set search_path to pg_catalog, pg_temp
as $$
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
$$;
comment on function app.release_jobs(text) is 'Graceful shutdown: returns the worker''s unfinished jobs to the queue (the attempt is not counted), forgets the worker and wakes the others.';

create function app.sweep_jobs() returns integer
language plpgsql volatile
set search_path to pg_catalog, pg_temp
as $$
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
$$;
comment on function app.sweep_jobs() is 'Run every minute by pg_cron: returns jobs of dead workers to the queue, purges done jobs older than 7 days, and re-sends the wake-up for every kind with due work (covers lost notifications and delayed retries). Returns how many jobs were rescued.';

select app.schedule('app_sweep_jobs', '* * * * *', 'select app.sweep_jobs()');

-- migrate:down
set local lock_timeout = '5s';
select app.unschedule('app_sweep_jobs');
drop function app.sweep_jobs();
drop function app.release_jobs(text);
drop function app.fail_job(text, bigint, text);
drop function app.complete_job(text, bigint);
drop function app.claim_jobs(text, text[], integer);
drop function app.worker_heartbeat(text, text, integer);
drop function app.enqueue(text, jsonb, timestamptz, text, integer);
drop function app.worker_timeout();
drop table app.job;
drop table app.worker;
