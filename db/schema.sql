\restrict dbmate

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: app; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA app;


--
-- Name: SCHEMA app; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON SCHEMA app IS 'Internal machinery of the service (job queue, workers, helpers). DBAs may read it; the application owns it. Domain tables and the functions staff and DBAs call live in public.';


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: job; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.job (
    id bigint NOT NULL,
    kind text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    unique_key text,
    locked_by text,
    locked_at timestamp with time zone,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT job_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT job_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text, 'done'::text, 'failed'::text])))
);


--
-- Name: TABLE job; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.job IS 'Background jobs. Claimed once across replicas (FOR UPDATE SKIP LOCKED), woken by NOTIFY app_jobs (payload: the kind), swept every minute by pg_cron in case a notification was lost.';


--
-- Name: COLUMN job.unique_key; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.job.unique_key IS 'When set, at most one pending or running job per (kind, unique_key): enqueueing again is a no-op.';


--
-- Name: claim_jobs(text, text[], integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.claim_jobs(p_worker text, p_kinds text[], p_max integer DEFAULT 1) RETURNS SETOF app.job
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION claim_jobs(p_worker text, p_kinds text[], p_max integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.claim_jobs(p_worker text, p_kinds text[], p_max integer) IS 'Claims up to p_max due jobs of the given kinds for one worker. Concurrent callers never receive the same job (FOR UPDATE SKIP LOCKED).';


--
-- Name: complete_job(text, bigint); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.complete_job(p_worker text, p_id bigint) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker
    returning 1
  )
  select exists (select from done);
$$;


--
-- Name: FUNCTION complete_job(p_worker text, p_id bigint); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.complete_job(p_worker text, p_id bigint) IS 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead).';


--
-- Name: cron_available(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.cron_available() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select current_setting('cron.database_name', true) = current_database()
     and exists (select from pg_available_extensions where name = 'pg_cron');
$$;


--
-- Name: FUNCTION cron_available(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.cron_available() IS 'True when this database is the one pg_cron serves (cron.database_name) and the extension is installed on the server.';


--
-- Name: enqueue(text, jsonb, timestamp with time zone, text, integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.enqueue(p_kind text, p_payload jsonb DEFAULT '{}'::jsonb, p_run_at timestamp with time zone DEFAULT now(), p_unique_key text DEFAULT NULL::text, p_max_attempts integer DEFAULT 5) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION enqueue(p_kind text, p_payload jsonb, p_run_at timestamp with time zone, p_unique_key text, p_max_attempts integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.enqueue(p_kind text, p_payload jsonb, p_run_at timestamp with time zone, p_unique_key text, p_max_attempts integer) IS 'Adds a job and wakes the workers (NOTIFY app_jobs, inside the caller''s transaction). Returns the job id, or null when a pending/running job with the same unique key exists.';


--
-- Name: fail_job(text, bigint, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION fail_job(p_worker text, p_id bigint, p_error text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text) IS 'Records a failed attempt: back to pending with exponential backoff (2^attempts s, at most 10 min), or failed when max_attempts is reached. Returns the new status, or null when the worker no longer holds the job.';


--
-- Name: notificar_bot(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.notificar_bot(p_texto text) RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select app.enqueue('bot_mensagem', jsonb_build_object('texto', p_texto), now(), null, 8);
$$;


--
-- Name: FUNCTION notificar_bot(p_texto text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.notificar_bot(p_texto text) IS 'Queues a messaging-bot message (job bot_mensagem), inside the caller''s transaction: the message goes out only if the outcome it reports commits, and a failed send is retried by the job queue (8 attempts with backoff).';


--
-- Name: release_jobs(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.release_jobs(p_worker text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION release_jobs(p_worker text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.release_jobs(p_worker text) IS 'Graceful shutdown: returns the worker''s unfinished jobs to the queue (the attempt is not counted), forgets the worker and wakes the others.';


--
-- Name: schedule(text, text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.schedule(p_job_name text, p_schedule text, p_command text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
begin
  if not app.cron_available() then
    return false;
  end if;
  create extension if not exists pg_cron;
  execute 'select cron.schedule($1, $2, $3)' using p_job_name, p_schedule, p_command;
  return true;
end;
$_$;


--
-- Name: FUNCTION schedule(p_job_name text, p_schedule text, p_command text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.schedule(p_job_name text, p_schedule text, p_command text) IS 'Schedules (or re-schedules) a named pg_cron job when this database hosts pg_cron; returns false and does nothing elsewhere. Used by migrations.';


--
-- Name: sweep_jobs(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.sweep_jobs() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION sweep_jobs(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.sweep_jobs() IS 'Run every minute by pg_cron: returns jobs of dead workers to the queue, purges done jobs older than 7 days, and re-sends the wake-up for every kind with due work (covers lost notifications and delayed retries). Returns how many jobs were rescued.';


--
-- Name: tg__grant_bi_select(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__grant_bi_select() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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


--
-- Name: FUNCTION tg__grant_bi_select(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__grant_bi_select() IS 'Event trigger: every table created in public whose name starts with bi_ is granted SELECT to bi_sync_reader (the sync engine''s read role), so future tables need no manual grant.';


--
-- Name: unschedule(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.unschedule(p_job_name text) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
begin
  if not app.cron_available() or not exists (select from pg_extension where extname = 'pg_cron') then
    return false;
  end if;
  execute 'select cron.unschedule(jobid) from cron.job where jobname = $1' using p_job_name;
  return true;
end;
$_$;


--
-- Name: FUNCTION unschedule(p_job_name text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.unschedule(p_job_name text) IS 'Removes a named pg_cron job when it exists; used by down migrations.';


--
-- Name: worker_heartbeat(text, text, integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.worker_heartbeat(p_worker text, p_hostname text, p_pid integer) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  insert into app.worker (id, hostname, pid) values (p_worker, p_hostname, p_pid)
  on conflict (id) do update set heartbeat_at = now();
$$;


--
-- Name: FUNCTION worker_heartbeat(p_worker text, p_hostname text, p_pid integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.worker_heartbeat(p_worker text, p_hostname text, p_pid integer) IS 'Registers a worker or refreshes its heartbeat.';


--
-- Name: worker_timeout(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.worker_timeout() RETURNS interval
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ select interval '2 minutes' $$;


--
-- Name: FUNCTION worker_timeout(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.worker_timeout() IS 'How long a worker may go without a heartbeat before it counts as dead.';


--
-- Name: configuracao_valor_valido(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
  select case p_tipo
    when 'string' then p_valor is not null
    when 'integer' then p_valor ~ '^-?[0-9]{1,18}$'
    when 'boolean' then p_valor in ('true', 'false')
    -- ISO-8601 duration (PT30S, P1DT2H) or a Postgres interval literal ('30 seconds')
    when 'duration' then p_valor ~ '^P(?!$)([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$'
                      or p_valor ~ '^[0-9]+ ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$'
    else false
  end;
$_$;


--
-- Name: FUNCTION configuracao_valor_valido(p_tipo text, p_valor text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text) IS 'True when p_valor is a valid value for the configuration type p_tipo (string, integer, boolean, duration).';


--
-- Name: bi_configuracao; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_configuracao (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    chave text NOT NULL,
    valor text NOT NULL,
    tipo text NOT NULL,
    sistema boolean DEFAULT false NOT NULL,
    descricao text,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_configuracao_chave_formato CHECK ((chave ~ '^[a-z][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT bi_configuracao_tipo_check CHECK ((tipo = ANY (ARRAY['string'::text, 'integer'::text, 'boolean'::text, 'duration'::text]))),
    CONSTRAINT bi_configuracao_valor_valido CHECK (public.configuracao_valor_valido(tipo, valor))
);


--
-- Name: TABLE bi_configuracao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_configuracao IS 'Global key/value configuration, replicated to the mobile clients (sync stream at priority 0). Rows with sistema = true are written only by the service itself (e.g. ultimo_nuke by the replication reset).';


--
-- Name: configuracao_definir(text, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS public.bi_configuracao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.bi_configuracao;
begin
  select * into v_row from public.bi_configuracao where chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if v_row.sistema then
    raise exception 'a chave % é do sistema e não pode ser alterada', p_chave using errcode = 'CF403';
  end if;
  if p_valor is null or not public.configuracao_valor_valido(v_row.tipo, p_valor) then
    raise exception 'valor ''%'' inválido para a chave % do tipo %', p_valor, p_chave, v_row.tipo using errcode = 'CF400';
  end if;
  -- compared at millisecond precision: the version travels through JSON as an ISO-8601 string
  if p_versao_esperada is not null and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, v_row.atualizado_em
      using errcode = 'CF409';
  end if;
  if v_row.valor is distinct from p_valor then
    update public.bi_configuracao set valor = p_valor where id = v_row.id returning * into v_row;
  end if;
  return v_row;
end;
$$;


--
-- Name: FUNCTION configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone) IS 'Changes the value of a non-system configuration key. Errors, in this order of precedence: CF404 unknown key, CF403 system key, CF400 value invalid for the key''s type, CF409 the row changed since p_versao_esperada (its atualizado_em). Writing the same value is a no-op.';


--
-- Name: tg__touch_atualizado_em(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tg__touch_atualizado_em() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  new.atualizado_em := now();
  return new;
end;
$$;


--
-- Name: FUNCTION tg__touch_atualizado_em(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.tg__touch_atualizado_em() IS 'Generic BEFORE UPDATE trigger: keeps atualizado_em current.';


--
-- Name: tg_bi_configuracao__notify(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tg_bi_configuracao__notify() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  perform pg_notify('app_config', coalesce(new.chave, old.chave));
  return null;
end;
$$;


--
-- Name: FUNCTION tg_bi_configuracao__notify(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.tg_bi_configuracao__notify() IS 'Invalidates the 30-second configuration cache of every replica: NOTIFY app_config with the changed key.';


--
-- Name: job_id_seq; Type: SEQUENCE; Schema: app; Owner: -
--

ALTER TABLE app.job ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: worker; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.worker (
    id text NOT NULL,
    hostname text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE worker; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.worker IS 'One row per live application process (replica). Workers heartbeat; a worker silent for longer than app.worker_timeout() is dead and its claimed jobs return to the queue.';


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version character varying NOT NULL
);


--
-- Name: job job_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.job
    ADD CONSTRAINT job_pkey PRIMARY KEY (id);


--
-- Name: worker worker_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.worker
    ADD CONSTRAINT worker_pkey PRIMARY KEY (id);


--
-- Name: bi_configuracao bi_configuracao_chave_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_configuracao
    ADD CONSTRAINT bi_configuracao_chave_key UNIQUE (chave);


--
-- Name: bi_configuracao bi_configuracao_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_configuracao
    ADD CONSTRAINT bi_configuracao_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: job_claim_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX job_claim_idx ON app.job USING btree (kind, run_at, id) WHERE (status = 'pending'::text);


--
-- Name: job_running_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX job_running_idx ON app.job USING btree (locked_by) WHERE (status = 'running'::text);


--
-- Name: job_unique_key_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE UNIQUE INDEX job_unique_key_idx ON app.job USING btree (kind, unique_key) WHERE ((unique_key IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'running'::text])));


--
-- Name: bi_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: bi_configuracao _900_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg_bi_configuracao__notify();


--
-- Name: _100_bi_grant_sync_reader; Type: EVENT TRIGGER; Schema: -; Owner: -
--

CREATE EVENT TRIGGER _100_bi_grant_sync_reader ON ddl_command_end
         WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
   EXECUTE FUNCTION app.tg__grant_bi_select();


--
-- PostgreSQL database dump complete
--

\unrestrict dbmate


--
-- Dbmate schema migrations
--

INSERT INTO public.schema_migrations (version) VALUES
    ('20261122000100'),
    ('20261122000200'),
    ('20261122000300'),
    ('20261122000400');
