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
-- Name: partner_aviso_criar(text, bigint, bigint, jsonb, timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamp with time zone) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_id bigint;
begin
  insert into public.partner_aviso (tipo, episodio_id, contingencia_id, criado_em, dados)
  values (p_tipo, p_episodio, p_contingencia, p_agora, coalesce(p_dados, '{}'))
  returning id into v_id;
  if p_tipo in ('webhook_parado', 'webhook_voltou') then
    insert into public.partner_aviso_envio (aviso_id, email)
    select distinct on (lower(d.email)) v_id, d.email
      from public.destinatario d where d.ativo
     order by lower(d.email), d.email;
  end if;
  perform app.enqueue('partner_aviso', jsonb_build_object('id', v_id), now(), 'aviso:' || v_id, 10);
  return v_id;
end;
$$;


--
-- Name: FUNCTION partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamp with time zone); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamp with time zone) IS 'Records a notice, its e-mails (one per active recipient, for webhook_parado and webhook_voltou) and enqueues the job that carries it out.';


--
-- Name: partner_status_ordem(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_status_ordem(p_status text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case p_status
    when 'waiting_payment' then 1 when 'refused' then 2 when 'received' then 3 when 'invoiced' then 4
    when 'shipped' then 5 when 'delivered' then 6 when 'cancelled' then 7 end;
$$;


--
-- Name: FUNCTION partner_status_ordem(p_status text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_status_ordem(p_status text) IS 'Lifecycle rank of a platform order status; breaks ties between two observations with the same updated_at (the later stage wins), so the final state never depends on arrival order. Null for an unknown status.';


--
-- Name: partner_pedido; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_pedido (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    code text NOT NULL,
    estado text NOT NULL,
    status text NOT NULL,
    total numeric(14,2),
    pago_em timestamp with time zone,
    atualizado_no_parceiro timestamp with time zone NOT NULL,
    cliente_nome text,
    cliente_email text,
    cliente_documento text,
    itens jsonb DEFAULT '[]'::jsonb NOT NULL,
    recurso jsonb NOT NULL,
    origem text NOT NULL,
    nao_pago_visto_em timestamp with time zone,
    recebido_visto_em timestamp with time zone,
    enfileirado_em timestamp with time zone,
    enfileirado_por text,
    liberacao text,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT partner_pedido_estado_check CHECK ((estado = ANY (ARRAY['CAPTURADO'::text, 'ENFILEIRADO'::text, 'CANCELADO'::text]))),
    CONSTRAINT partner_pedido_liberacao CHECK (((liberacao IS NULL) = (enfileirado_em IS NULL))),
    CONSTRAINT partner_pedido_liberacao_check CHECK ((liberacao = ANY (ARRAY['gate_transicao'::text, 'gate_resgate_primeira_captura'::text, 'console'::text]))),
    CONSTRAINT partner_pedido_origem_check CHECK ((origem = ANY (ARRAY['webhook'::text, 'poll'::text, 'contingencia'::text, 'manual'::text]))),
    CONSTRAINT partner_pedido_status_check CHECK ((app.partner_status_ordem(status) IS NOT NULL))
);


--
-- Name: TABLE partner_pedido; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_pedido IS 'Orders of the order platform, one row per code (the idempotency key), holding the newest observation (highest updated_at; ties broken by lifecycle rank). estado is local: CAPTURADO (known, not released), ENFILEIRADO (released to the fulfilment queue), CANCELADO.';


--
-- Name: COLUMN partner_pedido.status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_pedido.status IS 'Platform status of the newest observation: waiting_payment, refused, received, invoiced, shipped, delivered, cancelled.';


--
-- Name: COLUMN partner_pedido.origem; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_pedido.origem IS 'Path of the newest observation: webhook, poll (6-hourly REST), contingencia (REST while the webhook is silent), manual.';


--
-- Name: COLUMN partner_pedido.nao_pago_visto_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_pedido.nao_pago_visto_em IS 'Earliest updated_at observed with an unpaid status (waiting_payment, refused). With recebido_visto_em it is the gate''s evidence of the transition to received.';


--
-- Name: COLUMN partner_pedido.recebido_visto_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_pedido.recebido_visto_em IS 'Latest updated_at observed with status received.';


--
-- Name: COLUMN partner_pedido.liberacao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_pedido.liberacao IS 'Why the order was released: gate_transicao (transition to received witnessed), gate_resgate_primeira_captura (PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE), console (Enfileirar).';


--
-- Name: partner_gate(public.partner_pedido, timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_gate(p_pedido public.partner_pedido, p_agora timestamp with time zone) RETURNS public.partner_pedido
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_desde timestamptz := (select gate_primeira_captura_desde from public.partner_configuracao);
begin
  if p_pedido.estado <> 'CAPTURADO' or not app.partner_status_pago(p_pedido.status) then
    return p_pedido;
  end if;
  if p_pedido.nao_pago_visto_em < p_pedido.recebido_visto_em then
    return app.partner_transicao(p_pedido, 'ENFILEIRADO', 'gate_transicao', p_agora);
  end if;
  if v_desde is not null and p_pedido.pago_em >= v_desde then
    return app.partner_transicao(p_pedido, 'ENFILEIRADO', 'gate_resgate_primeira_captura', p_agora);
  end if;
  return p_pedido; -- first seen already paid: stays CAPTURADO, no alarm, until Enfileirar
end;
$$;


--
-- Name: FUNCTION partner_gate(p_pedido public.partner_pedido, p_agora timestamp with time zone); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_gate(p_pedido public.partner_pedido, p_agora timestamp with time zone) IS 'The release rule. A CAPTURADO order whose newest status is paid is released (ENFILEIRADO) when the transition to received was witnessed: an unpaid observation (waiting_payment/refused) older than a received one, whatever their arrival order; or, when partner_configuracao.gate_primeira_captura_desde is set, when its paid_at is at or after that instant. Otherwise it stays CAPTURADO until Enfileirar.';


--
-- Name: partner_instante(jsonb, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_instante(p_valor jsonb, p_campo text) RETURNS timestamp with time zone
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if p_valor is null or jsonb_typeof(p_valor) = 'null' then
    return null;
  end if;
  if jsonb_typeof(p_valor) <> 'string' or p_valor #>> '{}' !~ '^\d{4}-\d{2}-\d{2}' then
    raise exception 'campo % não é uma data ISO-8601: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
  end if;
  return (p_valor #>> '{}')::timestamptz;
exception when data_exception then
  raise exception 'campo % não é uma data ISO-8601: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
end;
$$;


--
-- Name: FUNCTION partner_instante(p_valor jsonb, p_campo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_instante(p_valor jsonb, p_campo text) IS 'Parses an ISO-8601 instant of a platform payload (without an offset: the session time zone); PW422 naming the field when it is not one. JSON null -> null.';


--
-- Name: partner_normalizar_trava(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_normalizar_trava() RETURNS bigint
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ select 7245501::bigint $$;


--
-- Name: FUNCTION partner_normalizar_trava(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_normalizar_trava() IS 'Advisory-lock key between the intake (shared) and the end of the normalisation job (exclusive), so that no stored event is left without a job.';


--
-- Name: partner_numero(jsonb, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_numero(p_valor jsonb, p_campo text) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
begin
  if p_valor is null or jsonb_typeof(p_valor) = 'null' then
    return null;
  end if;
  if jsonb_typeof(p_valor) = 'number' or (jsonb_typeof(p_valor) = 'string' and p_valor #>> '{}' ~ '^\s*-?\d+(\.\d+)?\s*$') then
    return (p_valor #>> '{}')::numeric;
  end if;
  raise exception 'campo % não é um número: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
end;
$_$;


--
-- Name: FUNCTION partner_numero(p_valor jsonb, p_campo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_numero(p_valor jsonb, p_campo text) IS 'Parses a number (JSON number or numeric string) of a platform payload; PW422 naming the field otherwise. JSON null -> null.';


--
-- Name: partner_status_pago(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_status_pago(p_status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ select p_status in ('received', 'invoiced', 'shipped', 'delivered') $$;


--
-- Name: FUNCTION partner_status_pago(p_status text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_status_pago(p_status text) IS 'The platform status says the order is paid (received or a later stage).';


--
-- Name: partner_transicao(public.partner_pedido, text, text, timestamp with time zone, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text DEFAULT NULL::text) RETURNS public.partner_pedido
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.partner_pedido;
begin
  update public.partner_pedido set
    estado = p_para,
    enfileirado_em = case when p_para = 'ENFILEIRADO' then p_agora else enfileirado_em end,
    enfileirado_por = case when p_para = 'ENFILEIRADO' then coalesce(p_por, p_motivo) else enfileirado_por end,
    liberacao = case when p_para = 'ENFILEIRADO' then
                  case when p_motivo in ('gate_transicao', 'gate_resgate_primeira_captura') then p_motivo else 'console' end
                else liberacao end
  where id = p_pedido.id
  returning * into v_row;
  insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
  values (p_pedido.id, p_pedido.estado, p_para, p_motivo, p_agora);
  if p_para = 'ENFILEIRADO' then
    perform pg_notify('partner_pedidos', v_row.code);
  end if;
  return v_row;
end;
$$;


--
-- Name: FUNCTION partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text) IS 'Moves an order to another local state and records it in partner_pedido_transicao; a release sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue.';


--
-- Name: pascoa(integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.pascoa(p_ano integer) RETURNS date
    LANGUAGE plpgsql IMMUTABLE STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  -- anonymous Gregorian algorithm (Meeus/Jones/Butcher)
  a integer := p_ano % 19;
  b integer := p_ano / 100;
  c integer := p_ano % 100;
  d integer := b / 4;
  e integer := b % 4;
  f integer := (b + 8) / 25;
  g integer := (b - f + 1) / 3;
  h integer := (19 * a + b - d - g + 15) % 30;
  i integer := c / 4;
  k integer := c % 4;
  l integer := (32 + 2 * e + 2 * i - h - k) % 7;
  m integer := (a + 11 * h + 22 * l) / 451;
  v_mes integer := (h + l - 7 * m + 114) / 31;
  v_dia integer := ((h + l - 7 * m + 114) % 31) + 1;
begin
  return make_date(p_ano, v_mes, v_dia);
end;
$$;


--
-- Name: FUNCTION pascoa(p_ano integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.pascoa(p_ano integer) IS 'Easter Sunday of a Gregorian year (used to seed Good Friday in public.feriado).';


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
-- Name: apos_minutos_comerciais(timestamp with time zone, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apos_minutos_comerciais(p_de timestamp with time zone, p_minutos numeric) RETURNS timestamp with time zone
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_dia date := (p_de at time zone 'America/Sao_Paulo')::date;
  v_resto numeric := greatest(p_minutos, 0);
  v_ini timestamptz;
  v_fim timestamptz;
  v_disponivel numeric;
begin
  if p_de is null or p_minutos is null then
    return null;
  end if;
  if v_resto = 0 then
    return p_de;
  end if;
  for v_n in 1 .. 3700 loop -- ten years of days at most
    if public.dia_util(v_dia) then
      v_ini := greatest(p_de, (v_dia + time '08:00') at time zone 'America/Sao_Paulo');
      v_fim := (v_dia + time '18:00') at time zone 'America/Sao_Paulo';
      if v_fim > v_ini then
        v_disponivel := extract(epoch from v_fim - v_ini) / 60;
        if v_resto <= v_disponivel then
          return v_ini + v_resto * interval '1 minute';
        end if;
        v_resto := v_resto - v_disponivel;
      end if;
    end if;
    v_dia := v_dia + 1;
  end loop;
  return null;
end;
$$;


--
-- Name: FUNCTION apos_minutos_comerciais(p_de timestamp with time zone, p_minutos numeric); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.apos_minutos_comerciais(p_de timestamp with time zone, p_minutos numeric) IS 'The instant at which p_minutos business minutes will have passed since p_de (inverse of minutos_comerciais). A zero count at a non-business instant gives p_de itself.';


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
  if p_versao_esperada is not null and v_row.atualizado_em <> p_versao_esperada then
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
-- Name: dia_util(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.dia_util(p_data date) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select extract(isodow from p_data) < 6
     and not exists (select from public.feriado f where f.data = p_data);
$$;


--
-- Name: FUNCTION dia_util(p_data date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.dia_util(p_data date) IS 'True when p_data is Monday to Friday and not in public.feriado.';


--
-- Name: minutos_comerciais(timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.minutos_comerciais(p_de timestamp with time zone, p_ate timestamp with time zone) RETURNS numeric
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select coalesce(round(sum(extract(epoch from least(p_ate, j.fim) - greatest(p_de, j.ini)) / 60), 3), 0)
    from (
      select (g.dia::date + time '08:00') at time zone 'America/Sao_Paulo' as ini,
             (g.dia::date + time '18:00') at time zone 'America/Sao_Paulo' as fim
        from generate_series((p_de at time zone 'America/Sao_Paulo')::date::timestamp,
                             (p_ate at time zone 'America/Sao_Paulo')::date::timestamp,
                             interval '1 day') g(dia)
       where public.dia_util(g.dia::date)
    ) j
   where p_ate > p_de
     and least(p_ate, j.fim) > greatest(p_de, j.ini);
$$;


--
-- Name: FUNCTION minutos_comerciais(p_de timestamp with time zone, p_ate timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.minutos_comerciais(p_de timestamp with time zone, p_ate timestamp with time zone) IS 'Business minutes between two instants: the part of [p_de, p_ate] that falls Monday to Friday, 08:00-18:00 America/Sao_Paulo, on days not in public.feriado. Fractional (3 decimals); 0 when p_ate <= p_de.';


--
-- Name: partner_aviso_carregar(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_aviso_carregar(p_id bigint) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select jsonb_build_object(
    'id', a.id, 'tipo', a.tipo, 'criado_em', a.criado_em, 'dados', a.dados,
    'registrado_em', a.registrado_em, 'rastreador_em', a.rastreador_em, 'concluido_em', a.concluido_em,
    'episodio', (select to_jsonb(e) from public.partner_episodio e where e.id = a.episodio_id),
    'contingencia', (select to_jsonb(c) from public.partner_contingencia c where c.id = a.contingencia_id),
    'pendentes', coalesce((select jsonb_agg(v.email order by v.email) from public.partner_aviso_envio v
                            where v.aviso_id = a.id and v.enviado_em is null), '[]'))
  from public.partner_aviso a where a.id = p_id;
$$;


--
-- Name: FUNCTION partner_aviso_carregar(p_id bigint); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_aviso_carregar(p_id bigint) IS 'What the partner_aviso job needs to carry out a notice: the notice, its episode or contingency period, and the recipients still to be mailed. Null for an unknown id.';


--
-- Name: partner_aviso_envio_resultado(bigint, text, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_aviso_envio_resultado(p_id bigint, p_email text, p_erro text DEFAULT NULL::text, p_agora timestamp with time zone DEFAULT now()) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  update public.partner_aviso_envio set
    enviado_em = case when p_erro is null then p_agora else enviado_em end,
    tentativas = tentativas + 1,
    erro = left(p_erro, 1000)
  where aviso_id = p_id and email = p_email and enviado_em is null;
$$;


--
-- Name: FUNCTION partner_aviso_envio_resultado(p_id bigint, p_email text, p_erro text, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_aviso_envio_resultado(p_id bigint, p_email text, p_erro text, p_agora timestamp with time zone) IS 'Records the outcome of one e-mail of a notice: delivered (p_erro null) or the error of this attempt.';


--
-- Name: partner_aviso_marcar(bigint, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_aviso_marcar(p_id bigint, p_etapa text, p_agora timestamp with time zone DEFAULT now()) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_etapa not in ('registrado', 'rastreador', 'concluido') then
    raise exception 'etapa de aviso desconhecida: %', p_etapa using errcode = 'PW400';
  end if;
  update public.partner_aviso set
    registrado_em = case when p_etapa = 'registrado' then coalesce(registrado_em, p_agora) else registrado_em end,
    rastreador_em = case when p_etapa = 'rastreador' then coalesce(rastreador_em, p_agora) else rastreador_em end,
    concluido_em = case when p_etapa = 'concluido' then coalesce(concluido_em, p_agora) else concluido_em end
  where id = p_id;
end;
$$;


--
-- Name: FUNCTION partner_aviso_marcar(p_id bigint, p_etapa text, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_aviso_marcar(p_id bigint, p_etapa text, p_agora timestamp with time zone) IS 'Records that a step of a notice is done (registrado: log line; rastreador: error-tracker event; concluido: every step), so a retried job does not repeat it.';


--
-- Name: partner_configuracao; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_configuracao (
    id boolean DEFAULT true NOT NULL,
    watchdog_habilitado boolean DEFAULT false NOT NULL,
    limite_min_comercial integer DEFAULT 45 NOT NULL,
    limite_horas integer DEFAULT 24 NOT NULL,
    contingencia_apos_min_comercial integer DEFAULT 15 NOT NULL,
    contingencia_intervalo_min integer DEFAULT 5 NOT NULL,
    poll_intervalo_horas integer DEFAULT 6 NOT NULL,
    aviso_retorno_max interval DEFAULT '01:00:00'::interval NOT NULL,
    puxada_janela_inicial interval DEFAULT '24:00:00'::interval NOT NULL,
    gate_primeira_captura_desde timestamp with time zone,
    api_configurada boolean DEFAULT false NOT NULL,
    monitorando_desde timestamp with time zone,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT partner_configuracao_contingencia_apos_min_comercial_check CHECK ((contingencia_apos_min_comercial > 0)),
    CONSTRAINT partner_configuracao_contingencia_intervalo_min_check CHECK ((contingencia_intervalo_min > 0)),
    CONSTRAINT partner_configuracao_id_check CHECK (id),
    CONSTRAINT partner_configuracao_limite_horas_check CHECK ((limite_horas > 0)),
    CONSTRAINT partner_configuracao_limite_min_comercial_check CHECK ((limite_min_comercial > 0)),
    CONSTRAINT partner_configuracao_poll_intervalo_horas_check CHECK ((poll_intervalo_horas > 0))
);


--
-- Name: TABLE partner_configuracao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_configuracao IS 'One row: the settings of the order-webhook watchdog, contingency, poll and gate, as SQL needs them (pg_cron runs the decisions without the application). Every replica writes it at boot from its environment (partner_configurar); a DBA change lasts until the next boot.';


--
-- Name: COLUMN partner_configuracao.gate_primeira_captura_desde; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_configuracao.gate_primeira_captura_desde IS 'PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: an order first seen already paid, with paid_at at or after this instant, is released by the gate. Null = rescue off.';


--
-- Name: COLUMN partner_configuracao.api_configurada; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_configuracao.api_configurada IS 'PARTNER_API_URL and PARTNER_API_TOKEN are set: the REST poll and the contingency may run.';


--
-- Name: COLUMN partner_configuracao.monitorando_desde; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_configuracao.monitorando_desde IS 'Start of the watch when no webhook was ever received: silence is measured from here until the first event.';


--
-- Name: partner_configurar(boolean, integer, integer, integer, integer, integer, text, boolean, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone DEFAULT now()) RETURNS public.partner_configuracao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_row public.partner_configuracao;
  v_desde timestamptz;
begin
  if nullif(btrim(p_gate_primeira_captura_desde), '') is not null then
    begin
      v_desde := case
        when btrim(p_gate_primeira_captura_desde) ~ '^\d{4}-\d{2}-\d{2}$'
          then (btrim(p_gate_primeira_captura_desde)::date + time '00:00') at time zone 'America/Sao_Paulo'
        else btrim(p_gate_primeira_captura_desde)::timestamptz
      end;
    exception when data_exception then
      raise exception 'data inválida para a primeira captura: %', p_gate_primeira_captura_desde using errcode = 'PW400';
    end;
  end if;
  update public.partner_configuracao set
    watchdog_habilitado = p_watchdog_habilitado,
    limite_min_comercial = p_limite_min_comercial,
    limite_horas = p_limite_horas,
    contingencia_apos_min_comercial = p_contingencia_apos_min_comercial,
    contingencia_intervalo_min = p_contingencia_intervalo_min,
    poll_intervalo_horas = p_poll_intervalo_horas,
    gate_primeira_captura_desde = v_desde,
    api_configurada = p_api_configurada,
    monitorando_desde = coalesce(monitorando_desde, p_agora)
  where id
  returning * into v_row;
  return v_row;
end;
$_$;


--
-- Name: FUNCTION partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone) IS 'Writes the settings row from the environment of a booting replica. p_gate_primeira_captura_desde: an ISO date (midnight America/Sao_Paulo) or instant, empty/null = off; invalid -> PW400. Sets monitorando_desde on the first call.';


--
-- Name: partner_normalizar_concluir(text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_normalizar_concluir(p_worker text, p_job bigint) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  -- waits for the intakes in flight; those that come after find no running job and enqueue a new one
  perform pg_advisory_xact_lock(app.partner_normalizar_trava());
  if exists (select from public.partner_webhook w where w.situacao = 'PENDENTE'
              and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())) then
    return false;
  end if;
  perform app.complete_job(p_worker, p_job);
  return true;
end;
$$;


--
-- Name: FUNCTION partner_normalizar_concluir(p_worker text, p_job bigint); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_normalizar_concluir(p_worker text, p_job bigint) IS 'End of the partner_normalizar job: under the exclusive advisory lock (no intake in flight), either there is still due work (false: the job goes on) or the job is completed in this same transaction (true), so an event stored afterwards always enqueues a new job. Events waiting for a retry are picked up by partner_tick.';


--
-- Name: partner_pedido_enfileirar(text, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_pedido_enfileirar(p_code text, p_por text DEFAULT 'console'::text, p_agora timestamp with time zone DEFAULT now()) RETURNS public.partner_pedido
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.partner_pedido;
begin
  select * into v_row from public.partner_pedido where code = p_code for update;
  if not found then
    raise exception 'pedido % não encontrado', p_code using errcode = 'PD404';
  end if;
  if v_row.estado <> 'CAPTURADO' then
    raise exception 'o pedido % já está %; só pedidos CAPTURADO são enfileirados', p_code, v_row.estado using errcode = 'PD409';
  end if;
  if not app.partner_status_pago(v_row.status) then
    raise exception 'o pedido % não está pago (status na plataforma: %)', p_code, v_row.status using errcode = 'PD422';
  end if;
  return app.partner_transicao(v_row, 'ENFILEIRADO', 'console', p_agora, coalesce(nullif(btrim(p_por), ''), 'console'));
end;
$$;


--
-- Name: FUNCTION partner_pedido_enfileirar(p_code text, p_por text, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_pedido_enfileirar(p_code text, p_por text, p_agora timestamp with time zone) IS 'Enfileirar (orders console, POST /api/pedidos/{code}/enfileirar): releases a CAPTURADO order whose platform status is paid. PD404 unknown code; PD409 not CAPTURADO (already ENFILEIRADO or CANCELADO: a second click is refused, nothing changes); PD422 not paid. p_por names who released it.';


--
-- Name: partner_pedido_observar(jsonb, text, text, jsonb, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text DEFAULT NULL::text, p_tempo_evento jsonb DEFAULT NULL::jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_code text;
  v_status text;
  v_atualizado timestamptz;
  v_pago_em timestamptz;
  v_total numeric;
  v_cliente jsonb;
  v_itens jsonb;
  v_row public.partner_pedido;
  v_mais_novo boolean;
  v_resultado text;
begin
  if p_recurso is null or jsonb_typeof(p_recurso) <> 'object' then
    raise exception 'o pedido não é um objeto JSON' using errcode = 'PW422';
  end if;
  if jsonb_typeof(p_recurso -> 'code') not in ('string', 'number') or nullif(btrim(p_recurso ->> 'code'), '') is null then
    raise exception 'pedido sem code' using errcode = 'PW422';
  end if;
  v_code := btrim(p_recurso ->> 'code');
  v_status := lower(btrim(coalesce(p_recurso ->> 'status',
    case p_evento when 'order.cancelled' then 'cancelled' when 'order.paid' then 'received' end)));
  if v_status is null or app.partner_status_ordem(v_status) is null then
    raise exception 'pedido %: status desconhecido %', v_code, coalesce(p_recurso ->> 'status', '(ausente)') using errcode = 'PW422';
  end if;
  v_atualizado := coalesce(app.partner_instante(p_recurso -> 'updated_at', 'updated_at'),
                           app.partner_instante(p_tempo_evento, 'time'));
  if v_atualizado is null then
    raise exception 'pedido %: sem updated_at', v_code using errcode = 'PW422';
  end if;
  v_pago_em := app.partner_instante(p_recurso -> 'paid_at', 'paid_at');
  v_total := app.partner_numero(p_recurso -> 'total', 'total');
  v_cliente := case when jsonb_typeof(p_recurso -> 'customer') = 'object' then p_recurso -> 'customer' else '{}' end;
  v_itens := case when jsonb_typeof(p_recurso -> 'items') = 'array' then p_recurso -> 'items' end;

  insert into public.partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro,
      cliente_nome, cliente_email, cliente_documento, itens, recurso, origem, nao_pago_visto_em, recebido_visto_em)
  values (v_code, case when v_status = 'cancelled' then 'CANCELADO' else 'CAPTURADO' end, v_status, v_total, v_pago_em,
      v_atualizado, v_cliente ->> 'name', v_cliente ->> 'email', v_cliente ->> 'document', coalesce(v_itens, '[]'), p_recurso, p_origem,
      case when v_status in ('waiting_payment', 'refused') then v_atualizado end,
      case when v_status = 'received' then v_atualizado end)
  on conflict (code) do nothing
  returning * into v_row;

  if found then
    insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
    values (v_row.id, null, v_row.estado, 'captura', p_agora);
    perform app.partner_gate(v_row, p_agora);
    return 'criado';
  end if;

  select * into v_row from public.partner_pedido where code = v_code for update;
  v_mais_novo := (v_atualizado, app.partner_status_ordem(v_status))
               > (v_row.atualizado_no_parceiro, app.partner_status_ordem(v_row.status));
  v_resultado := case
    when v_mais_novo then 'atualizado'
    when v_atualizado = v_row.atualizado_no_parceiro and v_status = v_row.status then 'repetido'
    else 'obsoleto' end;

  update public.partner_pedido p set
    status = case when v_mais_novo then v_status else p.status end,
    total = case when v_mais_novo then coalesce(v_total, p.total) else p.total end,
    pago_em = case when v_mais_novo then coalesce(v_pago_em, p.pago_em) else coalesce(p.pago_em, v_pago_em) end,
    atualizado_no_parceiro = greatest(p.atualizado_no_parceiro, v_atualizado),
    cliente_nome = case when v_mais_novo then coalesce(v_cliente ->> 'name', p.cliente_nome) else p.cliente_nome end,
    cliente_email = case when v_mais_novo then coalesce(v_cliente ->> 'email', p.cliente_email) else p.cliente_email end,
    cliente_documento = case when v_mais_novo then coalesce(v_cliente ->> 'document', p.cliente_documento) else p.cliente_documento end,
    itens = case when v_mais_novo then coalesce(v_itens, p.itens) else p.itens end,
    recurso = case when v_mais_novo then p_recurso else p.recurso end,
    origem = case when v_mais_novo then p_origem else p.origem end,
    nao_pago_visto_em = case when v_status in ('waiting_payment', 'refused')
                          then least(p.nao_pago_visto_em, v_atualizado) else p.nao_pago_visto_em end,
    recebido_visto_em = case when v_status = 'received'
                          then greatest(p.recebido_visto_em, v_atualizado) else p.recebido_visto_em end
  where p.id = v_row.id
    and (v_mais_novo
      or (v_pago_em is not null and p.pago_em is null)
      or (v_status in ('waiting_payment', 'refused') and p.nao_pago_visto_em is distinct from least(p.nao_pago_visto_em, v_atualizado))
      or (v_status = 'received' and p.recebido_visto_em is distinct from greatest(p.recebido_visto_em, v_atualizado)))
  returning * into v_row;
  if not found then
    return v_resultado; -- nothing new: a repeat or an older observation that teaches nothing
  end if;

  if v_row.status = 'cancelled' and v_row.estado <> 'CANCELADO' then
    v_row := app.partner_transicao(v_row, 'CANCELADO', 'cancelamento', p_agora);
  end if;
  perform app.partner_gate(v_row, p_agora);
  return v_resultado;
end;
$$;


--
-- Name: FUNCTION partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text, p_tempo_evento jsonb, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text, p_tempo_evento jsonb, p_agora timestamp with time zone) IS 'The one idempotent normalisation path (webhook, poll, contingency): upserts the order by code. The newest observation (updated_at, then lifecycle rank) wins; an older one never overwrites the state but still counts as gate evidence. Returns criado | atualizado | obsoleto | repetido. A payload it cannot read raises PW422 (no code, unknown status, bad date or number). p_evento fills a missing status (order.paid -> received, order.cancelled -> cancelled); p_tempo_evento (the event''s time) stands in for a missing updated_at. A newer cancelled status moves the order to CANCELADO; then the gate decides.';


--
-- Name: partner_puxada_concluir(bigint, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_puxada_concluir(p_id bigint, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  update public.partner_puxada set status = 'CONCLUIDA', concluida_em = p_agora where id = p_id;
$$;


--
-- Name: FUNCTION partner_puxada_concluir(p_id bigint, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_puxada_concluir(p_id bigint, p_agora timestamp with time zone) IS 'Marks a pull done.';


--
-- Name: partner_puxada_falhar(bigint, text, boolean, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_puxada_falhar(p_id bigint, p_erro text, p_definitiva boolean, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  update public.partner_puxada set status = case when p_definitiva then 'ERRO' else 'PENDENTE' end,
         erro = left(p_erro, 2000), concluida_em = case when p_definitiva then p_agora end
   where id = p_id and status <> 'CONCLUIDA';
$$;


--
-- Name: FUNCTION partner_puxada_falhar(p_id bigint, p_erro text, p_definitiva boolean, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_puxada_falhar(p_id bigint, p_erro text, p_definitiva boolean, p_agora timestamp with time zone) IS 'Records a failed attempt of a pull: back to PENDENTE (the job retries with backoff) or ERRO when the job gave up.';


--
-- Name: partner_puxada_iniciar(bigint, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_puxada_iniciar(p_id bigint, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS TABLE(atualizado_desde timestamp with time zone, motivo text, status text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.partner_puxada;
  v_desde timestamptz;
begin
  select * into v_row from public.partner_puxada p where p.id = p_id for update;
  if not found then
    raise exception 'puxada % não existe', p_id using errcode = 'PW404';
  end if;
  if v_row.status = 'CONCLUIDA' then
    return query select v_row.atualizado_desde, v_row.motivo, v_row.status;
    return;
  end if;
  v_desde := coalesce(
    (select max(p.iniciada_em) - interval '10 minutes' from public.partner_puxada p where p.status = 'CONCLUIDA'),
    p_agora - (select c.puxada_janela_inicial from public.partner_configuracao c));
  update public.partner_puxada p set status = 'EM_ANDAMENTO', iniciada_em = p_agora, atualizado_desde = v_desde,
         tentativas = p.tentativas + 1, paginas = 0, pedidos = 0, criados = 0, atualizados = 0, obsoletos = 0,
         repetidos = 0, invalidos = 0
   where p.id = p_id;
  return query select v_desde, v_row.motivo, 'EM_ANDAMENTO'::text;
end;
$$;


--
-- Name: FUNCTION partner_puxada_iniciar(p_id bigint, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_puxada_iniciar(p_id bigint, p_agora timestamp with time zone) IS 'Starts (or restarts, after a failed attempt) a pull and decides its updated_since: the start of the last completed pull minus 10 minutes of overlap, or partner_configuracao.puxada_janela_inicial ago for the first one. A pull already CONCLUIDA is returned as is (the job then does nothing).';


--
-- Name: partner_puxada_pagina(bigint, jsonb, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_puxada_pagina(p_id bigint, p_pedidos jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_motivo text;
  v_pedido jsonb;
  v_res text;
  v_cont jsonb := jsonb_build_object('criado', 0, 'atualizado', 0, 'obsoleto', 0, 'repetido', 0, 'invalido', 0);
  v_erro text;
begin
  select motivo into v_motivo from public.partner_puxada where id = p_id for update;
  if not found then
    raise exception 'puxada % não existe', p_id using errcode = 'PW404';
  end if;
  if p_pedidos is null or jsonb_typeof(p_pedidos) <> 'array' then
    raise exception 'a página de pedidos não é uma lista' using errcode = 'PW422';
  end if;
  for v_pedido in select value from jsonb_array_elements(p_pedidos) loop
    begin
      v_res := public.partner_pedido_observar(v_pedido, v_motivo, null, null, p_agora);
    exception when sqlstate 'PW422' then
      v_res := 'invalido';
      v_erro := left(sqlerrm, 500);
    end;
    v_cont := jsonb_set(v_cont, array[v_res], to_jsonb((v_cont ->> v_res)::integer + 1));
  end loop;
  update public.partner_puxada set
    paginas = paginas + 1,
    pedidos = pedidos + jsonb_array_length(p_pedidos),
    criados = criados + (v_cont ->> 'criado')::integer,
    atualizados = atualizados + (v_cont ->> 'atualizado')::integer,
    obsoletos = obsoletos + (v_cont ->> 'obsoleto')::integer,
    repetidos = repetidos + (v_cont ->> 'repetido')::integer,
    invalidos = invalidos + (v_cont ->> 'invalido')::integer,
    erro = coalesce('pedido inválido ignorado: ' || v_erro, erro)
  where id = p_id;
  return v_cont;
end;
$$;


--
-- Name: FUNCTION partner_puxada_pagina(p_id bigint, p_pedidos jsonb, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_puxada_pagina(p_id bigint, p_pedidos jsonb, p_agora timestamp with time zone) IS 'Normalises one page of orders of a pull through partner_pedido_observar (origem = the pull''s motivo). An order it cannot read is counted as invalido (its reason kept in erro) and does not stop the page. Returns the counts of the page.';


--
-- Name: partner_puxada_solicitar(text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_puxada_solicitar(p_motivo text, p_agora timestamp with time zone DEFAULT now()) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_id bigint;
  v_job bigint;
begin
  if p_motivo not in ('poll', 'contingencia', 'manual') then
    raise exception 'motivo de puxada desconhecido: %', p_motivo using errcode = 'PW400';
  end if;
  insert into public.partner_puxada (motivo, solicitada_em) values (p_motivo, p_agora) returning id into v_id;
  v_job := app.enqueue('partner_puxar', jsonb_build_object('id', v_id), now(), 'puxada:' || p_motivo, 5);
  if v_job is null then
    delete from public.partner_puxada where id = v_id; -- one of this kind is already queued or running
    return null;
  end if;
  update public.partner_puxada set job_id = v_job where id = v_id;
  return v_id;
end;
$$;


--
-- Name: FUNCTION partner_puxada_solicitar(p_motivo text, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_puxada_solicitar(p_motivo text, p_agora timestamp with time zone) IS 'Requests a pull of orders (poll, contingencia or manual — a DBA may call select partner_puxada_solicitar(''manual'')). Returns its id, or null when a pull of the same kind is already queued or running.';


--
-- Name: partner_silencio(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_silencio(p_agora timestamp with time zone DEFAULT now()) RETURNS TABLE(desde timestamp with time zone, ultimo_evento timestamp with time zone, minutos_comerciais numeric, horas numeric)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  with u as (select max(recebido_em) as ultimo from public.partner_webhook where recebido_em <= p_agora),
       r as (select coalesce(u.ultimo, c.monitorando_desde) as desde, u.ultimo
               from u cross join public.partner_configuracao c)
  select r.desde, r.ultimo,
         case when r.desde is null then null else public.minutos_comerciais(r.desde, p_agora) end,
         case when r.desde is null then null else round((extract(epoch from p_agora - r.desde) / 3600)::numeric, 3) end
    from r;
$$;


--
-- Name: FUNCTION partner_silencio(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_silencio(p_agora timestamp with time zone) IS 'Silence of the webhook at p_agora: since the last event received (or partner_configuracao.monitorando_desde when none ever arrived), in business minutes and in elapsed hours.';


--
-- Name: partner_status(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_status(p_agora timestamp with time zone DEFAULT now()) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select jsonb_build_object(
    'agora', p_agora,
    'ultimo_evento', (select jsonb_build_object('id', w.id, 'recebido_em', w.recebido_em, 'evento', w.evento,
                        'code', w.code, 'situacao', w.situacao, 'resultado', w.resultado)
                        from public.partner_webhook w where w.recebido_em <= p_agora
                       order by w.recebido_em desc limit 1),
    'silencio', (select jsonb_build_object('desde', s.desde, 'minutos_comerciais', s.minutos_comerciais, 'horas', s.horas,
                   'alerta_previsto_em', case when c.watchdog_habilitado and s.desde is not null
                      and not exists (select from public.partner_episodio e where e.fechado_em is null) then
                      least(public.apos_minutos_comerciais(s.desde, c.limite_min_comercial), s.desde + c.limite_horas * interval '1 hour') end)
                   from public.partner_silencio(p_agora) s cross join public.partner_configuracao c),
    'watchdog', (select jsonb_build_object('habilitado', c.watchdog_habilitado, 'limite_min_comercial', c.limite_min_comercial,
                   'limite_horas', c.limite_horas, 'monitorando_desde', c.monitorando_desde)
                   from public.partner_configuracao c),
    'episodio_aberto', (select jsonb_build_object('id', e.id, 'silencio_desde', e.silencio_desde, 'aberto_em', e.aberto_em,
                          'motivo', e.motivo) from public.partner_episodio e where e.fechado_em is null),
    'ultimo_episodio', (select jsonb_build_object('id', e.id, 'silencio_desde', e.silencio_desde, 'aberto_em', e.aberto_em,
                          'motivo', e.motivo, 'fechado_em', e.fechado_em, 'retorno_em', e.retorno_em, 'aviso_retorno', e.aviso_retorno)
                          from public.partner_episodio e order by e.id desc limit 1),
    'contingencia', (select jsonb_build_object('ligada', exists (select from public.partner_contingencia t where t.desligada_em is null),
                       'api_configurada', c.api_configurada,
                       'ligada_em', (select max(t.ligada_em) from public.partner_contingencia t where t.desligada_em is null),
                       'ultima_desligada_em', (select max(t.desligada_em) from public.partner_contingencia t))
                       from public.partner_configuracao c),
    'ultimo_poll', (select jsonb_build_object('id', p.id, 'motivo', p.motivo, 'status', p.status, 'solicitada_em', p.solicitada_em,
                      'concluida_em', p.concluida_em, 'pedidos', p.pedidos, 'erro', p.erro)
                      from public.partner_puxada p where p.motivo = 'poll' order by p.solicitada_em desc, p.id desc limit 1),
    'ultima_puxada', (select jsonb_build_object('id', p.id, 'motivo', p.motivo, 'status', p.status, 'solicitada_em', p.solicitada_em,
                        'concluida_em', p.concluida_em, 'pedidos', p.pedidos, 'erro', p.erro)
                        from public.partner_puxada p order by p.solicitada_em desc, p.id desc limit 1),
    'eventos', jsonb_build_object(
      'pendentes', (select count(*) from public.partner_webhook where situacao = 'PENDENTE'),
      'revisar', (select count(*) from public.partner_webhook where situacao = 'REVISAR')),
    'pedidos', jsonb_build_object(
      'capturados', (select count(*) from public.partner_pedido where estado = 'CAPTURADO'),
      'enfileirados', (select count(*) from public.partner_pedido where estado = 'ENFILEIRADO'),
      'cancelados', (select count(*) from public.partner_pedido where estado = 'CANCELADO')));
$$;


--
-- Name: FUNCTION partner_status(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_status(p_agora timestamp with time zone) IS 'The state of area B at p_agora (GET /api/partner/status): last event, silence (and when the alert will fire), watchdog settings, open and last episode, contingency, last poll and last pull, counts of events to normalise or review and of orders per state.';


--
-- Name: partner_tick(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_tick(p_agora timestamp with time zone DEFAULT now()) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_cfg public.partner_configuracao;
  v_sil record;
  v_ep public.partner_episodio;
  v_ct public.partner_contingencia;
  v_retorno timestamptz;
  v_aviso boolean;
  v_ultima_em timestamptz;
  v_ultima_status text;
  v_out jsonb := '{}';
  v_id bigint;
begin
  perform pg_advisory_xact_lock(hashtext('partner_tick'));
  select * into v_cfg from public.partner_configuracao;
  select * into v_sil from public.partner_silencio(p_agora);
  v_out := jsonb_build_object('silencio_desde', v_sil.desde, 'minutos_comerciais', v_sil.minutos_comerciais, 'horas', v_sil.horas);

  -- 1. watchdog: close the open episode when max(recebido_em) advanced, else open one at a limit
  select * into v_ep from public.partner_episodio where fechado_em is null for update;
  if found then
    if v_sil.ultimo_evento > v_ep.silencio_desde then
      select min(recebido_em) into v_retorno from public.partner_webhook
       where recebido_em > v_ep.silencio_desde and recebido_em <= p_agora;
      v_aviso := p_agora - v_retorno <= v_cfg.aviso_retorno_max;
      update public.partner_episodio set fechado_em = p_agora, retorno_em = v_retorno, aviso_retorno = v_aviso
       where id = v_ep.id;
      if v_aviso then
        perform app.partner_aviso_criar('webhook_voltou', v_ep.id, null,
          jsonb_build_object('retorno_em', v_retorno, 'silencio_desde', v_ep.silencio_desde), p_agora);
      end if;
      v_out := v_out || jsonb_build_object('episodio_fechado', v_ep.id, 'aviso_retorno', v_aviso);
    end if;
  elsif v_cfg.watchdog_habilitado and v_sil.desde is not null
        and (v_sil.minutos_comerciais >= v_cfg.limite_min_comercial or v_sil.horas >= v_cfg.limite_horas) then
    insert into public.partner_episodio (silencio_desde, aberto_em, motivo, minutos_comerciais)
    values (v_sil.desde, p_agora,
            case when v_sil.minutos_comerciais >= v_cfg.limite_min_comercial then 'limite_min_comercial' else 'limite_horas' end,
            v_sil.minutos_comerciais)
    returning * into v_ep;
    perform app.partner_aviso_criar('webhook_parado', v_ep.id, null,
      jsonb_build_object('silencio_desde', v_sil.desde, 'ultimo_evento', v_sil.ultimo_evento,
        'minutos_comerciais', v_sil.minutos_comerciais, 'horas', v_sil.horas, 'motivo', v_ep.motivo,
        'limite_min_comercial', v_cfg.limite_min_comercial, 'limite_horas', v_cfg.limite_horas), p_agora);
    v_out := v_out || jsonb_build_object('episodio_aberto', v_ep.id, 'motivo', v_ep.motivo);
  end if;

  -- 2. contingency: on after N business minutes of silence, off when the webhook returns
  select * into v_ct from public.partner_contingencia where desligada_em is null for update;
  if found then
    if v_sil.ultimo_evento > v_ct.silencio_desde or not v_cfg.api_configurada then
      select min(recebido_em) into v_retorno from public.partner_webhook
       where recebido_em > v_ct.silencio_desde and recebido_em <= p_agora;
      update public.partner_contingencia set desligada_em = p_agora, retorno_em = v_retorno where id = v_ct.id;
      perform app.partner_aviso_criar('contingencia_desligada', null, v_ct.id,
        jsonb_build_object('retorno_em', v_retorno, 'api_configurada', v_cfg.api_configurada), p_agora);
      v_out := v_out || jsonb_build_object('contingencia', 'DESLIGADA');
      v_ct := null;
    end if;
  elsif v_cfg.api_configurada and v_sil.desde is not null and v_sil.minutos_comerciais >= v_cfg.contingencia_apos_min_comercial then
    insert into public.partner_contingencia (silencio_desde, ligada_em) values (v_sil.desde, p_agora) returning * into v_ct;
    perform app.partner_aviso_criar('contingencia_ligada', null, v_ct.id,
      jsonb_build_object('silencio_desde', v_sil.desde, 'minutos_comerciais', v_sil.minutos_comerciais), p_agora);
    v_out := v_out || jsonb_build_object('contingencia', 'LIGADA');
  end if;
  if v_ct.id is not null then
    select max(solicitada_em) into v_ultima_em from public.partner_puxada
     where motivo = 'contingencia' and solicitada_em >= v_ct.ligada_em;
    if v_ultima_em is null or p_agora >= v_ultima_em + v_cfg.contingencia_intervalo_min * interval '1 minute' then
      v_id := public.partner_puxada_solicitar('contingencia', p_agora);
      if v_id is not null then
        v_out := v_out || jsonb_build_object('puxada_contingencia', v_id);
      end if;
    end if;
  end if;

  -- 3. the REST poll every poll_intervalo_horas (a pull that gave up is retried after 30 minutes)
  if v_cfg.api_configurada then
    select solicitada_em, status into v_ultima_em, v_ultima_status from public.partner_puxada
     where motivo = 'poll' order by solicitada_em desc, id desc limit 1;
    if v_ultima_em is null
       or p_agora >= v_ultima_em + (case when v_ultima_status = 'ERRO' then interval '30 minutes'
                                         else v_cfg.poll_intervalo_horas * interval '1 hour' end) then
      v_id := public.partner_puxada_solicitar('poll', p_agora);
      if v_id is not null then
        v_out := v_out || jsonb_build_object('puxada_poll', v_id);
      end if;
    end if;
  end if;

  -- 4. normalisation: due PENDENTE events (retries after a failure, or a job that gave up) get the job
  if exists (select from public.partner_webhook w where w.situacao = 'PENDENTE'
              and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())) then
    v_id := app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
    if v_id is not null then
      v_out := v_out || jsonb_build_object('normalizacao_enfileirada', v_id);
    end if;
  end if;
  return v_out;
end;
$$;


--
-- Name: FUNCTION partner_tick(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_tick(p_agora timestamp with time zone) IS 'The minute decision of area B, as of p_agora (pg_cron runs select partner_tick(now()) every minute; tests pass another clock). 1. Watchdog (when enabled): opens one silence episode with a ''Webhook parado'' notice when the silence reaches limite_min_comercial business minutes or limite_horas elapsed hours; closes it when max(recebido_em) advances, with ''Webhook voltou a funcionar'' only when the return is at most aviso_retorno_max old. 2. Contingency (when the REST API is configured): on after contingencia_apos_min_comercial business minutes of silence, a pull every contingencia_intervalo_min minutes, off when the webhook returns; each change is a notice (log line). 3. Requests the REST poll every poll_intervalo_horas. 4. Enqueues the normalisation job when due PENDENTE events have none (retries, or a job that gave up). Serialised by an advisory lock; returns what it did.';


--
-- Name: partner_webhook_normalizar(uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.partner_webhook;
  v_json jsonb;
  v_evento text;
  v_code text;
  v_resultado text;
begin
  select * into v_row from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_row.situacao <> 'PENDENTE' then
    return v_row.resultado; -- already done: a repeated job is harmless
  end if;

  begin
    v_json := convert_from(v_row.corpo, 'UTF8')::jsonb;
  exception when data_exception then -- invalid UTF-8, invalid JSON, \u0000
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'json_invalido', detalhe = left(sqlerrm, 500),
           processado_em = p_agora where id = p_id;
    return 'json_invalido';
  end;

  if jsonb_typeof(v_json) <> 'object' then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'formato_desconhecido',
           detalhe = 'o corpo é JSON mas não é um objeto', payload = v_json, processado_em = p_agora where id = p_id;
    return 'formato_desconhecido';
  end if;

  v_evento := v_json ->> 'event';
  v_code := case when jsonb_typeof(v_json -> 'resource') = 'object' then nullif(btrim(v_json -> 'resource' ->> 'code'), '') end;
  if v_evento is null or v_evento not in ('order.created', 'order.paid', 'order.status.updated', 'order.cancelled') then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'evento_desconhecido',
           detalhe = 'evento ' || coalesce(quote_literal(v_evento), 'ausente'), evento = left(v_evento, 100), code = v_code,
           payload = v_json, processado_em = p_agora where id = p_id;
    return 'evento_desconhecido';
  end if;

  begin
    v_resultado := public.partner_pedido_observar(v_json -> 'resource', 'webhook', v_evento, v_json -> 'time', p_agora);
  exception when sqlstate 'PW422' then
    update public.partner_webhook set situacao = 'REVISAR', resultado = 'pedido_invalido', detalhe = left(sqlerrm, 500),
           evento = v_evento, code = v_code, payload = v_json, processado_em = p_agora where id = p_id;
    return 'pedido_invalido';
  end;

  update public.partner_webhook set situacao = 'NORMALIZADO', resultado = v_resultado, detalhe = null,
         evento = v_evento, code = v_code, payload = v_json, processado_em = p_agora where id = p_id;
  return v_resultado;
end;
$$;


--
-- Name: FUNCTION partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone) IS 'Normalises one stored event. Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';


--
-- Name: partner_webhook_normalizar_lote(integer, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_normalizar_lote(p_limite integer DEFAULT 50, p_agora timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_id uuid;
  v_n integer := 0;
  v_revisar integer := 0;
  v_res text;
begin
  for v_id in
    select w.id from public.partner_webhook w
     where w.situacao = 'PENDENTE' and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())
     order by w.recebido_em
     limit greatest(p_limite, 1)
     for update skip locked
  loop
    begin
      v_res := public.partner_webhook_normalizar(v_id, coalesce(p_agora, clock_timestamp()));
      if v_res not in ('criado', 'atualizado', 'obsoleto', 'repetido') then
        v_revisar := v_revisar + 1;
      end if;
    exception when others then
      update public.partner_webhook set
        tentativas = tentativas + 1,
        detalhe = left(sqlerrm, 500),
        proxima_tentativa_em = clock_timestamp() + least(interval '5 seconds' * power(2, tentativas), interval '15 minutes'),
        situacao = case when tentativas + 1 >= 8 then 'REVISAR' else situacao end,
        resultado = case when tentativas + 1 >= 8 then 'erro_interno' else resultado end,
        processado_em = case when tentativas + 1 >= 8 then coalesce(p_agora, clock_timestamp()) end
      where id = v_id;
      raise warning 'partner_webhook %: falha na normalização (nova tentativa agendada): %', v_id, sqlerrm;
    end;
    v_n := v_n + 1;
  end loop;
  return jsonb_build_object('tratados', v_n, 'revisar', v_revisar);
end;
$$;


--
-- Name: FUNCTION partner_webhook_normalizar_lote(p_limite integer, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_normalizar_lote(p_limite integer, p_agora timestamp with time zone) IS 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work). An unexpected error on one event does not stop the batch: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';


--
-- Name: partner_webhook_receber(bytea, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text DEFAULT NULL::text, p_ip text DEFAULT NULL::text, p_user_agent text DEFAULT NULL::text) RETURNS uuid
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_id uuid;
begin
  insert into public.partner_webhook (corpo, content_type, ip, user_agent)
  values (coalesce(p_corpo, ''::bytea), left(p_content_type, 200), left(p_ip, 100), left(p_user_agent, 500))
  returning id into v_id;
  begin
    -- shared: concurrent intakes never wait for each other; see partner_normalizar_concluir
    perform pg_advisory_xact_lock_shared(app.partner_normalizar_trava());
    perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
  exception when others then
    -- the event is stored: nothing may turn the answer into an error. partner_tick re-enqueues it.
    raise warning 'partner_webhook %: falha ao enfileirar a normalização: %', v_id, sqlerrm;
  end;
  return v_id;
end;
$$;


--
-- Name: FUNCTION partner_webhook_receber(p_corpo bytea, p_content_type text, p_ip text, p_user_agent text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text, p_ip text, p_user_agent text) IS 'Intake of POST /webhook/partner: stores the raw body (recebido_em = clock time) and makes sure the normalisation job runs (job partner_normalizar with unique key lote: a no-op when one is pending or running; NOTIFY app_jobs), in the caller''s transaction. Returns the event id the edge answers with. Never fails on the content of the body.';


--
-- Name: partner_webhook_reprocessar(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_reprocessar(p_id uuid) RETURNS uuid
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_situacao text;
begin
  select situacao into v_situacao from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_situacao <> 'REVISAR' then
    raise exception 'evento % está %, só eventos em REVISAR são reprocessados', p_id, v_situacao using errcode = 'PW409';
  end if;
  update public.partner_webhook set situacao = 'PENDENTE', resultado = null, detalhe = null, processado_em = null,
         tentativas = 0, proxima_tentativa_em = null
   where id = p_id;
  perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
  return p_id;
end;
$$;


--
-- Name: FUNCTION partner_webhook_reprocessar(p_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_reprocessar(p_id uuid) IS 'For DBAs, after fixing what made an event REVISAR (e.g. a corrected corpo): back to PENDENTE and normalised again. PW404 unknown id; PW409 not in REVISAR.';


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
-- Name: destinatario; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.destinatario (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    nome text,
    ativo boolean DEFAULT true NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT destinatario_email_check CHECK ((email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'::text))
);


--
-- Name: TABLE destinatario; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.destinatario IS 'Recipients of the operational alert e-mails (the /destinatarios page): every active row receives the order-webhook alerts ''Webhook parado'' and ''Webhook voltou a funcionar''. DBAs may INSERT/UPDATE/DELETE rows; ativo = false keeps a row without sending to it.';


--
-- Name: feriado; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.feriado (
    data date NOT NULL,
    nome text NOT NULL,
    abrangencia text DEFAULT 'nacional'::text NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT feriado_abrangencia_check CHECK ((abrangencia = ANY (ARRAY['nacional'::text, 'estadual'::text, 'municipal'::text, 'empresa'::text]))),
    CONSTRAINT feriado_nome_check CHECK ((btrim(nome) <> ''::text))
);


--
-- Name: TABLE feriado; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.feriado IS 'Days that are not business days even when they fall Monday to Friday. Seeded with the Brazilian national holidays 2026-2040 (fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.minutos_comerciais honours every row.';


--
-- Name: COLUMN feriado.abrangencia; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.feriado.abrangencia IS 'nacional (seeded), estadual, municipal or empresa: informative only, every row counts.';


--
-- Name: partner_aviso; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_aviso (
    id bigint NOT NULL,
    tipo text NOT NULL,
    episodio_id bigint,
    contingencia_id bigint,
    criado_em timestamp with time zone NOT NULL,
    dados jsonb DEFAULT '{}'::jsonb NOT NULL,
    registrado_em timestamp with time zone,
    rastreador_em timestamp with time zone,
    concluido_em timestamp with time zone,
    CONSTRAINT partner_aviso_tipo_check CHECK ((tipo = ANY (ARRAY['webhook_parado'::text, 'webhook_voltou'::text, 'contingencia_ligada'::text, 'contingencia_desligada'::text])))
);


--
-- Name: TABLE partner_aviso; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_aviso IS 'Outbox of the watchdog: each row is one notice decided by SQL, carried out once by the job partner_aviso (one job per notice, claimed once across replicas): the log line, the error-tracker event (webhook_parado) and the e-mails (partner_aviso_envio).';


--
-- Name: partner_aviso_envio; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_aviso_envio (
    aviso_id bigint NOT NULL,
    email text NOT NULL,
    enviado_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    erro text
);


--
-- Name: TABLE partner_aviso_envio; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_aviso_envio IS 'One e-mail of a notice per recipient (the active public.destinatario rows when the notice was decided). enviado_em null = not delivered yet; a retry of the job sends only these.';


--
-- Name: partner_aviso_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.partner_aviso ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.partner_aviso_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: partner_contingencia; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_contingencia (
    id bigint NOT NULL,
    silencio_desde timestamp with time zone NOT NULL,
    ligada_em timestamp with time zone NOT NULL,
    desligada_em timestamp with time zone,
    retorno_em timestamp with time zone
);


--
-- Name: TABLE partner_contingencia; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_contingencia IS 'Contingency periods: switched on after contingencia_apos_min_comercial business minutes of silence (orders pulled by REST every contingencia_intervalo_min minutes), off when the webhook returns. At most one on.';


--
-- Name: partner_contingencia_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.partner_contingencia ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.partner_contingencia_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: partner_episodio; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_episodio (
    id bigint NOT NULL,
    silencio_desde timestamp with time zone NOT NULL,
    aberto_em timestamp with time zone NOT NULL,
    motivo text NOT NULL,
    minutos_comerciais numeric NOT NULL,
    fechado_em timestamp with time zone,
    retorno_em timestamp with time zone,
    aviso_retorno boolean,
    CONSTRAINT partner_episodio_fechado CHECK (((fechado_em IS NULL) = (retorno_em IS NULL))),
    CONSTRAINT partner_episodio_motivo_check CHECK ((motivo = ANY (ARRAY['limite_min_comercial'::text, 'limite_horas'::text])))
);


--
-- Name: TABLE partner_episodio; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_episodio IS 'Silence episodes of the webhook: opened (one alert ''Webhook parado'') when the silence since max(partner_webhook.recebido_em) reaches the business-minute limit or the hour net; closed by itself when max(recebido_em) advances. At most one open.';


--
-- Name: COLUMN partner_episodio.retorno_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_episodio.retorno_em IS 'recebido_em of the first event after the silence.';


--
-- Name: COLUMN partner_episodio.aviso_retorno; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_episodio.aviso_retorno IS 'Whether ''Webhook voltou a funcionar'' was sent: only when the return was at most partner_configuracao.aviso_retorno_max old when the episode closed.';


--
-- Name: partner_episodio_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.partner_episodio ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.partner_episodio_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: partner_pedido_transicao; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_pedido_transicao (
    id bigint NOT NULL,
    pedido_id uuid NOT NULL,
    de text,
    para text NOT NULL,
    motivo text NOT NULL,
    em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE partner_pedido_transicao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_pedido_transicao IS 'History of the local state of each order (de -> para, with the reason: captura, gate_transicao, gate_resgate_primeira_captura, console, cancelamento).';


--
-- Name: partner_pedido_transicao_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.partner_pedido_transicao ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.partner_pedido_transicao_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: partner_puxada; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_puxada (
    id bigint NOT NULL,
    motivo text NOT NULL,
    solicitada_em timestamp with time zone NOT NULL,
    job_id bigint,
    status text DEFAULT 'PENDENTE'::text NOT NULL,
    atualizado_desde timestamp with time zone,
    iniciada_em timestamp with time zone,
    concluida_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    paginas integer DEFAULT 0 NOT NULL,
    pedidos integer DEFAULT 0 NOT NULL,
    criados integer DEFAULT 0 NOT NULL,
    atualizados integer DEFAULT 0 NOT NULL,
    obsoletos integer DEFAULT 0 NOT NULL,
    repetidos integer DEFAULT 0 NOT NULL,
    invalidos integer DEFAULT 0 NOT NULL,
    erro text,
    CONSTRAINT partner_puxada_motivo_check CHECK ((motivo = ANY (ARRAY['poll'::text, 'contingencia'::text, 'manual'::text]))),
    CONSTRAINT partner_puxada_status_check CHECK ((status = ANY (ARRAY['PENDENTE'::text, 'EM_ANDAMENTO'::text, 'CONCLUIDA'::text, 'ERRO'::text])))
);


--
-- Name: TABLE partner_puxada; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_puxada IS 'Pulls of orders from the platform''s REST API (GET /orders?updated_since=&page=): the 6-hourly poll, the contingency pulls and manual ones. Orders go through partner_pedido_observar, like the webhook''s. erro: the last failure (a failing pull is retried by its job; ERRO when it gave up).';


--
-- Name: partner_puxada_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.partner_puxada ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.partner_puxada_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: partner_webhook; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_webhook (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    recebido_em timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    corpo bytea NOT NULL,
    content_type text,
    ip text,
    user_agent text,
    situacao text DEFAULT 'PENDENTE'::text NOT NULL,
    resultado text,
    detalhe text,
    evento text,
    code text,
    payload jsonb,
    processado_em timestamp with time zone,
    tentativas integer DEFAULT 0 NOT NULL,
    proxima_tentativa_em timestamp with time zone,
    CONSTRAINT partner_webhook_processado CHECK (((situacao = 'PENDENTE'::text) = (processado_em IS NULL))),
    CONSTRAINT partner_webhook_situacao_check CHECK ((situacao = ANY (ARRAY['PENDENTE'::text, 'NORMALIZADO'::text, 'REVISAR'::text])))
);


--
-- Name: TABLE partner_webhook; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_webhook IS 'Every delivery of the order platform''s webhook, stored byte for byte before the 200 answer (the platform disables the webhook after one failed delivery and never resends). situacao: PENDENTE (not normalised yet), NORMALIZADO, REVISAR (stored but not understood: see resultado/detalhe). max(recebido_em) is what the watchdog watches.';


--
-- Name: COLUMN partner_webhook.corpo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_webhook.corpo IS 'The request body exactly as received (any bytes, even invalid JSON or UTF-8). Read it with convert_from(corpo, ''UTF8'') or the payload column.';


--
-- Name: COLUMN partner_webhook.resultado; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_webhook.resultado IS 'NORMALIZADO: criado | atualizado | obsoleto (older updated_at, state kept) | repetido (same updated_at and status). REVISAR: json_invalido | formato_desconhecido | evento_desconhecido | pedido_invalido | erro_interno.';


--
-- Name: COLUMN partner_webhook.payload; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_webhook.payload IS 'The body parsed as JSON, when it is JSON (filled by the normalisation).';


--
-- Name: COLUMN partner_webhook.tentativas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_webhook.tentativas IS 'Failed normalisation attempts (unexpected errors, e.g. a lock timeout); retried with backoff at proxima_tentativa_em, REVISAR (resultado erro_interno) after 8.';


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
-- Name: destinatario destinatario_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.destinatario
    ADD CONSTRAINT destinatario_pkey PRIMARY KEY (id);


--
-- Name: feriado feriado_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.feriado
    ADD CONSTRAINT feriado_pkey PRIMARY KEY (data);


--
-- Name: partner_aviso_envio partner_aviso_envio_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_aviso_envio
    ADD CONSTRAINT partner_aviso_envio_pkey PRIMARY KEY (aviso_id, email);


--
-- Name: partner_aviso partner_aviso_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_aviso
    ADD CONSTRAINT partner_aviso_pkey PRIMARY KEY (id);


--
-- Name: partner_configuracao partner_configuracao_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_configuracao
    ADD CONSTRAINT partner_configuracao_pkey PRIMARY KEY (id);


--
-- Name: partner_contingencia partner_contingencia_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_contingencia
    ADD CONSTRAINT partner_contingencia_pkey PRIMARY KEY (id);


--
-- Name: partner_episodio partner_episodio_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_episodio
    ADD CONSTRAINT partner_episodio_pkey PRIMARY KEY (id);


--
-- Name: partner_pedido partner_pedido_code_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_pedido
    ADD CONSTRAINT partner_pedido_code_key UNIQUE (code);


--
-- Name: partner_pedido partner_pedido_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_pedido
    ADD CONSTRAINT partner_pedido_pkey PRIMARY KEY (id);


--
-- Name: partner_pedido_transicao partner_pedido_transicao_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_pedido_transicao
    ADD CONSTRAINT partner_pedido_transicao_pkey PRIMARY KEY (id);


--
-- Name: partner_puxada partner_puxada_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_puxada
    ADD CONSTRAINT partner_puxada_pkey PRIMARY KEY (id);


--
-- Name: partner_webhook partner_webhook_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_webhook
    ADD CONSTRAINT partner_webhook_pkey PRIMARY KEY (id);


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
-- Name: destinatario_email_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX destinatario_email_key ON public.destinatario USING btree (lower(email));


--
-- Name: partner_aviso_episodio_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_aviso_episodio_idx ON public.partner_aviso USING btree (episodio_id);


--
-- Name: partner_contingencia_ligada_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX partner_contingencia_ligada_key ON public.partner_contingencia USING btree ((true)) WHERE (desligada_em IS NULL);


--
-- Name: partner_episodio_aberto_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX partner_episodio_aberto_key ON public.partner_episodio USING btree ((true)) WHERE (fechado_em IS NULL);


--
-- Name: partner_pedido_estado_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_pedido_estado_idx ON public.partner_pedido USING btree (estado, atualizado_em);


--
-- Name: partner_pedido_transicao_pedido_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_pedido_transicao_pedido_idx ON public.partner_pedido_transicao USING btree (pedido_id, id);


--
-- Name: partner_puxada_motivo_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_puxada_motivo_idx ON public.partner_puxada USING btree (motivo, solicitada_em);


--
-- Name: partner_webhook_code_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_webhook_code_idx ON public.partner_webhook USING btree (code) WHERE (code IS NOT NULL);


--
-- Name: partner_webhook_pendente_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_webhook_pendente_idx ON public.partner_webhook USING btree (recebido_em) WHERE (situacao = 'PENDENTE'::text);


--
-- Name: partner_webhook_recebido_em_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_webhook_recebido_em_idx ON public.partner_webhook USING btree (recebido_em);


--
-- Name: partner_webhook_revisar_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX partner_webhook_revisar_idx ON public.partner_webhook USING btree (recebido_em) WHERE (situacao = 'REVISAR'::text);


--
-- Name: bi_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: destinatario _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.destinatario FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: partner_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: partner_pedido _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_pedido FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: bi_configuracao _900_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg_bi_configuracao__notify();


--
-- Name: partner_aviso partner_aviso_contingencia_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_aviso
    ADD CONSTRAINT partner_aviso_contingencia_id_fkey FOREIGN KEY (contingencia_id) REFERENCES public.partner_contingencia(id) ON DELETE CASCADE;


--
-- Name: partner_aviso_envio partner_aviso_envio_aviso_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_aviso_envio
    ADD CONSTRAINT partner_aviso_envio_aviso_id_fkey FOREIGN KEY (aviso_id) REFERENCES public.partner_aviso(id) ON DELETE CASCADE;


--
-- Name: partner_aviso partner_aviso_episodio_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_aviso
    ADD CONSTRAINT partner_aviso_episodio_id_fkey FOREIGN KEY (episodio_id) REFERENCES public.partner_episodio(id) ON DELETE CASCADE;


--
-- Name: partner_pedido_transicao partner_pedido_transicao_pedido_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_pedido_transicao
    ADD CONSTRAINT partner_pedido_transicao_pedido_id_fkey FOREIGN KEY (pedido_id) REFERENCES public.partner_pedido(id) ON DELETE CASCADE;


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
    ('20261122200000'),
    ('20261122200100'),
    ('20261122200200'),
    ('20261122200300');
