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


--
-- Name: erp_sync_item; Type: TYPE; Schema: app; Owner: -
--

CREATE TYPE app.erp_sync_item AS (
	idx integer,
	ean text,
	sku text,
	preco_cheio numeric(12,2),
	preco_desconto numeric(12,2),
	estoque integer,
	erros text[],
	variante_ids bigint[],
	variante_skus text[],
	variante_id bigint,
	variante_sku text,
	variante_ean text,
	preco_cheio_atual numeric(12,2),
	preco_desconto_atual numeric(12,2),
	estoque_atual integer
);


--
-- Name: TYPE erp_sync_item; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TYPE app.erp_sync_item IS 'Working row of erp_sync(): one request item as read and validated (idx, key, received values, error codes), its candidate variants, and the matched variant''s stored values.';


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
-- Name: erp_sync_item_ler(integer, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.erp_sync_item_ler(p_idx integer, p_item jsonb) RETURNS app.erp_sync_item
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  r app.erp_sync_item;
  v_ean jsonb := p_item -> 'ean';
  v_sku text;
begin
  r.idx := p_idx;
  r.erros := '{}';
  if jsonb_typeof(v_ean) = 'null' or (jsonb_typeof(v_ean) = 'string' and btrim(v_ean #>> '{}') = '') then
    v_ean := null;
  end if;
  if jsonb_typeof(p_item -> 'sku') in ('string', 'number') then
    v_sku := nullif(btrim(p_item ->> 'sku'), '');
  end if;

  -- key: the EAN when given (a wrong one is an error, not a fall-back to sku), else the sku
  if v_ean is not null then
    if jsonb_typeof(v_ean) = 'string' and public.gtin_valido(btrim(v_ean #>> '{}')) then
      r.ean := btrim(v_ean #>> '{}');
    else
      r.erros := r.erros || 'ean_invalido'::text;
    end if;
  elsif v_sku is not null then
    r.sku := v_sku;
  else
    r.erros := r.erros || 'sem_ean_nem_sku'::text;
  end if;

  -- both prices are required; stock is optional (absent or null: stock is left as it is)
  r.preco_cheio := app.json_preco(p_item -> 'preco_cheio');
  r.preco_desconto := app.json_preco(p_item -> 'preco_desconto');
  if r.preco_cheio is null or r.preco_desconto is null then
    r.erros := r.erros || 'preco_invalido'::text;
  end if;
  if jsonb_typeof(coalesce(p_item -> 'estoque', 'null')) <> 'null' then
    r.estoque := app.json_estoque(p_item -> 'estoque');
    if r.estoque is null then
      r.erros := r.erros || 'estoque_invalido'::text;
    end if;
  end if;
  return r;
end;
$$;


--
-- Name: FUNCTION erp_sync_item_ler(p_idx integer, p_item jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.erp_sync_item_ler(p_idx integer, p_item jsonb) IS 'Reads one item of a POST /sync/erp request: its key (a valid GTIN ean, else sku: a string or number) and values, with the codes sem_ean_nem_sku, ean_invalido, preco_invalido (preco_cheio or preco_desconto missing, not a JSON number, negative, more than 2 decimals, 10^10 or more), estoque_invalido (present and not an integer in 0..2147483647). Duplicates and matching are decided by erp_sync().';


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
-- Name: json_estoque(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.json_estoque(p_valor jsonb) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  n numeric;
begin
  if jsonb_typeof(p_valor) is distinct from 'number' then
    return null;
  end if;
  n := (p_valor #>> '{}')::numeric;
  if n >= 0 and n <= 2147483647 and n = trunc(n) then
    return n::integer;
  end if;
  return null;
end;
$$;


--
-- Name: FUNCTION json_estoque(p_valor jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.json_estoque(p_valor jsonb) IS 'The stock quantity in a JSON value when it is a JSON number with an integral value between 0 and 2147483647 (10.0 counts as 10); otherwise null.';


--
-- Name: json_preco(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.json_preco(p_valor jsonb) RETURNS numeric
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  n numeric;
begin
  if jsonb_typeof(p_valor) is distinct from 'number' then
    return null;
  end if;
  n := (p_valor #>> '{}')::numeric;
  if n >= 0 and n < 1e10 and n = round(n, 2) then
    return n;
  end if;
  return null;
end;
$$;


--
-- Name: FUNCTION json_preco(p_valor jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.json_preco(p_valor jsonb) IS 'The price in a JSON value when it is a JSON number, not negative, below 10^10 and with at most 2 decimals; otherwise null (strings such as "10.50" are not prices).';


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
-- Name: catalogo_carregar(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.catalogo_carregar(p_catalogo jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_bad text;
  v_produtos_inseridos integer;
  v_produtos_atualizados integer;
  v_variantes_inseridas integer;
  v_variantes_atualizadas integer;
begin
  if p_catalogo is null or jsonb_typeof(p_catalogo) <> 'array' then
    raise exception 'o catálogo deve ser uma lista de produtos [{codigo_erp, nome, variantes: [...]}]' using errcode = 'CT400';
  end if;

  -- shape checks, each naming the first offending element (0-based)
  select format('produto[%s]: codigo_erp e nome são obrigatórios e variantes deve ser uma lista', o - 1) into v_bad
    from jsonb_array_elements(p_catalogo) with ordinality as t(p, o)
   where jsonb_typeof(p) <> 'object'
      or coalesce(btrim(p ->> 'codigo_erp'), '') = '' or coalesce(btrim(p ->> 'nome'), '') = ''
      or jsonb_typeof(coalesce(p -> 'variantes', '[]')) <> 'array'
   order by o limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  create temporary table pg_temp._carga on commit drop as
  select btrim(p ->> 'codigo_erp') as codigo_erp, btrim(p ->> 'nome') as nome,
         po - 1 as p_idx, vo - 1 as v_idx, v
    from jsonb_array_elements(p_catalogo) with ordinality as tp(p, po)
    left join lateral jsonb_array_elements(coalesce(p -> 'variantes', '[]')) with ordinality as tv(v, vo) on true;

  select format('produto[%s].variantes[%s]: sku obrigatório; ean texto; preços números >= 0 com até 2 casas; estoque inteiro >= 0', p_idx, v_idx)
    into v_bad
    from pg_temp._carga
   where v is not null and (
         jsonb_typeof(v) <> 'object'
      or coalesce(btrim(v ->> 'sku'), '') = ''
      or jsonb_typeof(coalesce(v -> 'ean', 'null')) not in ('string', 'null')
      or (jsonb_typeof(coalesce(v -> 'preco_cheio', 'null')) <> 'null' and app.json_preco(v -> 'preco_cheio') is null)
      or (jsonb_typeof(coalesce(v -> 'preco_desconto', 'null')) <> 'null' and app.json_preco(v -> 'preco_desconto') is null)
      or (jsonb_typeof(coalesce(v -> 'estoque', 'null')) <> 'null' and app.json_estoque(v -> 'estoque') is null))
   order by p_idx, v_idx limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  select format('sku %s aparece mais de uma vez no catálogo', btrim(v ->> 'sku')) into v_bad
    from pg_temp._carga where v is not null group by btrim(v ->> 'sku') having count(*) > 1 order by 1 limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;
  select format('codigo_erp %s aparece mais de uma vez no catálogo com nomes diferentes', codigo_erp) into v_bad
    from pg_temp._carga group by codigo_erp having count(distinct nome) > 1 order by 1 limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  -- diff-aware upserts, in natural-key order (concurrent loads do not deadlock)
  with src as (
    select distinct codigo_erp, nome from pg_temp._carga order by codigo_erp
  ), up as (
    insert into public.produto as p (codigo_erp, nome)
    select codigo_erp, nome from src order by codigo_erp
    on conflict (codigo_erp) do update set nome = excluded.nome
      where p.nome is distinct from excluded.nome
    returning (xmax = 0) as inserido
  )
  select count(*) filter (where inserido), count(*) filter (where not inserido)
    into v_produtos_inseridos, v_produtos_atualizados from up;

  with src as (
    select p.id as produto_id, btrim(c.v ->> 'sku') as sku, nullif(btrim(c.v ->> 'ean'), '') as ean,
           app.json_preco(c.v -> 'preco_cheio') as preco_cheio,
           app.json_preco(c.v -> 'preco_desconto') as preco_desconto,
           coalesce(app.json_estoque(c.v -> 'estoque'), 0) as estoque
      from pg_temp._carga c join public.produto p on p.codigo_erp = c.codigo_erp
     where c.v is not null
  ), up as (
    insert into public.variante as v (produto_id, sku, ean, preco_cheio, preco_desconto, estoque)
    select produto_id, sku, ean, preco_cheio, preco_desconto, estoque from src order by sku
    on conflict (sku) do update
      set produto_id = excluded.produto_id, ean = excluded.ean, preco_cheio = excluded.preco_cheio,
          preco_desconto = excluded.preco_desconto, estoque = excluded.estoque
      where (v.produto_id, v.ean, v.preco_cheio, v.preco_desconto, v.estoque)
            is distinct from (excluded.produto_id, excluded.ean, excluded.preco_cheio, excluded.preco_desconto, excluded.estoque)
    returning (xmax = 0) as inserida
  )
  select count(*) filter (where inserida), count(*) filter (where not inserida)
    into v_variantes_inseridas, v_variantes_atualizadas from up;

  drop table pg_temp._carga;
  return jsonb_build_object(
    'produtos_inseridos', v_produtos_inseridos, 'produtos_atualizados', v_produtos_atualizados,
    'variantes_inseridas', v_variantes_inseridas, 'variantes_atualizadas', v_variantes_atualizadas);
end;
$$;


--
-- Name: FUNCTION catalogo_carregar(p_catalogo jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.catalogo_carregar(p_catalogo jsonb) IS 'Loads (upserts) a catalogue: [{codigo_erp, nome, variantes: [{sku, ean, preco_cheio, preco_desconto, estoque}]}]. Products are keyed by codigo_erp, variants by sku; rows whose values are unchanged are not rewritten; nothing is deleted. Missing estoque loads as 0, missing prices as null. Errors: CT400 with the offending element (0-based). Returns {produtos_inseridos, produtos_atualizados, variantes_inseridas, variantes_atualizadas}.';


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
-- Name: erp_sync(jsonb, boolean, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.erp_sync(p_items jsonb, p_dry_run boolean DEFAULT true, p_idempotency_key text DEFAULT NULL::text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  c_limite constant integer := 200;
  v_n integer;
  v_bad bigint;
  v_hash text;
  v_prev record;
  v_linhas app.erp_sync_item[];
  v_ids bigint[];
  v_atualizados integer := 0;
  v_resposta jsonb;
  v_audit_id bigint;
begin
  -- the envelope (the edge checks it first, with the same rules; these guard psql callers)
  if p_dry_run is null then
    raise exception 'p_dry_run deve ser true ou false' using errcode = 'ES400';
  end if;
  if p_items is null or jsonb_typeof(p_items) <> 'array' then
    raise exception 'items deve ser uma lista de itens' using errcode = 'ES400';
  end if;
  v_n := jsonb_array_length(p_items);
  if v_n = 0 then
    raise exception 'items está vazia: envie de 1 a % itens', c_limite using errcode = 'ES400';
  end if;
  if v_n > c_limite then
    raise exception 'items tem % itens; o limite é % por requisição', v_n, c_limite using errcode = 'ES413';
  end if;
  select min(o) - 1 into v_bad from jsonb_array_elements(p_items) with ordinality as t(e, o) where jsonb_typeof(e) <> 'object';
  if v_bad is not null then
    raise exception 'items[%] deve ser um objeto', v_bad using errcode = 'ES400';
  end if;
  if p_idempotency_key is not null and (length(p_idempotency_key) not between 1 and 255 or p_idempotency_key !~ '^[\x20-\x7e]+$') then
    raise exception 'Idempotency-Key deve ter de 1 a 255 caracteres ASCII visíveis' using errcode = 'ES400';
  end if;

  v_hash := encode(sha256(convert_to(p_items::text, 'UTF8')), 'hex');

  -- idempotency: calls with the same key are serialised; a key seen in the last 24 h
  -- answers the stored response (same items) or 422 (other items), applying nothing
  if p_idempotency_key is not null then
    perform pg_advisory_xact_lock(hashtextextended('erp_sync:' || p_idempotency_key, 0));
    select a.id, a.request_sha256, a.response into v_prev
      from public.erp_sync_audit a
     where a.idempotency_key = p_idempotency_key and a.replay_of is null and a.called_at > now() - interval '24 hours'
     order by a.id desc limit 1;
    if found then
      if v_prev.request_sha256 <> v_hash then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h com outro corpo (chamada %); use uma chave nova para outra requisição',
          p_idempotency_key, v_prev.id using errcode = 'ES422';
      end if;
      insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                         request_sha256, idempotency_key, replay_of, response)
      select a.dry_run, a.recebidos, a.casados, a.atualizados, a.nao_encontrados, a.ambiguos, a.erros,
             a.request_sha256, a.idempotency_key, a.id, null
        from public.erp_sync_audit a where a.id = v_prev.id;
      return v_prev.response;
    end if;
  end if;

  -- 1. read and validate every item, mark duplicates, find candidate variants
  with lidos as (
    select r.*
      from jsonb_array_elements(p_items) with ordinality as t(item, o)
     cross join lateral app.erp_sync_item_ler((t.o - 1)::integer, t.item) as r
  ), marcados as (
    select l.idx, l.ean, l.sku, l.preco_cheio, l.preco_desconto, l.estoque,
           case when coalesce(l.ean, l.sku) is not null
                 and row_number() over (partition by (case when l.ean is not null then 'ean:' || l.ean else 'sku:' || l.sku end)
                                        order by l.idx) > 1
                then array['item_duplicado'] || l.erros else l.erros end as erros
      from lidos l
  ), candidatos as (
    select m.*, x.ids, x.skus
      from marcados m
      left join lateral (
        select array_agg(c.id order by c.sku) as ids, array_agg(c.sku order by c.sku) as skus
          from (select v.id, v.sku from public.variante v where v.ean = m.ean
                union all
                select v.id, v.sku from public.variante v where m.ean is null and v.sku = m.sku) c
      ) x on cardinality(m.erros) = 0
  ), alvos as (
    -- two items naming the same variant by different keys (EAN and sku): the later one is a duplicate
    select c.*, cardinality(c.ids) = 1
                and row_number() over (partition by (case when cardinality(c.ids) = 1 then c.ids[1] end) order by c.idx) > 1
                as repetido
      from candidatos c
  )
  select array_agg(row(a.idx, a.ean, a.sku, a.preco_cheio, a.preco_desconto, a.estoque,
                       case when a.repetido then array['item_duplicado'] || a.erros else a.erros end,
                       case when a.repetido then null else a.ids end,
                       case when a.repetido then null else a.skus end,
                       null, null, null, null, null, null)::app.erp_sync_item order by a.idx)
    into v_linhas
    from alvos a;

  -- 2. real mode: lock the matched variants in a fixed order (by id), so that concurrent
  --    calls touching the same variants wait for each other instead of deadlocking
  v_ids := array(select l.variante_ids[1] from unnest(v_linhas) l where cardinality(l.variante_ids) = 1);
  if not p_dry_run then
    perform 1 from public.variante v where v.id = any (v_ids) order by v.id for update;
  end if;

  -- 3. the stored values (after the locks: the latest committed ones)
  select array_agg(row(l.idx, l.ean, l.sku, l.preco_cheio, l.preco_desconto, l.estoque, l.erros, l.variante_ids, l.variante_skus,
                       v.id, v.sku, v.ean, v.preco_cheio, v.preco_desconto, v.estoque)::app.erp_sync_item order by l.idx)
    into v_linhas
    from unnest(v_linhas) l
    left join public.variante v on cardinality(l.variante_ids) = 1 and v.id = l.variante_ids[1];

  -- 4. real mode: write only what differs
  if not p_dry_run then
    update public.variante v
       set preco_cheio = l.preco_cheio, preco_desconto = l.preco_desconto, estoque = coalesce(l.estoque, v.estoque)
      from unnest(v_linhas) l
     where v.id = l.variante_id
       and (l.preco_cheio is distinct from l.preco_cheio_atual
            or l.preco_desconto is distinct from l.preco_desconto_atual
            or (l.estoque is not null and l.estoque is distinct from l.estoque_atual));
    get diagnostics v_atualizados = row_count;
  end if;

  -- 5. the response
  select jsonb_build_object(
    'dry_run', p_dry_run,
    'recebidos', v_n,
    'casados', count(*) filter (where l.variante_id is not null),
    'atualizados', v_atualizados,
    'nao_encontrados', coalesce(jsonb_agg(coalesce(l.ean, l.sku) order by l.idx)
      filter (where cardinality(l.erros) = 0 and l.variante_id is null and coalesce(cardinality(l.variante_ids), 0) <= 1), '[]'),
    'ambiguos', coalesce(jsonb_agg(jsonb_build_object('idx', l.idx, 'ean', l.ean, 'skus', to_jsonb(l.variante_skus)) order by l.idx)
      filter (where cardinality(l.variante_ids) > 1), '[]'),
    'erros', coalesce((select jsonb_agg(jsonb_build_object('idx', e.idx, 'erro', e.erro) order by e.idx, e.ord)
                         from (select l2.idx, c.erro, c.ord from unnest(v_linhas) l2
                                cross join lateral unnest(l2.erros) with ordinality as c(erro, ord)) e), '[]'),
    'itens', coalesce(jsonb_agg(jsonb_build_object(
        'idx', l.idx,
        'ean', l.variante_ean,
        'sku', l.variante_sku,
        'preco_recebido', l.preco_desconto,
        'preco_cheio_recebido', l.preco_cheio,
        'estoque_recebido', l.estoque,
        'preco_atual', l.preco_desconto_atual,
        'preco_cheio_atual', l.preco_cheio_atual,
        'estoque_atual', l.estoque_atual,
        'vai_atualizar_preco', l.preco_cheio is distinct from l.preco_cheio_atual
                               or l.preco_desconto is distinct from l.preco_desconto_atual,
        'vai_atualizar_estoque', l.estoque is not null and l.estoque is distinct from l.estoque_atual
      ) order by l.idx) filter (where l.variante_id is not null), '[]'))
    into v_resposta
    from unnest(v_linhas) l;

  -- 6. the audit
  insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                     request_sha256, idempotency_key, response)
  values (p_dry_run, v_n, (v_resposta ->> 'casados')::integer, v_atualizados,
          jsonb_array_length(v_resposta -> 'nao_encontrados'), jsonb_array_length(v_resposta -> 'ambiguos'),
          (select count(*) from unnest(v_linhas) l where cardinality(l.erros) > 0),
          v_hash, p_idempotency_key, v_resposta)
  returning id into v_audit_id;

  if v_atualizados > 0 then
    insert into public.erp_sync_audit_variante (audit_id, variante_id, idx, sku, ean,
                                                preco_cheio_antes, preco_cheio_depois, preco_desconto_antes, preco_desconto_depois,
                                                estoque_antes, estoque_depois)
    select v_audit_id, l.variante_id, l.idx, l.variante_sku, l.variante_ean,
           l.preco_cheio_atual, l.preco_cheio, l.preco_desconto_atual, l.preco_desconto,
           l.estoque_atual, coalesce(l.estoque, l.estoque_atual)
      from unnest(v_linhas) l
     where l.variante_id is not null
       and (l.preco_cheio is distinct from l.preco_cheio_atual
            or l.preco_desconto is distinct from l.preco_desconto_atual
            or (l.estoque is not null and l.estoque is distinct from l.estoque_atual));
  end if;

  return v_resposta;
end;
$_$;


--
-- Name: FUNCTION erp_sync(p_items jsonb, p_dry_run boolean, p_idempotency_key text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.erp_sync(p_items jsonb, p_dry_run boolean, p_idempotency_key text) IS 'The decision of POST /sync/erp. p_items: the request''s items (1 to 200 objects {ean | sku, preco_cheio, preco_desconto, estoque}); p_dry_run (default true): report only, write nothing but the audit row; false: apply every change in this transaction, locking the matched variants in id order, rewriting only variants whose values differ, with their before/after in erp_sync_audit_variante. Matching: by EAN against variante.ean, else by sku; never creates a variant. p_idempotency_key: a key seen in the last 24 h answers the stored response (same items) or raises ES422 (other items). Returns the whole response {dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros, itens}. Errors: ES400 malformed items, ES413 more than 200 items, ES422 key reused with another body. Every answered call leaves a row in erp_sync_audit.';


--
-- Name: gtin_valido(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.gtin_valido(p_codigo text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
declare
  d integer[];
begin
  if p_codigo !~ '^([0-9]{8}|[0-9]{12,14})$' then
    return false;
  end if;
  -- as a GTIN-14 (left-padded with zeros) the weights from the left are 3,1,3,…,3
  d := string_to_array(lpad(p_codigo, 14, '0'), null)::integer[];
  return (10 - (3 * (d[1] + d[3] + d[5] + d[7] + d[9] + d[11] + d[13])
                + d[2] + d[4] + d[6] + d[8] + d[10] + d[12]) % 10) % 10 = d[14];
end;
$_$;


--
-- Name: FUNCTION gtin_valido(p_codigo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.gtin_valido(p_codigo text) IS 'True when p_codigo is a GTIN of 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13, GTIN-14) with a correct check digit (weights 3,1,3,… from the right, mod 10).';


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
-- Name: erp_sync_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.erp_sync_audit (
    id bigint NOT NULL,
    called_at timestamp with time zone DEFAULT now() NOT NULL,
    dry_run boolean NOT NULL,
    recebidos integer NOT NULL,
    casados integer NOT NULL,
    atualizados integer NOT NULL,
    nao_encontrados integer NOT NULL,
    ambiguos integer NOT NULL,
    erros integer NOT NULL,
    request_sha256 text NOT NULL,
    idempotency_key text,
    replay_of bigint,
    application_name text DEFAULT NULLIF(current_setting('application_name'::text, true), ''::text),
    response jsonb,
    CONSTRAINT erp_sync_audit_response_check CHECK (((replay_of IS NULL) = (response IS NOT NULL))),
    CONSTRAINT erp_sync_audit_sha256_check CHECK ((request_sha256 ~ '^[0-9a-f]{64}$'::text))
);


--
-- Name: TABLE erp_sync_audit; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.erp_sync_audit IS 'One row per answered call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). Calls refused before the decision (401, 400, 413, 422) leave no row. Rows are kept until a DBA deletes them (changes cascade).';


--
-- Name: COLUMN erp_sync_audit.recebidos; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.recebidos IS 'Items received.';


--
-- Name: COLUMN erp_sync_audit.casados; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.casados IS 'Items matched to exactly one variant.';


--
-- Name: COLUMN erp_sync_audit.atualizados; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.atualizados IS 'Variants actually changed (0 in dry run).';


--
-- Name: COLUMN erp_sync_audit.nao_encontrados; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.nao_encontrados IS 'Items with a valid key and no variant.';


--
-- Name: COLUMN erp_sync_audit.ambiguos; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.ambiguos IS 'Items whose EAN matches more than one variant.';


--
-- Name: COLUMN erp_sync_audit.erros; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.erros IS 'Items refused by validation (an item may carry several codes in the response''s erros[]).';


--
-- Name: COLUMN erp_sync_audit.request_sha256; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.request_sha256 IS 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter).';


--
-- Name: COLUMN erp_sync_audit.application_name; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.application_name IS 'application_name of the calling session: bi-comercial for the HTTP endpoint, psql for a DBA.';


--
-- Name: erp_sync_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.erp_sync_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.erp_sync_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: erp_sync_audit_variante; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.erp_sync_audit_variante (
    audit_id bigint NOT NULL,
    variante_id bigint NOT NULL,
    idx integer NOT NULL,
    sku text NOT NULL,
    ean text,
    preco_cheio_antes numeric(12,2),
    preco_cheio_depois numeric(12,2),
    preco_desconto_antes numeric(12,2),
    preco_desconto_depois numeric(12,2),
    estoque_antes integer NOT NULL,
    estoque_depois integer NOT NULL
);


--
-- Name: TABLE erp_sync_audit_variante; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.erp_sync_audit_variante IS 'Before/after of every variant changed by a real-mode call of erp_sync() (one row per changed variant; unchanged variants are not rewritten and have no row). idx is the item''s 0-based index in the request. No foreign key to variante: the history outlives a deleted variant.';


--
-- Name: produto; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.produto (
    id bigint NOT NULL,
    codigo_erp text NOT NULL,
    nome text NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT produto_codigo_erp_check CHECK ((btrim(codigo_erp) <> ''::text)),
    CONSTRAINT produto_nome_check CHECK ((btrim(nome) <> ''::text))
);


--
-- Name: TABLE produto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.produto IS 'Product of the catalogue (natural key codigo_erp). Loaded by catalogo_carregar(jsonb); the ERP sync never creates products.';


--
-- Name: COLUMN produto.codigo_erp; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.produto.codigo_erp IS 'Code of the product in the ERP; natural key used by catalogo_carregar.';


--
-- Name: produto_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.produto ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.produto_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version character varying NOT NULL
);


--
-- Name: variante; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.variante (
    id bigint NOT NULL,
    produto_id bigint NOT NULL,
    sku text NOT NULL,
    ean text,
    preco_cheio numeric(12,2),
    preco_desconto numeric(12,2),
    estoque integer DEFAULT 0 NOT NULL,
    criado_em timestamp with time zone DEFAULT now() NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT variante_ean_check CHECK (((ean IS NULL) OR (btrim(ean) <> ''::text))),
    CONSTRAINT variante_estoque_check CHECK ((estoque >= 0)),
    CONSTRAINT variante_preco_cheio_check CHECK ((preco_cheio >= (0)::numeric)),
    CONSTRAINT variante_preco_desconto_check CHECK ((preco_desconto >= (0)::numeric)),
    CONSTRAINT variante_sku_check CHECK ((btrim(sku) <> ''::text))
);


--
-- Name: TABLE variante; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.variante IS 'Sellable variant of a product: sku (unique), EAN (several variants may share one: POST /sync/erp reports them as ambiguos), prices and stock. POST /sync/erp updates preco_cheio, preco_desconto and estoque.';


--
-- Name: COLUMN variante.ean; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.variante.ean IS 'GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) as registered; not unique. Matched by exact text.';


--
-- Name: COLUMN variante.preco_cheio; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.variante.preco_cheio IS 'Full price, the price on credit (a prazo).';


--
-- Name: COLUMN variante.preco_desconto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.variante.preco_desconto IS 'Discount price, the price for cash (à vista, promotional).';


--
-- Name: COLUMN variante.estoque; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.variante.estoque IS 'Stock quantity.';


--
-- Name: variante_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.variante ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.variante_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
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
-- Name: erp_sync_audit erp_sync_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erp_sync_audit
    ADD CONSTRAINT erp_sync_audit_pkey PRIMARY KEY (id);


--
-- Name: erp_sync_audit_variante erp_sync_audit_variante_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erp_sync_audit_variante
    ADD CONSTRAINT erp_sync_audit_variante_pkey PRIMARY KEY (audit_id, variante_id);


--
-- Name: produto produto_codigo_erp_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.produto
    ADD CONSTRAINT produto_codigo_erp_key UNIQUE (codigo_erp);


--
-- Name: produto produto_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.produto
    ADD CONSTRAINT produto_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: variante variante_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.variante
    ADD CONSTRAINT variante_pkey PRIMARY KEY (id);


--
-- Name: variante variante_sku_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.variante
    ADD CONSTRAINT variante_sku_key UNIQUE (sku);


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
-- Name: erp_sync_audit_called_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erp_sync_audit_called_at_idx ON public.erp_sync_audit USING btree (called_at);


--
-- Name: erp_sync_audit_idempotency_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erp_sync_audit_idempotency_idx ON public.erp_sync_audit USING btree (idempotency_key, id) WHERE ((idempotency_key IS NOT NULL) AND (replay_of IS NULL));


--
-- Name: erp_sync_audit_replay_of_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erp_sync_audit_replay_of_idx ON public.erp_sync_audit USING btree (replay_of) WHERE (replay_of IS NOT NULL);


--
-- Name: erp_sync_audit_variante_variante_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erp_sync_audit_variante_variante_idx ON public.erp_sync_audit_variante USING btree (variante_id, audit_id);


--
-- Name: variante_ean_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX variante_ean_idx ON public.variante USING btree (ean) WHERE (ean IS NOT NULL);


--
-- Name: variante_produto_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX variante_produto_idx ON public.variante USING btree (produto_id);


--
-- Name: bi_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: produto _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.produto FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: variante _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.variante FOR EACH ROW EXECUTE FUNCTION public.tg__touch_atualizado_em();


--
-- Name: bi_configuracao _900_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION public.tg_bi_configuracao__notify();


--
-- Name: erp_sync_audit erp_sync_audit_replay_of_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erp_sync_audit
    ADD CONSTRAINT erp_sync_audit_replay_of_fkey FOREIGN KEY (replay_of) REFERENCES public.erp_sync_audit(id) ON DELETE CASCADE;


--
-- Name: erp_sync_audit_variante erp_sync_audit_variante_audit_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erp_sync_audit_variante
    ADD CONSTRAINT erp_sync_audit_variante_audit_id_fkey FOREIGN KEY (audit_id) REFERENCES public.erp_sync_audit(id) ON DELETE CASCADE;


--
-- Name: variante variante_produto_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.variante
    ADD CONSTRAINT variante_produto_id_fkey FOREIGN KEY (produto_id) REFERENCES public.produto(id) ON DELETE CASCADE;


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
    ('20261122000400'),
    ('20261122100000'),
    ('20261122100100');
