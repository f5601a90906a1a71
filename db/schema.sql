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


--
-- Name: partner_pedido_lido; Type: TYPE; Schema: app; Owner: -
--

CREATE TYPE app.partner_pedido_lido AS (
	recurso jsonb,
	code text,
	status text,
	atualizado timestamp with time zone,
	pago_em timestamp with time zone,
	total numeric,
	cliente jsonb,
	itens jsonb,
	erro text
);


--
-- Name: TYPE partner_pedido_lido; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TYPE app.partner_pedido_lido IS 'An order of the platform as read by app.partner_pedido_ler: the payload (recurso), its code, status (lower-case), atualizado (updated_at, else the event''s time), pago_em, total, cliente (the customer object or {}), itens (the items array or null); erro: why it cannot be read (the PW422 message of partner_pedido_observar), the other fields then null.';


--
-- Name: xls_desfecho; Type: TYPE; Schema: app; Owner: -
--

CREATE TYPE app.xls_desfecho AS (
	processamento_id uuid,
	status text,
	alarmar boolean,
	motivo text,
	conjunto_fechado boolean,
	reprocessados uuid[]
);


--
-- Name: TYPE xls_desfecho; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TYPE app.xls_desfecho IS 'The outcome of a final transition of a processing (xls_concluir, xls_falhar, xls_ignorar): processamento_id, the new status, alarmar (whether staff are told now), motivo (the reason as recorded), conjunto_fechado (its batch closed with it) and reprocessados (processings of the batch put back in the queue by that close, or the processing itself on an automatic retry).';


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
    epoch bigint DEFAULT 0 NOT NULL,
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
-- Name: COLUMN job.epoch; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.job.epoch IS 'Fencing token of the current claim: +1 at every app.claim_jobs. app.complete_job and app.fail_job given p_epoch refuse (false / null) a claim that is not the current one.';


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
         attempts = j.attempts + 1, epoch = j.epoch + 1, updated_at = now()
    from candidate
   where j.id = candidate.id
  returning j.*;
$$;


--
-- Name: FUNCTION claim_jobs(p_worker text, p_kinds text[], p_max integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.claim_jobs(p_worker text, p_kinds text[], p_max integer) IS 'Claims up to p_max due jobs of the given kinds for one worker. Concurrent callers never receive the same job (FOR UPDATE SKIP LOCKED). Each claim increments epoch, the fencing token the worker passes back to app.complete_job / app.fail_job.';


--
-- Name: complete_job(text, bigint, bigint); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.complete_job(p_worker text, p_id bigint, p_epoch bigint DEFAULT NULL::bigint) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker and (p_epoch is null or epoch = p_epoch)
    returning 1
  )
  select exists (select from done);
$$;


--
-- Name: FUNCTION complete_job(p_worker text, p_id bigint, p_epoch bigint); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.complete_job(p_worker text, p_id bigint, p_epoch bigint) IS 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead), or when p_epoch (the fencing token returned by app.claim_jobs; the service always passes it) is not the current claim''s: a worker resumed after its job was reclaimed, even by itself, cannot close the new claim.';


--
-- Name: configuracao_tipo_dica(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.configuracao_tipo_dica(p_tipo text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case p_tipo
    when 'string' then 'texto livre'
    when 'integer' then 'número inteiro sem pontos nem vírgulas, até 9007199254740991 (ex.: 7000)'
    when 'boolean' then 'sim/não: true ou false'
    when 'duration' then 'duração como “30 s”, “5 minutos”, “2 horas”, “1 dia” (ou ISO-8601: PT30S, P1DT2H)'
    else 'tipo desconhecido: texto, número inteiro, sim/não ou duração'
  end;
$$;


--
-- Name: FUNCTION configuracao_tipo_dica(p_tipo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.configuracao_tipo_dica(p_tipo text) IS 'The configuration type in words for staff, with examples: the tail of the CF400 messages of configuracao_criar and configuracao_definir.';


--
-- Name: uuid_v7(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.uuid_v7() RETURNS uuid
    LANGUAGE sql PARALLEL SAFE
    AS $$
  -- RFC 9562 version 7: the first 48 bits are the Unix time in milliseconds (one clock reading),
  -- then the version (7), then random bits (those of gen_random_uuid(), whose variant bits stay).
  -- No SET search_path, unlike every other function: a sql function with a SET clause is never
  -- inlined, and inlined into a column default it costs a few tenths of a µs a row instead of a
  -- function call (~2 µs); every name is written with its schema, so no search_path can change
  -- what it calls (the conventions test allows this one function and checks it is inlined).
  select pg_catalog.encode(
           pg_catalog.set_bit(pg_catalog.set_bit(
             pg_catalog.overlay(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()),
               pg_catalog.substr(pg_catalog.int8send(pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint), 3),
               1, 6),
             52, 1), 53, 1),
           'hex')::uuid
$$;


--
-- Name: FUNCTION uuid_v7(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.uuid_v7() IS 'A new UUID of version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then random. The default of the generated primary keys (every table with a uuid id): each new row lands at the right edge of its primary key''s index instead of on a random page — on a 1,000,000-row table, 200,000 inserts took 20 % less time and wrote 22 % less WAL than with gen_random_uuid(). Ids of one millisecond are in random order among themselves; nothing reads the time from an id. Where an id must be unguessable, use gen_random_uuid(). Inlined into the defaults (no SET search_path; every name schema-qualified).';


--
-- Name: configuracao_valor_valido(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select p_valor is not null and public.configuracao_valor_normalizar(p_tipo, p_valor) is not distinct from p_valor;
$$;


--
-- Name: FUNCTION configuracao_valor_valido(p_tipo text, p_valor text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text) IS 'True when p_valor is a valid value for the configuration type p_tipo (string, integer, boolean, duration) in its stored form (configuracao_valor_normalizar returns it unchanged): the check of bi_configuracao.valor. configuracao_criar and configuracao_definir normalise first, so ''5 minutos'' is accepted there and stored as PT5M.';


--
-- Name: bi_configuracao; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_configuracao (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
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
-- Name: configuracao_travar(text, text, text, timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.configuracao_travar(p_chave text, p_acao text, p_valor text, p_versao_esperada timestamp with time zone, OUT linha public.bi_configuracao, OUT valor text) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_acao not in ('alterar', 'remover') then
    raise exception 'app.configuracao_travar: ação % desconhecida', p_acao using errcode = 'CF400';
  end if;
  select * into linha from public.bi_configuracao c where c.chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if linha.sistema then
    raise exception 'a chave % é do sistema e não pode ser %', p_chave,
      case p_acao when 'alterar' then 'alterada' else 'removida' end using errcode = 'CF403';
  end if;
  if p_acao = 'alterar' then
    valor := public.configuracao_valor_normalizar(linha.tipo, p_valor);
    if valor is null then
      raise exception 'valor ''%'' inválido para a chave %: use %', coalesce(p_valor, ''), p_chave, app.configuracao_tipo_dica(linha.tipo) using errcode = 'CF400';
    end if;
  end if;
  -- compared at millisecond precision: the version travels through JSON as an ISO-8601 string
  if p_versao_esperada is not null and date_trunc('milliseconds', linha.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, linha.atualizado_em
      using errcode = 'CF409';
  end if;
end;
$$;


--
-- Name: FUNCTION configuracao_travar(p_chave text, p_acao text, p_valor text, p_versao_esperada timestamp with time zone, OUT linha public.bi_configuracao, OUT valor text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.configuracao_travar(p_chave text, p_acao text, p_valor text, p_versao_esperada timestamp with time zone, OUT linha public.bi_configuracao, OUT valor text) IS 'Internal, the one precedence of configuracao_definir (p_acao alterar) and configuracao_remover (remover): locks the key''s row and returns it (linha), with, for alterar, p_valor in the form configuracao_valor_normalizar gives (valor). Errors in this order: CF404 unknown key, CF403 system key, CF400 (alterar only) value invalid for the key''s type, CF409 the row changed since p_versao_esperada (its atualizado_em, at millisecond precision).';


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
-- Name: fail_job(text, bigint, text, bigint); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text, p_epoch bigint DEFAULT NULL::bigint) RETURNS text
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
   where id = p_id and status = 'running' and locked_by = p_worker and (p_epoch is null or epoch = p_epoch)
  returning status into v_status;
  return v_status;
end;
$$;


--
-- Name: FUNCTION fail_job(p_worker text, p_id bigint, p_error text, p_epoch bigint); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text, p_epoch bigint) IS 'Records a failed attempt: back to pending with exponential backoff (2^attempts s, at most 10 min), or failed when max_attempts is reached. Returns the new status, or null when the worker no longer holds the job or p_epoch (the fencing token of app.claim_jobs) is not the current claim''s.';


--
-- Name: json_estoque(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.json_estoque(p_valor jsonb) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select app.json_numero(p_valor, 0, 2147483647, 0)::integer;
$$;


--
-- Name: FUNCTION json_estoque(p_valor jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.json_estoque(p_valor jsonb) IS 'The stock quantity in a JSON value when it is a JSON number with an integral value between 0 and 2147483647 (10.0 counts as 10); otherwise null.';


--
-- Name: json_numero(jsonb, numeric, numeric, integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.json_numero(p_valor jsonb, p_min numeric, p_max numeric, p_decimais integer) RETURNS numeric
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
  if n >= p_min and n <= p_max and n = round(n, p_decimais) then
    return n;
  end if;
  return null;
end;
$$;


--
-- Name: FUNCTION json_numero(p_valor jsonb, p_min numeric, p_max numeric, p_decimais integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.json_numero(p_valor jsonb, p_min numeric, p_max numeric, p_decimais integer) IS 'The number in a JSON value when it is a JSON number between p_min and p_max (both included) with at most p_decimais decimals (10.0 has none); otherwise null (a string such as "10.50" is not a number). The one shape of app.json_preco and app.json_estoque.';


--
-- Name: json_preco(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.json_preco(p_valor jsonb) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  -- below 10^10 with 2 decimals: at most 9999999999.99
  select app.json_numero(p_valor, 0, 9999999999.99, 2);
$$;


--
-- Name: FUNCTION json_preco(p_valor jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.json_preco(p_valor jsonb) IS 'The price in a JSON value when it is a JSON number, not negative, below 10^10 and with at most 2 decimals; otherwise null (strings such as "10.50" are not prices).';


--
-- Name: login_tentativa; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.login_tentativa (
    state text NOT NULL,
    nonce text NOT NULL,
    code_verifier text NOT NULL,
    destino text NOT NULL,
    criada_em timestamp with time zone DEFAULT now() NOT NULL,
    expira_em timestamp with time zone DEFAULT (now() + '00:10:00'::interval) NOT NULL,
    CONSTRAINT login_tentativa_destino_check CHECK (((destino ~ '^/'::text) AND (destino !~ '^//'::text) AND (destino !~ '^/\\'::text))),
    CONSTRAINT login_tentativa_state_check CHECK ((length(state) >= 32))
);


--
-- Name: TABLE login_tentativa; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.login_tentativa IS 'Identity-provider logins started and not yet finished: the OAuth state (also the CSRF token of the callback), the OIDC nonce, the PKCE code verifier and the local path to return to. A row is consumed once by the callback (app.login_consumir) and lives at most 10 minutes.';


--
-- Name: login_consumir(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.login_consumir(p_state text) RETURNS SETOF app.login_tentativa
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  delete from app.login_tentativa where state = p_state and expira_em > now() returning *;
$$;


--
-- Name: FUNCTION login_consumir(p_state text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.login_consumir(p_state text) IS 'The login callback takes its pending login once: the row of that state (deleted), or no row when the state is unknown, already used or expired (the callback then answers 400).';


--
-- Name: login_iniciar(text, text, text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.login_iniciar(p_state text, p_nonce text, p_code_verifier text, p_destino text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_state is null or length(p_state) < 32 or p_nonce is null or p_code_verifier is null then
    raise exception 'login sem state, nonce ou code verifier' using errcode = 'SS400';
  end if;
  insert into app.login_tentativa (state, nonce, code_verifier, destino)
  values (p_state, p_nonce, p_code_verifier,
          case when p_destino ~ '^/' and p_destino !~ '^//' and p_destino !~ '^/\\' then p_destino else '/' end);
end;
$$;


--
-- Name: FUNCTION login_iniciar(p_state text, p_nonce text, p_code_verifier text, p_destino text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.login_iniciar(p_state text, p_nonce text, p_code_verifier text, p_destino text) IS 'Records an identity-provider login being started: OAuth state, OIDC nonce, PKCE code verifier and the local path to return to (anything but a local path becomes /). Valid 10 minutes. SS400 when a part is missing.';


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
  if p_tipo in ('webhook_parado', 'webhook_voltou', 'conciliacao_incompleta') then
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

COMMENT ON FUNCTION app.partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamp with time zone) IS 'Records a notice, its e-mails (one per active recipient, for webhook_parado, webhook_voltou and conciliacao_incompleta) and enqueues the job that carries it out.';


--
-- Name: partner_gate(uuid[], timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_gate(p_ids uuid[], p_agora timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_desde timestamptz := (select gate_primeira_captura_desde from public.partner_configuracao);
  v_ids uuid[];
  v_motivos text[];
begin
  select array_agg(p.id), array_agg(m.motivo) into v_ids, v_motivos
    from public.partner_pedido p
    cross join lateral (select case
        when p.nao_pago_visto_em < p.recebido_visto_em then 'gate_transicao'
        when v_desde is not null and p.pago_em >= v_desde then 'gate_resgate_primeira_captura' end as motivo) m
   where p.id = any(p_ids) and p.estado = 'CAPTURADO' and app.partner_status_pago(p.status) and m.motivo is not null;
  if v_ids is null then
    return 0; -- first seen already paid: stays CAPTURADO, no alarm, until Enfileirar
  end if;
  perform app.partner_transicoes(v_ids, 'ENFILEIRADO', v_motivos, p_agora);
  return cardinality(v_ids);
end;
$$;


--
-- Name: FUNCTION partner_gate(p_ids uuid[], p_agora timestamp with time zone); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_gate(p_ids uuid[], p_agora timestamp with time zone) IS 'The release rule, for a set of orders (one statement, then app.partner_transicoes for those released). A CAPTURADO order whose newest status is paid is released (ENFILEIRADO) when the transition to received was witnessed: an unpaid observation (waiting_payment/refused) older than a received one, whatever their arrival order (gate_transicao); or, when partner_configuracao.gate_primeira_captura_desde is set, when its paid_at is at or after that instant (gate_resgate_primeira_captura). Otherwise it stays CAPTURADO until Enfileirar. Returns how many were released.';


--
-- Name: partner_instante_valido(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_instante_valido(p_texto text) RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  -- one subtransaction per call: only app.partner_pedido_ler's second pass calls it, after the
  -- cast of a whole set failed (Postgres 15 has no pg_input_is_valid)
  perform p_texto::timestamptz;
  return true;
exception when data_exception then
  return false;
end;
$$;


--
-- Name: FUNCTION partner_instante_valido(p_texto text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_instante_valido(p_texto text) IS 'Whether the text is a valid timestamptz input (in the session''s time zone), without raising. One subtransaction per call: used only by app.partner_pedido_ler when the cast of a whole set of instants failed.';


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
-- Name: partner_pedido_aplicar(app.partner_pedido_lido[], text, timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_pedido_aplicar(p_lidos app.partner_pedido_lido[], p_origem text, p_agora timestamp with time zone) RETURNS text[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_n integer := coalesce(cardinality(p_lidos), 0);
  v_resultados text[] := array_fill(null::text, array[v_n]);
  v_rodadas integer[];
  v_rodada integer := 0;
  v_ultima integer;
  v_criados integer[];
  v_ids uuid[];
  v_n_alvo integer[];
  v_res_alvo text[];
  v_mudados uuid[];
  v_cancelar uuid[];
  v_posicao jsonb;
  v_codigos text[];
  v_legiveis integer;
begin
  -- Rounds: an order observed several times in the set is applied once per round, in the set's
  -- order (its k-th observation in round k), so each statement below sees each code at most
  -- once and a later observation sees what the earlier one did; different orders do not meet.
  select array_agg(s.k order by s.n), max(s.k), count(s.k) into v_rodadas, v_ultima, v_legiveis
    from (select l.ordinality as n, case when l.erro is null then row_number() over (partition by l.code order by l.ordinality) end as k
            from unnest(p_lidos) with ordinality l) s;

  while v_rodada < coalesce(v_ultima, 0) loop
    v_rodada := v_rodada + 1;
    -- code -> position of this round's observations (a code appears once in a round)
    select jsonb_object_agg(l.code, l.ordinality), array_agg(l.code) into v_posicao, v_codigos
      from unnest(p_lidos) with ordinality l where v_rodadas[l.ordinality] = v_rodada;

    -- new orders, with their 'captura' transition
    with novo as (
      insert into public.partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro,
          cliente_nome, cliente_email, cliente_documento, itens, recurso, origem, nao_pago_visto_em, recebido_visto_em)
      select l.code, case when l.status = 'cancelled' then 'CANCELADO' else 'CAPTURADO' end, l.status, l.total, l.pago_em,
             l.atualizado, l.cliente ->> 'name', l.cliente ->> 'email', l.cliente ->> 'document', coalesce(l.itens, '[]'), l.recurso, p_origem,
             case when l.status in ('waiting_payment', 'refused') then l.atualizado end,
             case when l.status = 'received' then l.atualizado end
        from unnest(p_lidos) with ordinality l
       where v_rodadas[l.ordinality] = v_rodada
      on conflict (code) do nothing
      returning id, code, estado, status
    ), captura as (
      insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
      select novo.id, null, novo.estado, 'captura', p_agora from novo
    )
    select array_agg((v_posicao ->> novo.code)::integer), array_agg(novo.id) filter (where novo.estado = 'CAPTURADO' and app.partner_status_pago(novo.status))
      into v_criados, v_ids
      from novo;

    -- orders that exist: the newest observation (updated_at, then lifecycle rank) wins; an older
    -- one never overwrites the state but still counts as gate evidence (the instants seen unpaid
    -- and received, a paid_at not known yet)
    if coalesce(cardinality(v_criados), 0) < cardinality(v_codigos) then
      with alvo as (
        select l.ordinality as n, p.id, l.code, l.status, l.total, l.pago_em, l.atualizado, l.cliente, l.itens, l.recurso,
               (l.atualizado, app.partner_status_ordem(l.status)) > (p.atualizado_no_parceiro, app.partner_status_ordem(p.status)) as mais_novo,
               l.atualizado = p.atualizado_no_parceiro and l.status = p.status as igual
          from unnest(p_lidos) with ordinality l
          join public.partner_pedido p on p.code = l.code and p.code = any(v_codigos) -- by its index, whatever the plan
         where v_rodadas[l.ordinality] = v_rodada and l.ordinality <> all(coalesce(v_criados, '{}'))
           for update of p
      ), mudou as (
        update public.partner_pedido p set
          status = case when a.mais_novo then a.status else p.status end,
          total = case when a.mais_novo then coalesce(a.total, p.total) else p.total end,
          pago_em = case when a.mais_novo then coalesce(a.pago_em, p.pago_em) else coalesce(p.pago_em, a.pago_em) end,
          atualizado_no_parceiro = greatest(p.atualizado_no_parceiro, a.atualizado),
          cliente_nome = case when a.mais_novo then coalesce(a.cliente ->> 'name', p.cliente_nome) else p.cliente_nome end,
          cliente_email = case when a.mais_novo then coalesce(a.cliente ->> 'email', p.cliente_email) else p.cliente_email end,
          cliente_documento = case when a.mais_novo then coalesce(a.cliente ->> 'document', p.cliente_documento) else p.cliente_documento end,
          itens = case when a.mais_novo then coalesce(a.itens, p.itens) else p.itens end,
          recurso = case when a.mais_novo then a.recurso else p.recurso end,
          origem = case when a.mais_novo then p_origem else p.origem end,
          nao_pago_visto_em = case when a.status in ('waiting_payment', 'refused')
                                then least(p.nao_pago_visto_em, a.atualizado) else p.nao_pago_visto_em end,
          recebido_visto_em = case when a.status = 'received'
                                then greatest(p.recebido_visto_em, a.atualizado) else p.recebido_visto_em end
          from alvo a
         where p.id = a.id
           and (a.mais_novo
             or (a.pago_em is not null and p.pago_em is null)
             or (a.status in ('waiting_payment', 'refused') and p.nao_pago_visto_em is distinct from least(p.nao_pago_visto_em, a.atualizado))
             or (a.status = 'received' and p.recebido_visto_em is distinct from greatest(p.recebido_visto_em, a.atualizado)))
        returning p.id, p.estado, p.status
      )
      select array_agg(a.n), array_agg(case when a.mais_novo then 'atualizado' when a.igual then 'repetido' else 'obsoleto' end),
             array_agg(m.id) filter (where m.estado = 'CAPTURADO' and app.partner_status_pago(m.status)),
             array_agg(m.id) filter (where m.status = 'cancelled' and m.estado <> 'CANCELADO')
        into v_n_alvo, v_res_alvo, v_mudados, v_cancelar
        from alvo a left join mudou m on m.id = a.id;
      for i in 1 .. coalesce(cardinality(v_n_alvo), 0) loop
        v_resultados[v_n_alvo[i]] := v_res_alvo[i];
      end loop;
      -- a newer cancelled status moves the order to CANCELADO (nothing new: no transition, no gate)
      if v_cancelar is not null then
        perform app.partner_transicoes(v_cancelar, 'CANCELADO', array_fill('cancelamento'::text, array[cardinality(v_cancelar)]), p_agora);
      end if;
      v_ids := coalesce(v_ids, '{}') || coalesce(v_mudados, '{}');
    end if;
    for i in 1 .. coalesce(cardinality(v_criados), 0) loop
      v_resultados[v_criados[i]] := 'criado';
    end loop;

    -- the gate decides for every order created or changed that it could release (CAPTURADO with a
    -- paid status, from the rows the statements returned: the others are not even read again)
    if cardinality(v_ids) > 0 then
      perform app.partner_gate(v_ids, p_agora);
    end if;
  end loop;

  if coalesce(cardinality(array_remove(v_resultados, null)), 0) <> v_legiveis then
    raise exception 'partner_pedido_aplicar: pedido sem resultado (apagado durante a normalização?)';
  end if;
  return v_resultados;
end;
$$;


--
-- Name: FUNCTION partner_pedido_aplicar(p_lidos app.partner_pedido_lido[], p_origem text, p_agora timestamp with time zone); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_pedido_aplicar(p_lidos app.partner_pedido_lido[], p_origem text, p_agora timestamp with time zone) IS 'Applies a set of orders read by app.partner_pedido_ler (those with erro are skipped: null result) to partner_pedido, in the set''s order, with a few set-based statements per round (an order observed k times in the set is applied in k rounds): new codes inserted (ON CONFLICT DO NOTHING) with their ''captura'' transition; existing ones locked and updated when the observation is newer (updated_at, then lifecycle rank) or is new gate evidence; a newer cancelled status moves the order to CANCELADO (app.partner_transicoes); then app.partner_gate for the orders created or changed that is CAPTURADO with a paid status. Returns criado | atualizado | obsoleto | repetido per element. The one place of these rules: partner_pedido_observar (one order) and the webhook''s batches call it.';


--
-- Name: partner_pedido_ler(jsonb[], text[], jsonb[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_pedido_ler(p_recursos jsonb[], p_eventos text[], p_tempos jsonb[]) RETURNS app.partner_pedido_lido[]
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_seguro boolean := false;
  v_lidos app.partner_pedido_lido[];
begin
  -- The reading rules of an order payload, for a whole set in one statement: each check is a
  -- CASE, nothing raises, except the cast of an instant that has the ISO shape but is not one
  -- (2026-13-45): the first pass casts every instant of the set at once, in one subtransaction;
  -- if one fails, the second pass (v_seguro) checks each with app.partner_instante_valido first.
  -- The checks, in this order, give the message of the first that fails (erro): payload not an
  -- object; no code; unknown status (a missing one comes from the event: order.paid -> received,
  -- order.cancelled -> cancelled); updated_at not an instant, else (updated_at absent) the
  -- event's time not one; neither; paid_at not one; total not a number.
  loop
    begin
      -- materialized steps: each expression evaluated once per payload (inlined, the error's CASE
      -- and every cast were copied into each column that reads them)
      with v as materialized (
        select r.n, r.recurso, btrim(r.recurso ->> 'code') as code,
               lower(btrim(coalesce(r.recurso ->> 'status',
                 case r.evento when 'order.cancelled' then 'cancelled' when 'order.paid' then 'received' end))) as status,
               r.recurso -> 'updated_at' as atualizado,
               -- the event's time stands in only for an absent (or JSON null) updated_at
               case when coalesce(jsonb_typeof(r.recurso -> 'updated_at'), 'null') = 'null' then r.tempo end as tempo,
               r.recurso -> 'paid_at' as pago_em,
               r.recurso -> 'total' as total
          from unnest(p_recursos, p_eventos, p_tempos) with ordinality r(recurso, evento, tempo, n)
      ), d as materialized (
        select v.*,
               case when jsonb_typeof(v.atualizado) = 'string' and v.atualizado #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.atualizado #>> '{}'))
                    then (v.atualizado #>> '{}')::timestamptz end as atualizado_em,
               case when jsonb_typeof(v.tempo) = 'string' and v.tempo #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.tempo #>> '{}'))
                    then (v.tempo #>> '{}')::timestamptz end as tempo_em,
               case when jsonb_typeof(v.pago_em) = 'string' and v.pago_em #>> '{}' ~ '^\d{4}-\d{2}-\d{2}'
                         and (not v_seguro or app.partner_instante_valido(v.pago_em #>> '{}'))
                    then (v.pago_em #>> '{}')::timestamptz end as pago_em_em
          from v
      ), e as materialized (
        select d.*, case
            when coalesce(jsonb_typeof(d.recurso) <> 'object', true) then 'o pedido não é um objeto JSON'
            when coalesce(jsonb_typeof(d.recurso -> 'code') not in ('string', 'number'), true) or nullif(d.code, '') is null
              then 'pedido sem code'
            when d.status is null or app.partner_status_ordem(d.status) is null
              then 'pedido ' || d.code || ': status desconhecido ' || coalesce(d.recurso ->> 'status', '(ausente)')
            when coalesce(jsonb_typeof(d.atualizado), 'null') <> 'null' and d.atualizado_em is null
              then 'campo updated_at não é uma data ISO-8601: ' || left(d.atualizado::text, 100)
            when coalesce(jsonb_typeof(d.tempo), 'null') <> 'null' and d.tempo_em is null
              then 'campo time não é uma data ISO-8601: ' || left(d.tempo::text, 100)
            when d.atualizado_em is null and d.tempo_em is null then 'pedido ' || d.code || ': sem updated_at'
            when coalesce(jsonb_typeof(d.pago_em), 'null') <> 'null' and d.pago_em_em is null
              then 'campo paid_at não é uma data ISO-8601: ' || left(d.pago_em::text, 100)
            when coalesce(jsonb_typeof(d.total), 'null') <> 'null' and not (jsonb_typeof(d.total) = 'number'
                   or (jsonb_typeof(d.total) = 'string' and d.total #>> '{}' ~ '^\s*-?\d+(\.\d+)?\s*$'))
              then 'campo total não é um número: ' || left(d.total::text, 100)
          end as erro
          from d
      )
      select coalesce(array_agg(case when e.erro is null then
                 row(e.recurso, e.code, e.status, coalesce(e.atualizado_em, e.tempo_em), e.pago_em_em,
                     case when coalesce(jsonb_typeof(e.total), 'null') <> 'null' then (e.total #>> '{}')::numeric end,
                     case when jsonb_typeof(e.recurso -> 'customer') = 'object' then e.recurso -> 'customer' else '{}' end,
                     case when jsonb_typeof(e.recurso -> 'items') = 'array' then e.recurso -> 'items' end,
                     null)::app.partner_pedido_lido
               else row(e.recurso, null, null, null, null, null, null, null, e.erro)::app.partner_pedido_lido end
               order by e.n), '{}')
        into v_lidos
        from e;
      return v_lidos;
    exception when data_exception then
      if v_seguro then
        raise;
      end if;
      v_seguro := true; -- an instant of the set is not one: again, each checked before its cast
    end;
  end loop;
end;
$_$;


--
-- Name: FUNCTION partner_pedido_ler(p_recursos jsonb[], p_eventos text[], p_tempos jsonb[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_pedido_ler(p_recursos jsonb[], p_eventos text[], p_tempos jsonb[]) IS 'Reads a set of order payloads of the platform (p_recursos, with the event of each, p_eventos, and the event''s time, p_tempos) in one statement: one app.partner_pedido_lido per payload, in order, with erro set (the PW422 message) when it cannot be read: not an object, no code, unknown status (a missing one comes from the event: order.paid -> received, order.cancelled -> cancelled), updated_at (else the event''s time) or paid_at not an ISO-8601 instant, no updated_at nor time, total not a number. The one place of the reading rules: partner_pedido_observar (one payload) and the webhook''s batches (app.partner_webhook_normalizar_ids) call it. One subtransaction per call; a second pass only when an instant with the ISO shape fails its cast.';


--
-- Name: partner_status_ordem(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_status_ordem(p_status text) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  -- plpgsql, not sql: a sql function with a pinned search_path is never inlined and is parsed
  -- and planned again by every statement that calls it (partner_pedido's CHECK, the normalisation)
  return case p_status
    when 'waiting_payment' then 1 when 'refused' then 2 when 'received' then 3 when 'invoiced' then 4
    when 'shipped' then 5 when 'delivered' then 6 when 'cancelled' then 7 end;
end;
$$;


--
-- Name: FUNCTION partner_status_ordem(p_status text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_status_ordem(p_status text) IS 'Lifecycle rank of a platform order status; breaks ties between two observations with the same updated_at (the later stage wins), so the final state never depends on arrival order. Null for an unknown status.';


--
-- Name: partner_status_pago(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_status_pago(p_status text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  -- plpgsql, not sql: see app.partner_status_ordem
  return p_status in ('received', 'invoiced', 'shipped', 'delivered');
end;
$$;


--
-- Name: FUNCTION partner_status_pago(p_status text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_status_pago(p_status text) IS 'The platform status says the order is paid (received or a later stage).';


--
-- Name: partner_pedido; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_pedido (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
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
    CONSTRAINT partner_pedido_origem_check CHECK ((origem = ANY (ARRAY['webhook'::text, 'poll'::text, 'contingencia'::text, 'manual'::text, 'conciliacao'::text]))),
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
-- Name: partner_transicao(public.partner_pedido, text, text, timestamp with time zone, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text DEFAULT NULL::text) RETURNS public.partner_pedido
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  return (app.partner_transicoes(array[p_pedido.id], p_para, array[p_motivo], p_agora, p_por))[1];
end;
$$;


--
-- Name: FUNCTION partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamp with time zone, p_por text) IS 'Moves an order to another local state and records it in partner_pedido_transicao; a release sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue. app.partner_transicoes with a set of one.';


--
-- Name: partner_transicoes(uuid[], text, text[], timestamp with time zone, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_transicoes(p_ids uuid[], p_para text, p_motivos text[], p_agora timestamp with time zone, p_por text DEFAULT NULL::text) RETURNS public.partner_pedido[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_rows public.partner_pedido[];
begin
  -- one UPDATE of the orders, one INSERT of their transitions (from the state each was in), the
  -- NOTIFY of each release
  with antes as (
    select m.id, m.motivo, p.estado as de
      from unnest(p_ids, p_motivos) m(id, motivo) join public.partner_pedido p on p.id = m.id and p.id = any(p_ids)
       for update of p
  ), mudou as (
    update public.partner_pedido p set
      estado = p_para,
      enfileirado_em = case when p_para = 'ENFILEIRADO' then p_agora else p.enfileirado_em end,
      enfileirado_por = case when p_para = 'ENFILEIRADO' then coalesce(p_por, a.motivo) else p.enfileirado_por end,
      liberacao = case when p_para = 'ENFILEIRADO' then
                    case when a.motivo in ('gate_transicao', 'gate_resgate_primeira_captura') then a.motivo else 'console' end
                  else p.liberacao end
      from antes a
     where p.id = a.id and p.id = any(p_ids)
    returning p as linha, a.de, a.motivo
  ), registro as (
    insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
    select (m.linha).id, m.de, p_para, m.motivo, p_agora from mudou m
  )
  select array_agg(m.linha), count(case when p_para = 'ENFILEIRADO' then pg_notify('partner_pedidos', (m.linha).code) end)
    into v_rows
    from mudou m;
  return coalesce(v_rows, '{}');
end;
$$;


--
-- Name: FUNCTION partner_transicoes(p_ids uuid[], p_para text, p_motivos text[], p_agora timestamp with time zone, p_por text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_transicoes(p_ids uuid[], p_para text, p_motivos text[], p_agora timestamp with time zone, p_por text) IS 'Moves a set of orders to another local state (p_motivos: the reason of each) and records each in partner_pedido_transicao (from the state it was in), with one UPDATE and one INSERT; a release (ENFILEIRADO) sets enfileirado_em, enfileirado_por (p_por, else the reason) and liberacao (the gate''s reason, else console) and sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue. Returns the orders as they became. app.partner_transicao is the same for one order.';


--
-- Name: partner_webhook_normalizar_ids(uuid[], timestamp with time zone); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.partner_webhook_normalizar_ids(p_ids uuid[], p_agora timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_json jsonb[];
  v_erro text[];
  v_pos integer[];
  v_recursos jsonb[];
  v_eventos text[];
  v_tempos jsonb[];
  v_lidos app.partner_pedido_lido[];
  v_res text[];
  v_de_pedido boolean[];
  v_erro_pedido text[];
  v_res_evento text[];
  v_revisar integer;
begin
  if coalesce(cardinality(p_ids), 0) = 0 then
    return 0;
  end if;
  -- Every statement that joins a set with a table also names the table's keys with = any(…): the
  -- table is then read by its index for the set's keys, whatever plan the planner makes (a join
  -- alone let it read the whole index and hash it, a cost that grows with the table).
  -- 1. the bodies as JSON, the whole set's cast at once (one subtransaction); when one is not
  -- UTF-8 JSON (or holds \u0000), each is cast in its own and the failing ones keep the message
  begin
    select array_agg(convert_from(w.corpo, 'UTF8')::jsonb order by u.n) into v_json
      from unnest(p_ids) with ordinality u(id, n) join public.partner_webhook w on w.id = u.id and w.id = any(p_ids);
  exception when data_exception then
    v_json := array_fill(null::jsonb, array[cardinality(p_ids)]);
    v_erro := array_fill(null::text, array[cardinality(p_ids)]);
    for i in 1 .. cardinality(p_ids) loop
      begin
        v_json[i] := (select convert_from(w.corpo, 'UTF8')::jsonb from public.partner_webhook w where w.id = p_ids[i]);
      exception when data_exception then
        v_erro[i] := left(sqlerrm, 500);
      end;
    end loop;
  end;
  if coalesce(cardinality(v_json), 0) <> cardinality(p_ids) then
    raise exception 'partner_webhook_normalizar_ids: evento inexistente entre %', p_ids;
  end if;

  -- 2. the order events (an object with a known event): read, then applied, as one set each
  select array_agg(u.n order by u.n), array_agg(u.j -> 'resource' order by u.n), array_agg(u.j ->> 'event' order by u.n),
         array_agg(u.j -> 'time' order by u.n)
    into v_pos, v_recursos, v_eventos, v_tempos
    from unnest(v_json) with ordinality u(j, n)
   where jsonb_typeof(u.j) = 'object' and u.j ->> 'event' in ('order.created', 'order.paid', 'order.status.updated', 'order.cancelled');
  if v_pos is not null then
    v_lidos := app.partner_pedido_ler(v_recursos, v_eventos, v_tempos);
    v_res := app.partner_pedido_aplicar(v_lidos, 'webhook', p_agora);
  end if;

  -- what step 2 said of each event, by the event's position (v_pos[i] is the position of the
  -- i-th order event): placed by a loop and zipped by unnest() below, not joined — a join of two
  -- unnest()s is planned from a guess of 10 rows each and may become a nested loop that reads the
  -- orders again for every event (quadratic: 11 ms instead of 0.3 for a batch of 200)
  v_de_pedido := array_fill(false, array[cardinality(p_ids)]);
  v_erro_pedido := array_fill(null::text, array[cardinality(p_ids)]);
  v_res_evento := array_fill(null::text, array[cardinality(p_ids)]);
  for i in 1 .. coalesce(cardinality(v_pos), 0) loop
    v_de_pedido[v_pos[i]] := true;
    v_erro_pedido[v_pos[i]] := (v_lidos[i]).erro;
    v_res_evento[v_pos[i]] := v_res[i];
  end loop;

  -- 3. every row as it must become, by one UPDATE: a body that is not JSON keeps what the row
  -- had (a reprocessed event), one that is not an object gets its payload, an unknown event its
  -- code and event (cut to 100), an unreadable order (PW422's message) or a result
  with x as (
    select u.id, u.j, u.erro, jsonb_typeof(u.j) as tipo, u.j ->> 'event' as ev, u.de_pedido, u.erro_pedido, u.res
      from unnest(p_ids, v_json, coalesce(v_erro, array_fill(null::text, array[cardinality(p_ids)])), v_de_pedido, v_erro_pedido, v_res_evento)
             u(id, j, erro, de_pedido, erro_pedido, res)
  ), y as (
    select x.*, case
        when x.j is null then 'json_invalido'
        when x.tipo <> 'object' then 'formato_desconhecido'
        when not x.de_pedido then 'evento_desconhecido' -- not among the order events of step 2
        when x.erro_pedido is not null then 'pedido_invalido'
        else x.res end as resultado
      from x
  ), escrito as (
  update public.partner_webhook w set
    situacao = case when y.resultado in ('criado', 'atualizado', 'obsoleto', 'repetido') then 'NORMALIZADO' else 'REVISAR' end,
    resultado = y.resultado,
    detalhe = case y.resultado
      when 'json_invalido' then y.erro
      when 'formato_desconhecido' then 'o corpo é JSON mas não é um objeto'
      when 'evento_desconhecido' then 'evento ' || coalesce(quote_literal(y.ev), 'ausente')
      when 'pedido_invalido' then left(y.erro_pedido, 500) end,
    evento = case y.resultado when 'json_invalido' then w.evento when 'formato_desconhecido' then w.evento
      when 'evento_desconhecido' then left(y.ev, 100) else y.ev end,
    code = case y.resultado when 'json_invalido' then w.code when 'formato_desconhecido' then w.code
      else case when jsonb_typeof(y.j -> 'resource') = 'object' then nullif(btrim(y.j -> 'resource' ->> 'code'), '') end end,
    payload = case y.resultado when 'json_invalido' then w.payload else y.j end,
    processado_em = p_agora
    from y
   where w.id = y.id and w.id = any(p_ids)
  returning w.situacao
  )
  select count(*) filter (where situacao = 'REVISAR') into v_revisar from escrito;
  return v_revisar;
end;
$$;


--
-- Name: FUNCTION partner_webhook_normalizar_ids(p_ids uuid[], p_agora timestamp with time zone); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.partner_webhook_normalizar_ids(p_ids uuid[], p_agora timestamp with time zone) IS 'Normalises the given stored events (locked by the caller), in the given order, as one set: the bodies cast to JSON in one statement (each on its own only when one is not UTF-8 JSON), the order events read by app.partner_pedido_ler and applied by app.partner_pedido_aplicar (a few statements per batch, not per event), then every row written by one UPDATE: situacao NORMALIZADO with the result (criado, atualizado, obsoleto, repetido) or REVISAR with the reason (json_invalido: the cast''s message; formato_desconhecido: JSON but not an object; evento_desconhecido; pedido_invalido: the reading''s message), evento, code, payload, processado_em = p_agora. Unexpected errors propagate. Returns how many were flagged REVISAR. partner_webhook_normalizar calls it with one event, partner_webhook_normalizar_lote with a batch.';


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

COMMENT ON FUNCTION app.pascoa(p_ano integer) IS 'Easter Sunday of a Gregorian year (Good Friday, a national holiday, is two days before: public.feriado_nacional).';


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
-- Name: replicacao_id_hash(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.replicacao_id_hash(p_id text) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select ('x' || left(md5(p_id), 8))::bit(32)::bigint;
$$;


--
-- Name: FUNCTION replicacao_id_hash(p_id text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.replicacao_id_hash(p_id text) IS 'A 32-bit number from a row id (the first 8 hex digits of its md5). Summed per table on both sides of the parity check (replicacao_paridade_postgres here, the same expression over the engine''s storage), so that two sets of ids with the same count but different members differ.';


--
-- Name: replicacao_slots_observar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.replicacao_slots_observar() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_n integer;
begin
  -- a slot dropped since the last look: its row goes (a new slot of the same name starts afresh)
  delete from app.replicacao_slot_visto v
   where not exists (select from pg_replication_slots s
                      where s.database = current_database() and s.slot_name::text = v.slot);
  insert into app.replicacao_slot_visto as v (slot, observado_desde, visto_em, ativo_visto_em)
  select s.slot_name::text, now(), now(), case when s.active then now() end
    from pg_replication_slots s
   where s.database = current_database()
  on conflict (slot) do update set
    visto_em = excluded.visto_em,
    -- a gap of more than 5 minutes between two looks (pg_cron stopped): what happened in it is
    -- unknown, so the slot is observed anew from this look
    observado_desde = case when v.visto_em < excluded.visto_em - interval '5 minutes'
                           then excluded.observado_desde else v.observado_desde end,
    ativo_visto_em = case when v.visto_em < excluded.visto_em - interval '5 minutes'
                          then excluded.ativo_visto_em
                          else coalesce(excluded.ativo_visto_em, v.ativo_visto_em) end;
  get diagnostics v_n = row_count;
  return v_n;
end;
$$;


--
-- Name: FUNCTION replicacao_slots_observar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.replicacao_slots_observar() IS 'Looks at every replication slot of this database and records in app.replicacao_slot_visto when each was last seen active (a client holding it), so that public.replicacao_saude can say since when an inactive slot is inactive (Postgres 15 does not record it). Run every minute by the pg_cron job replicacao_slots_observar; returns how many slots it saw. A gap of more than 5 minutes between two looks restarts the observation of every slot.';


--
-- Name: xls_resetar_replicator; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_resetar_replicator (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    status text DEFAULT 'EM_ANDAMENTO'::text NOT NULL,
    step_atual text,
    step_falho text,
    erro_mensagem text,
    motivo text,
    solicitante text,
    estrategia text,
    job_id bigint,
    worker text,
    assumido_em timestamp with time zone,
    slots_removidos text[] DEFAULT '{}'::text[] NOT NULL,
    slot_novo text,
    ultimo_nuke text,
    iniciado_em timestamp with time zone DEFAULT now() NOT NULL,
    finalizado_em timestamp with time zone,
    paridade jsonb,
    CONSTRAINT xls_resetar_replicator_erro_tem_mensagem CHECK (((status <> 'ERRO'::text) OR (erro_mensagem IS NOT NULL))),
    CONSTRAINT xls_resetar_replicator_estrategia_valida CHECK ((estrategia = ANY (ARRAY['hosting'::text, 'manual'::text]))),
    CONSTRAINT xls_resetar_replicator_fim CHECK (((status = 'EM_ANDAMENTO'::text) = (finalizado_em IS NULL))),
    CONSTRAINT xls_resetar_replicator_motivo_tamanho CHECK ((char_length(motivo) <= 500)),
    CONSTRAINT xls_resetar_replicator_status_valido CHECK ((status = ANY (ARRAY['EM_ANDAMENTO'::text, 'SUCESSO'::text, 'ERRO'::text]))),
    CONSTRAINT xls_resetar_replicator_step_falho_valido CHECK ((step_falho = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'VERIFICAR_PARIDADE'::text, 'FINALIZAR'::text]))),
    CONSTRAINT xls_resetar_replicator_step_valido CHECK ((step_atual = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'VERIFICAR_PARIDADE'::text, 'FINALIZAR'::text])))
);


--
-- Name: TABLE xls_resetar_replicator; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_resetar_replicator IS 'One row per reset of the replication to the phones (start: replicacao_resetar). status EM_ANDAMENTO -> SUCESSO | ERRO; step_atual is the last step started (kept on ERRO), step_falho the step that failed; at most one EM_ANDAMENTO (partial unique index). The steps are in xls_resetar_replicator_passo.';


--
-- Name: COLUMN xls_resetar_replicator.assumido_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_resetar_replicator.assumido_em IS 'When a worker took the execution (holding the advisory lock of the execution for as long as it runs); an EM_ANDAMENTO execution already taken whose lock nobody holds is an orphan (replicacao_recuperar).';


--
-- Name: COLUMN xls_resetar_replicator.ultimo_nuke; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_resetar_replicator.ultimo_nuke IS 'The value FINALIZAR wrote to bi_configuracao.ultimo_nuke.';


--
-- Name: COLUMN xls_resetar_replicator.paridade; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_resetar_replicator.paridade IS 'The last parity figures of VERIFICAR_PARIDADE, one object per synced table: {tabela, postgres, motor, igual} (rows; igual also compares the ids). Null until the step ran.';


--
-- Name: replicacao_texto_bot(public.xls_resetar_replicator); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.replicacao_texto_bot(p_exec public.xls_resetar_replicator) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select case p_exec.status
    when 'SUCESSO' then concat_ws(E'\n',
      '✅ Reset da replicação concluído',
      format('Execução: %s', p_exec.id),
      case when p_exec.motivo is not null then format('Motivo: %s', p_exec.motivo) end,
      format('Slots removidos: %s', coalesce(nullif(array_to_string(p_exec.slots_removidos, ', '), ''), 'nenhum')),
      case when p_exec.estrategia = 'manual'
           then 'Reinício do motor de sincronização: MANUAL (confira se ele voltou e está replicando)'
           else format('Novo slot ativo: %s', coalesce(p_exec.slot_novo, '—')) end,
      format('ultimo_nuke: %s (os aparelhos limpam os dados e sincronizam do zero)', p_exec.ultimo_nuke))
    else concat_ws(E'\n',
      '❌ Reset da replicação terminou com ERRO',
      format('Execução: %s', p_exec.id),
      case when p_exec.motivo is not null then format('Motivo: %s', p_exec.motivo) end,
      format('Passo: %s', coalesce(p_exec.step_falho, p_exec.step_atual, '—')),
      format('Erro: %s', p_exec.erro_mensagem),
      'Nenhuma limpeza automática foi feita: veja as instruções de recuperação no detalhe do reset (/admin/replicacao).')
  end;
$$;


--
-- Name: FUNCTION replicacao_texto_bot(p_exec public.xls_resetar_replicator); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.replicacao_texto_bot(p_exec public.xls_resetar_replicator) IS 'The messaging-bot text (pt-BR) of a reset''s outcome, SUCESSO or ERRO.';


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
-- Name: sessao; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.sessao (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    token_hash bytea NOT NULL,
    email text NOT NULL,
    nome text,
    papel text DEFAULT 'equipe'::text NOT NULL,
    csrf text NOT NULL,
    criada_em timestamp with time zone DEFAULT now() NOT NULL,
    ultimo_uso_em timestamp with time zone DEFAULT now() NOT NULL,
    expira_em timestamp with time zone NOT NULL,
    encerrada_em timestamp with time zone,
    motivo_encerramento text,
    CONSTRAINT sessao_check CHECK ((expira_em > criada_em)),
    CONSTRAINT sessao_csrf_check CHECK ((length(csrf) >= 32)),
    CONSTRAINT sessao_motivo_encerramento_check CHECK ((motivo_encerramento = ANY (ARRAY['logout'::text, 'rotacao'::text, 'expirada'::text]))),
    CONSTRAINT sessao_papel_check CHECK ((papel = ANY (ARRAY['equipe'::text, 'smoke'::text])))
);


--
-- Name: TABLE sessao; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.sessao IS 'Login sessions of the staff screens. The browser holds a random token in the session cookie; only its SHA-256 (token_hash) is stored, so a copy of this table opens no session. csrf is the token every form of the session carries. papel: equipe (identity-provider login) or smoke (POST /smoke/session: may only read). Write only through app.sessao_* functions.';


--
-- Name: sessao_criar(text, text, text, text, interval, text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.sessao_criar(p_token text, p_email text, p_nome text, p_papel text, p_duracao interval, p_csrf text, p_anterior text DEFAULT NULL::text) RETURNS app.sessao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_row app.sessao;
begin
  if p_token is null or length(p_token) < 32 then
    raise exception 'token de sessão curto demais' using errcode = 'SS400';
  end if;
  if p_email is null or p_email !~ '^[^@\s]+@[^@\s]+$' then
    raise exception 'e-mail da sessão inválido: %', p_email using errcode = 'SS400';
  end if;
  if p_duracao is null or p_duracao <= interval '0' then
    raise exception 'duração da sessão deve ser positiva' using errcode = 'SS400';
  end if;
  -- rotation at login: the session the browser came with (if any) ends here
  if p_anterior is not null then
    update app.sessao set encerrada_em = now(), motivo_encerramento = 'rotacao'
     where token_hash = sha256(convert_to(p_anterior, 'UTF8')) and encerrada_em is null;
  end if;
  insert into app.sessao (token_hash, email, nome, papel, csrf, expira_em)
  values (sha256(convert_to(p_token, 'UTF8')), lower(p_email), nullif(btrim(p_nome), ''), coalesce(p_papel, 'equipe'), p_csrf, now() + p_duracao)
  returning * into v_row;
  return v_row;
end;
$_$;


--
-- Name: FUNCTION sessao_criar(p_token text, p_email text, p_nome text, p_papel text, p_duracao interval, p_csrf text, p_anterior text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.sessao_criar(p_token text, p_email text, p_nome text, p_papel text, p_duracao interval, p_csrf text, p_anterior text) IS 'Opens a screen session after a login: stores the SHA-256 of the cookie token p_token (never the token), the e-mail, name, papel (equipe | smoke), the CSRF token of its forms and the expiry (now + p_duracao). Rotation: the session whose token is p_anterior (the cookie the browser came with) is ended with motivo rotacao. SS400 on a short token, a malformed e-mail or a non-positive duration.';


--
-- Name: sessao_encerrar(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.sessao_encerrar(p_token text) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  with e as (
    update app.sessao set encerrada_em = now(), motivo_encerramento = 'logout'
     where token_hash = sha256(convert_to(coalesce(p_token, ''), 'UTF8')) and encerrada_em is null
    returning 1
  )
  select exists (select 1 from e);
$$;


--
-- Name: FUNCTION sessao_encerrar(p_token text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.sessao_encerrar(p_token text) IS 'Logout: ends the session of the cookie token. True when a live session was ended; false when there was none (logging out twice is harmless).';


--
-- Name: sessao_expirar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.sessao_expirar() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_n integer;
begin
  update app.sessao set encerrada_em = expira_em, motivo_encerramento = 'expirada'
   where encerrada_em is null and expira_em <= now();
  get diagnostics v_n = row_count;
  -- ended sessions are kept 30 days (who logged in when), then removed
  delete from app.sessao where encerrada_em < now() - interval '30 days';
  delete from app.login_tentativa where expira_em <= now();
  return v_n;
end;
$$;


--
-- Name: FUNCTION sessao_expirar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.sessao_expirar() IS 'Housekeeping (pg_cron job app_sessao_expirar, hourly): marks expired sessions (motivo expirada) and returns how many; removes sessions ended more than 30 days ago and identity-provider logins never finished.';


--
-- Name: sessao_validar(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.sessao_validar(p_token text) RETURNS SETOF app.sessao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row app.sessao;
begin
  select * into v_row from app.sessao
   where token_hash = sha256(convert_to(coalesce(p_token, ''), 'UTF8'))
     and encerrada_em is null and expira_em > now();
  if not found then
    return;
  end if;
  -- last use is recorded at most once a minute: a page view is not a write each time
  if v_row.ultimo_uso_em < now() - interval '1 minute' then
    update app.sessao set ultimo_uso_em = now() where id = v_row.id returning * into v_row;
  end if;
  return next v_row;
end;
$$;


--
-- Name: FUNCTION sessao_validar(p_token text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.sessao_validar(p_token text) IS 'The live session of a cookie token (not ended, not expired), or no row. Records the last use (at most once a minute).';


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

COMMENT ON FUNCTION app.sweep_jobs() IS 'Run every minute by pg_cron (job app_sweep_jobs), every 10 s by each live replica of the service (JOBS_SWEEP_MS) and at boot: returns jobs of dead workers to the queue, purges done jobs older than 7 days, and re-sends the wake-up for every kind with due work (covers lost notifications and delayed retries). Returns how many jobs were rescued.';


--
-- Name: tg__bi_alteracoes_evento(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__bi_alteracoes_evento() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if exists (select from pg_event_trigger_ddl_commands() c
              where c.object_type = 'table' and c.schema_name = 'public' and c.object_identity like 'public.bi\_%') then
    perform app.xls_alteracao_instalar();
  end if;
end;
$$;


--
-- Name: FUNCTION tg__bi_alteracoes_evento(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__bi_alteracoes_evento() IS 'Event trigger _300_bi_alteracoes: after a CREATE or ALTER TABLE of a bi_* table of public, installs the change-set triggers on it (app.xls_alteracao_instalar), so a new spreadsheet type''s tables are covered without a manual step.';


--
-- Name: tg__grant_bi_select(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__grant_bi_select() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_cmd record;
  v_rel record;
  v_bi boolean;
  v_tem boolean;
begin
  -- a table that is bi_* of public after the command (created, renamed to bi_*, moved into
  -- public) gets SELECT; one that is not (renamed away, moved out) loses it: the read role
  -- reads the bi_* tables of public and nothing else. Any schema: a table may leave public.
  for v_cmd in
    select distinct d.objid from pg_event_trigger_ddl_commands() d where d.object_type = 'table'
  loop
    select c.relname, n.nspname, c.relacl into v_rel
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.oid = v_cmd.objid and c.relkind in ('r', 'p');
    if not found then
      continue;
    end if;
    v_bi := v_rel.nspname = 'public' and v_rel.relname like 'bi\_%';
    v_tem := exists (select from aclexplode(v_rel.relacl) a
                      where a.grantee = 'bi_sync_reader'::regrole and a.privilege_type = 'SELECT');
    if v_bi and not v_tem then
      execute format('grant select on %I.%I to bi_sync_reader', v_rel.nspname, v_rel.relname);
    elsif not v_bi and v_tem then
      execute format('revoke select on %I.%I from bi_sync_reader', v_rel.nspname, v_rel.relname);
    end if;
  end loop;
end;
$$;


--
-- Name: FUNCTION tg__grant_bi_select(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__grant_bi_select() IS 'Event trigger (_100_bi_grant_sync_reader, on CREATE TABLE and ALTER TABLE): a table that is bi_* of public after the command (created, renamed to bi_*, moved into public by SET SCHEMA) is granted SELECT to bi_sync_reader (the sync engine''s read role), so future tables need no manual grant; a table that stops being bi_* of public (renamed away, moved out) has that SELECT revoked: the role reads the bi_* tables of public and nothing else.';


--
-- Name: tg__publicar_bi(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__publicar_bi() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_cmd record;
  v_nome text;
  v_mudou boolean := false;
begin
  -- a bi_* table of public not yet published (created, renamed to bi_*, moved into public), or a
  -- published table that is no longer a bi_* table of public (renamed away, moved out by SET
  -- SCHEMA: any schema, so the command's schema is not a filter): the publications are set again
  for v_cmd in
    select * from pg_event_trigger_ddl_commands()
     where object_type in ('table', 'table column')
  loop
    select c.relname into v_nome from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.oid = v_cmd.objid and c.relkind in ('r', 'p') and n.nspname = 'public';
    if not found then
      v_nome := null;
    end if;
    if exists (select from app.replicacao_publicacao r join pg_publication p on p.pubname = r.nome
                where coalesce(v_nome like 'bi\_%', false) <> exists (select from pg_publication_rel pr
                                                       where pr.prpubid = p.oid and pr.prrelid = v_cmd.objid)) then
      v_mudou := true;
    end if;
  end loop;
  if v_mudou then
    perform public.replicacao_publicacao_sincronizar(null);
  end if;
end;
$$;


--
-- Name: FUNCTION tg__publicar_bi(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__publicar_bi() IS 'Event trigger (_200_bi_publicar): when a table of public becomes bi_* (created, renamed or moved into public by SET SCHEMA) or a published table stops being a bi_* table of public (renamed away or moved out), the publications of app.replicacao_publicacao are set again to exactly the bi_* tables (replicacao_publicacao_sincronizar). Dropped tables leave publications by themselves.';


--
-- Name: tg__touch_atualizado_em(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__touch_atualizado_em() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  -- an undo (public.xls_desfazer) puts the row back exactly as it was, atualizado_em included
  if current_setting('bi.xls_desfazendo', true) = 'on' then
    return new;
  end if;
  new.atualizado_em := now();
  return new;
end;
$$;


--
-- Name: FUNCTION tg__touch_atualizado_em(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__touch_atualizado_em() IS 'Generic BEFORE UPDATE trigger: keeps atualizado_em current (except during public.xls_desfazer, which restores the stored value).';


--
-- Name: tg__xls_alteracao(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__xls_alteracao() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- Statement-level AFTER trigger with transition tables (novas / velhas) on the bi_* tables:
-- while a merge runs (the transaction setting bi.xls_processamento holds its id), every row
-- the statement inserted, rewrote or removed goes into app.xls_alteracao, set-based. The rows
-- a statement inserted are one INSERIDA row with their ids (app.xls_alteracao_itens expands it).
declare
  v_pid uuid := nullif(current_setting('bi.xls_processamento', true), '')::uuid;
  v_chave text;
begin
  if v_pid is null then
    return null;
  end if;
  v_chave := app.xls_chave_sql(tg_relid, 'x');
  if v_chave is null then
    return null;
  end if;
  -- what a foreign key would check row by row, once per statement (the merge's entry holds the
  -- processing locked FOR UPDATE until the commit, so it cannot go away meanwhile)
  if not exists (select from public.xls_processamento p where p.id = v_pid) then
    raise exception 'bi.xls_processamento = %: processamento inexistente', v_pid using errcode = 'foreign_key_violation';
  end if;
  if tg_op = 'INSERT' then
    insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_ids)
    select v_pid, tg_table_name, 'INSERIDA', array_agg(x.id) from novas x having count(*) > 0;
  elsif tg_op = 'UPDATE' then
    execute format($q$
      insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_id, chave, antes, depois)
      select $1, $2, 'ALTERADA', x.id, %s, to_jsonb(x), to_jsonb(n)
        from velhas x join novas n on n.id = x.id$q$, v_chave)
      using v_pid, tg_table_name;
  elsif tg_op = 'DELETE' then
    execute format($q$
      insert into app.xls_alteracao (processamento_id, tabela, operacao, linha_id, chave, antes)
      select $1, $2, 'REMOVIDA', x.id, %s, to_jsonb(x) from velhas x$q$, v_chave)
      using v_pid, tg_table_name;
  end if;
  return null;
end;
$_$;


--
-- Name: FUNCTION tg__xls_alteracao(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__xls_alteracao() IS 'Statement-level AFTER INSERT / UPDATE / DELETE trigger (transition tables novas, velhas) installed on every bi_* table but bi_configuracao by app.xls_alteracao_instalar: while the transaction setting bi.xls_processamento holds a processing id (set by the merge''s entry, app.xls_merge_tipo), records what the statement wrote into that processing''s change set (app.xls_alteracao: the rows it inserted as one INSERIDA row with their ids, their keys and values read later through app.xls_alteracao_itens; each rewritten or removed row with its key and the row before), after checking once per statement that the processing exists (foreign_key_violation otherwise: the table has no per-row foreign key); otherwise does nothing. Captures the hooks'' writes too (reference tables, FLUXO''s atual flag).';


--
-- Name: tg__xls_processamento__alteracoes_apagar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg__xls_processamento__alteracoes_apagar() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
-- Statement-level AFTER DELETE on xls_processamento (transition table velhos): the change sets
-- of the deleted processings go with them, as a cascading foreign key would do.
begin
  delete from app.xls_alteracao a using velhos v where a.processamento_id = v.id;
  return null;
end;
$$;


--
-- Name: FUNCTION tg__xls_processamento__alteracoes_apagar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg__xls_processamento__alteracoes_apagar() IS 'Trigger _100_xls_alteracao_apagar (AFTER DELETE FOR EACH STATEMENT on public.xls_processamento): deletes the change sets (app.xls_alteracao) of the deleted processings. Stands for the cascade of a foreign key, which app.xls_alteracao does not have (its per-row check was the costliest part of recording a change set).';


--
-- Name: tg_bi_configuracao__notify(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg_bi_configuracao__notify() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  perform pg_notify('app_config', coalesce(new.chave, old.chave));
  return null;
end;
$$;


--
-- Name: FUNCTION tg_bi_configuracao__notify(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg_bi_configuracao__notify() IS 'Invalidates the 30-second configuration cache of every replica: NOTIFY app_config with the changed key.';


--
-- Name: tg_xls_processamento__notificar_bot(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.tg_xls_processamento__notificar_bot() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_status text;
  v_alarmar boolean;
begin
  -- deferred to COMMIT: the transition functions adjust the row after setting the status
  -- (e.g. a silent first transient-FK failure clears alarmar), so decide on the final row
  select p.status, p.alarmar into v_status, v_alarmar from public.xls_processamento p where p.id = new.id;
  if v_status in ('SUCESSO', 'IGNORADO') or (v_status = 'ERRO' and v_alarmar) then
    perform app.notificar_bot(app.xls_mensagem_bot(new.id));
  end if;
  return null;
end;
$$;


--
-- Name: FUNCTION tg_xls_processamento__notificar_bot(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.tg_xls_processamento__notificar_bot() IS 'Queues the messaging-bot message of every outcome (SUCESSO, IGNORADO, and ERRO that alarms; a silent first transient-FK failure is not announced). A deferred trigger: it decides at COMMIT on the final row, and the message goes out if and only if the outcome commits.';


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
-- Name: worker_esquecer(text[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.worker_esquecer(p_workers text[]) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_n integer;
begin
  delete from app.worker w where w.id = any (p_workers);
  get diagnostics v_n = row_count;
  return v_n;
end;
$$;


--
-- Name: FUNCTION worker_esquecer(p_workers text[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.worker_esquecer(p_workers text[]) IS 'Forgets workers known to be dead without waiting for app.worker_timeout(): at boot, the service passes the workers of its own host whose process no longer runs (a previous process of this host: a restart, a crash, a container restarted with the same pid). Their running jobs then go back to the queue (app.sweep_jobs) and their PROCESSANDO to ERRO (xls_recuperar) at once. Returns how many were forgotten.';


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
    AS $$ select interval '20 seconds' $$;


--
-- Name: FUNCTION worker_timeout(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.worker_timeout() IS 'How long a worker may go without a heartbeat before it counts as dead: 20 s (workers heartbeat every 5 s, JOBS_HEARTBEAT_MS). With app.sweep_jobs and xls_recuperar run every 10 s by each live replica (pg_cron 1.4 schedules by the minute only), the jobs and PROCESSANDO of a replica that died silently are recovered within 30 s.';


--
-- Name: xls_alteracao_depois(text, uuid, bigint); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_alteracao_depois(p_tabela text, p_linha_id uuid, p_seq bigint) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- A row an INSERIDA change (seq p_seq) inserted, as inserted, which the change set does not store
-- (it would double what a first import writes): the bi_* tables are written only by merges, whose
-- every write is recorded, and by the undo, which stores the values before it removes the rows.
-- So the row as inserted is the "antes" of the next change of the same id, or, when nothing
-- changed it since, the row as it is stored now.
declare
  v jsonb;
begin
  select b.antes into v
    from app.xls_alteracao b
   where b.linha_id = p_linha_id and b.tabela = p_tabela and b.seq > p_seq
   order by b.seq
   limit 1;
  if found then
    return v;
  end if;
  execute format('select to_jsonb(t) from public.%I t where t.id = $1', p_tabela) into v using p_linha_id;
  return v;
end;
$_$;


--
-- Name: FUNCTION xls_alteracao_depois(p_tabela text, p_linha_id uuid, p_seq bigint); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_alteracao_depois(p_tabela text, p_linha_id uuid, p_seq bigint) IS 'Internal: a row of an INSERIDA change-set row (seq p_seq) as inserted, which app.xls_alteracao does not store until an undo: the antes of the next change of the same row (tabela, linha_id, through the id index), else the row as stored now; null when neither exists. Exact because the bi_* tables are written only by merges (every write recorded) and by public.xls_desfazer (which stores the values before removing inserted rows). Read by app.xls_alteracao_itens and public.xls_linhagem.';


--
-- Name: xls_alteracao_instalar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_alteracao_instalar() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  t record;
  g record;
  v_n integer := 0;
begin
  for t in select c.relname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'bi\_%' and c.relname <> 'bi_configuracao'
              and app.xls_chave_natural(c.oid) is not null
              and exists (select from pg_catalog.pg_attribute a where a.attrelid = c.oid and a.attname = 'id' and not a.attisdropped)
            order by c.relname loop
    -- only the missing ones: a trigger a DBA disabled stays disabled
    for g in select * from (values ('ins', 'insert', 'new table as novas'), ('upd', 'update', 'old table as velhas new table as novas'),
                                   ('del', 'delete', 'old table as velhas')) x (sufixo, evento, tabelas) loop
      if not exists (select from pg_catalog.pg_trigger tg where tg.tgrelid = format('public.%I', t.relname)::regclass
                        and tg.tgname = '_900_xls_alteracao_' || g.sufixo) then
        execute format('create trigger %I after %s on public.%I referencing %s for each statement execute function app.tg__xls_alteracao()',
                       '_900_xls_alteracao_' || g.sufixo, g.evento, t.relname, g.tabelas);
      end if;
    end loop;
    v_n := v_n + 1;
  end loop;
  return v_n;
end;
$$;


--
-- Name: FUNCTION xls_alteracao_instalar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_alteracao_instalar() IS 'Installs the missing change-set triggers (an existing one is left as it is, enabled or disabled by a DBA) _900_xls_alteracao_ins/_upd/_del (app.tg__xls_alteracao) on every bi_* table of public that has an id and a natural key (exactly one UNIQUE constraint, app.xls_chave_natural), bi_configuracao excepted. Called by the migration that created app.xls_alteracao and by the event trigger _300_bi_alteracoes for tables created later. Returns the number of tables.';


--
-- Name: xls_alteracao_itens(uuid, text, text, integer, integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_alteracao_itens(p_id uuid, p_tabela text DEFAULT NULL::text, p_operacao text DEFAULT NULL::text, p_limite integer DEFAULT NULL::integer, p_deslocamento integer DEFAULT 0) RETURNS TABLE(seq bigint, tabela text, operacao text, linha_id uuid, chave jsonb, antes jsonb, depois jsonb)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- The change set of one processing row by row, in the order written: an INSERIDA row (one per
-- statement) becomes one item per id, in the order inserted, with its key and values read back
-- (app.xls_alteracao_depois) unless the undo stored them. Only the page asked for is read back.
#variable_conflict use_column
declare
  r record;
begin
  for r in
    select a.seq, a.tabela, a.operacao, coalesce(u.id, a.linha_id) as linha_id, a.chave, a.antes,
           case when a.operacao = 'INSERIDA' then a.depois -> (u.n::integer - 1) else a.depois end as depois
      from app.xls_alteracao a
      left join lateral unnest(a.linha_ids) with ordinality u (id, n) on true
     where a.processamento_id = p_id and (p_tabela is null or a.tabela = p_tabela) and (p_operacao is null or a.operacao = p_operacao)
     order by a.seq, u.n
     limit p_limite offset p_deslocamento
  loop
    seq := r.seq; tabela := r.tabela; operacao := r.operacao; linha_id := r.linha_id; antes := r.antes;
    chave := r.chave; depois := r.depois;
    if r.operacao = 'INSERIDA' then
      depois := coalesce(depois, app.xls_alteracao_depois(r.tabela, r.linha_id, r.seq));
      if depois is null then
        chave := jsonb_build_object('id', r.linha_id);
      else
        execute format('select %s from jsonb_populate_record(null::public.%I, $1) x',
                       app.xls_chave_sql(format('public.%I', r.tabela)::regclass, 'x'), r.tabela)
          into chave using depois;
      end if;
    end if;
    return next;
  end loop;
end;
$_$;


--
-- Name: FUNCTION xls_alteracao_itens(p_id uuid, p_tabela text, p_operacao text, p_limite integer, p_deslocamento integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_alteracao_itens(p_id uuid, p_tabela text, p_operacao text, p_limite integer, p_deslocamento integer) IS 'Internal: the change set of processing p_id one item per row changed, in the order written (seq, then the order inserted): the INSERIDA rows (one per statement in app.xls_alteracao) expanded into one item per id with its natural key and its values as inserted (app.xls_alteracao_depois, or the values the undo stored). Filters p_tabela, p_operacao; p_limite / p_deslocamento page it (null limit: all), and only that page is read back. Read by public.xls_alteracoes and public.xls_simular_resumo.';


--
-- Name: xls_alteracoes_expurgar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_alteracoes_expurgar() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_dias integer := coalesce((select case when c.valor ~ '^[0-9]{1,6}$' then c.valor::integer end
                                from public.bi_configuracao c where c.chave = 'xls_alteracoes_retencao_dias'), 180);
  v_n integer;
begin
  with velhos as (
    update public.xls_processamento p set alteracoes_expiradas_em = now()
     where p.finalizado_em < now() - make_interval(days => v_dias) and p.alteracoes_expiradas_em is null
       and exists (select from app.xls_alteracao a where a.processamento_id = p.id)
    returning p.id)
  delete from app.xls_alteracao a using velhos v where a.processamento_id = v.id;
  get diagnostics v_n = row_count;
  return v_n;
end;
$_$;


--
-- Name: FUNCTION xls_alteracoes_expurgar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_alteracoes_expurgar() IS 'Retention of the change sets (pg_cron job app_xls_alteracoes_expurgar, daily): deletes the change set of every processing finished more than xls_alteracoes_retencao_dias days ago (bi_configuracao, default 180) and marks it alteracoes_expiradas_em, so its undo says why it cannot. Returns the rows deleted.';


--
-- Name: xls_aviso(text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_aviso(p_categoria text, p_motivo text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select jsonb_build_array(jsonb_build_object('categoria', p_categoria, 'quantidade', 1, 'linhas', '[]'::jsonb, 'motivo', p_motivo));
$$;


--
-- Name: FUNCTION xls_aviso(p_categoria text, p_motivo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_aviso(p_categoria text, p_motivo text) IS 'Internal, for hooks: a list holding one warning about the whole file (no rows): [{categoria, quantidade: 1, linhas: [], motivo}]; null when p_motivo is null (no warning), so that avisos || coalesce(app.xls_aviso(…), ''[]'') adds it only when there is one. Warnings about rows: app.xls_aviso_linha_avisos.';


--
-- Name: xls_aviso_linha_avisos(integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_aviso_linha_avisos(p_limite integer DEFAULT NULL::integer) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(jsonb_agg(jsonb_build_object('categoria', r.categoria, 'motivo', r.motivo, 'quantidade', r.n, 'linhas', r.linhas)
                            order by r.ordem), '[]')
    from (select m.ordem, m.categoria, m.motivo, count(*) as n,
                 coalesce(jsonb_agg(jsonb_build_object('aba', m.aba, 'linha', m.linha, 'valor', m.valor) order by m.aba, m.linha)
                            filter (where p_limite is null or m.rn <= p_limite), '[]') as linhas
            from (select x.*, row_number() over (partition by x.ordem order by x.aba, x.linha) as rn
                    from pg_temp.xls_aviso_linha x) m
           group by m.ordem, m.categoria, m.motivo) r;
$$;


--
-- Name: FUNCTION xls_aviso_linha_avisos(p_limite integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_aviso_linha_avisos(p_limite integer) IS 'Internal, for hooks (phase fim): the warnings of pg_temp.xls_aviso_linha (app.xls_aviso_linha_criar), one per (ordem, categoria, motivo) in ordem, each {categoria, motivo, quantidade, linhas: [{aba, linha, valor}] by tab and row, at most p_limite of them (null: all)}; [] when the hook warned about nothing.';


--
-- Name: xls_aviso_linha_criar(); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_aviso_linha_criar() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  create temp table xls_aviso_linha (ordem integer not null, categoria text not null, motivo text not null,
                                    aba text, linha integer, valor text) on commit drop;
end;
$$;


--
-- Name: FUNCTION xls_aviso_linha_criar(); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_aviso_linha_criar() IS 'Internal, for hooks (phase inicio): creates pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor), one row per sheet row a hook warns about; app.xls_aviso_linha_avisos turns it into the warnings of phase fim. Dropped at commit (and by xls_staging_preparar when a new merge starts in the transaction).';


--
-- Name: xls_avisos_normalizar(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_avisos_normalizar(p_avisos jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_out jsonb := '[]';
  v_e jsonb;
  v_linhas jsonb;
begin
  if p_avisos is null or jsonb_typeof(p_avisos) = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_avisos) <> 'array' then
    raise exception 'avisos deve ser uma lista JSON' using errcode = 'XL400';
  end if;
  for v_e in select e from jsonb_array_elements(p_avisos) e loop
    if jsonb_typeof(v_e) = 'string' then
      v_out := v_out || jsonb_build_array(jsonb_build_object(
        'categoria', 'geral', 'motivo', v_e #>> '{}', 'quantidade', 1, 'linhas', '[]'::jsonb));
    elsif jsonb_typeof(v_e) = 'object' and coalesce(v_e ->> 'motivo', v_e ->> 'mensagem') is not null then
      select coalesce(jsonb_agg(jsonb_build_object(
               'aba', case when jsonb_typeof(l) = 'object' then l ->> 'aba' end,
               'linha', case when jsonb_typeof(l) = 'object' then (l ->> 'linha')::integer else (l #>> '{}')::integer end,
               'valor', case when jsonb_typeof(l) = 'object' then l ->> 'valor' end)), '[]')
        into v_linhas
        from jsonb_array_elements(case when jsonb_typeof(v_e -> 'linhas') = 'array' then v_e -> 'linhas' else '[]' end) l;
      v_out := v_out || jsonb_build_array(jsonb_build_object(
        'categoria', coalesce(v_e ->> 'categoria', 'geral'),
        'motivo', coalesce(v_e ->> 'motivo', v_e ->> 'mensagem'),
        'quantidade', coalesce((v_e ->> 'quantidade')::integer, greatest(jsonb_array_length(v_linhas), 1)),
        'linhas', v_linhas));
    else
      raise exception 'aviso inválido: %', left(v_e::text, 200) using errcode = 'XL400';
    end if;
  end loop;
  return v_out;
exception
  when invalid_text_representation or numeric_value_out_of_range then
    raise exception 'aviso com número de linha inválido: %', left(p_avisos::text, 200) using errcode = 'XL400';
end;
$$;


--
-- Name: FUNCTION xls_avisos_normalizar(p_avisos jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_avisos_normalizar(p_avisos jsonb) IS 'Normalises warnings given by the edge to the stored shape [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}]; a plain string becomes {categoria: geral, motivo: <string>}. XL400 for anything else.';


--
-- Name: xls_brl(numeric); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_brl(p_valor numeric) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case when p_valor is null then null else
    translate(to_char(round(p_valor, 2), 'FM999,999,999,999,990.00'), ',.', '.,') end;
$$;


--
-- Name: FUNCTION xls_brl(p_valor numeric); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_brl(p_valor numeric) IS 'A value in Brazilian form for messages: 1234567.891 → ''1.234.567,89''.';


--
-- Name: xls_chave_igual_sql(regclass, text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_chave_igual_sql(p_tabela regclass, p_a text, p_b text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  -- a.col = b.col and ... over the natural key (app.xls_chave_natural)
  select app.xls_sql_lista(format('%I.%%I = %I.%%I', p_a, p_b), ' and ', k)
    from app.xls_chave_natural(p_tabela) k
   where k is not null;
$$;


--
-- Name: FUNCTION xls_chave_igual_sql(p_tabela regclass, p_a text, p_b text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_chave_igual_sql(p_tabela regclass, p_a text, p_b text) IS 'Internal: the SQL condition that two rows aliased p_a and p_b have the same natural key (the table''s UNIQUE constraint), e.g. t.codigo = r.codigo, so that a key given as JSON (jsonb_populate_record) finds its row through the natural-key index. NULL for a table without exactly one UNIQUE constraint (app.xls_chave_natural). Used by public.xls_linhagem and public.xls_desfazer.';


--
-- Name: xls_chave_natural(regclass); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_chave_natural(p_tabela regclass) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select array_agg(k.attname::text order by u.ord)
    from pg_catalog.pg_constraint con
   cross join lateral unnest(con.conkey) with ordinality u (attnum, ord)
    join pg_catalog.pg_attribute k on k.attrelid = con.conrelid and k.attnum = u.attnum
   where con.conrelid = p_tabela and con.contype = 'u'
     and (select count(*) from pg_catalog.pg_constraint c2 where c2.conrelid = p_tabela and c2.contype = 'u') = 1;
$$;


--
-- Name: FUNCTION xls_chave_natural(p_tabela regclass); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_chave_natural(p_tabela regclass) IS 'Internal, the natural key of a target of the declarative merge: the columns of its single UNIQUE constraint, in order; null when it has none or more than one.';


--
-- Name: xls_chave_sql(regclass, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_chave_sql(p_tabela regclass, p_alias text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  -- jsonb_build_object('col', alias.col, ...) over the natural key (app.xls_chave_natural)
  select 'jsonb_build_object(' || app.xls_sql_lista(format('%%L, %I.%%I', p_alias), ', ', k) || ')'
    from app.xls_chave_natural(p_tabela) k
   where k is not null;
$$;


--
-- Name: FUNCTION xls_chave_sql(p_tabela regclass, p_alias text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_chave_sql(p_tabela regclass, p_alias text) IS 'Internal: the SQL expression that builds the natural key (the table''s UNIQUE constraint) of a row aliased p_alias as a JSON object, e.g. jsonb_build_object(''codigo'', x.codigo). Used by the change-set trigger and the undo. NULL for a table without exactly one UNIQUE constraint.';


--
-- Name: xls_conjunto_item_registrar(uuid, text, text, uuid, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text, p_processamento_id uuid, p_motivo text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_ordem integer;
  v_fechado timestamptz;
begin
  update public.xls_conjunto set total = total + 1 where id = p_conjunto_id
  returning total, fechado_em into v_ordem, v_fechado;
  if not found then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  if v_fechado is not null then
    raise exception 'conjunto % já foi fechado; envie os arquivos num novo conjunto (zip)', p_conjunto_id using errcode = 'XL409';
  end if;
  insert into public.xls_conjunto_item (conjunto_id, ordem, arquivo, status, processamento_id, motivo)
  values (p_conjunto_id, v_ordem, p_arquivo, p_status, p_processamento_id, p_motivo);
  return v_ordem;
end;
$$;


--
-- Name: FUNCTION xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text, p_processamento_id uuid, p_motivo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_conjunto_item_registrar(p_conjunto_id uuid, p_arquivo text, p_status text, p_processamento_id uuid, p_motivo text) IS 'Internal to the receipt: appends one entry to a batch (ordem = position in the zip) and counts it in total. XL404 unknown batch, XL409 batch already closed.';


--
-- Name: xls_data(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_data(p_texto text) RETURNS date
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  return p_texto::date;
exception when data_exception then
  return null;
end;
$$;


--
-- Name: FUNCTION xls_data(p_texto text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_data(p_texto text) IS 'Internal: the date a text holds (a parameter of p_meta such as FLUXO''s posicao), null when it is missing or not a date (no error: the caller words its own refusal).';


--
-- Name: xls_enfileirar(uuid); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_enfileirar(p_id uuid) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_job bigint;
begin
  v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), p_id::text);
  if v_job is null and not exists (
      select from app.job j
       where j.kind = 'xls_processar' and j.unique_key = p_id::text and j.status = 'pending') then
    -- The key is held by a running job that is finishing an earlier run of this
    -- processing (it just failed, or its batch closed meanwhile): queue a follow-up
    -- without key. A duplicate is harmless: only one job can move PENDENTE -> PROCESSANDO.
    v_job := app.enqueue('xls_processar', jsonb_build_object('id', p_id), now(), null);
  end if;
  return v_job;
end;
$$;


--
-- Name: FUNCTION xls_enfileirar(p_id uuid); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_enfileirar(p_id uuid) IS 'Queues the job xls_processar {id} (unique key = id) inside the caller''s transaction; when a running job still holds the key (it is finishing the previous run), queues a follow-up without key. Returns the job id, or null when a pending job already exists.';


--
-- Name: xls_falha_linhas(text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_falha_linhas(p_motivo text, p_codigo text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
  -- a missing registration (XL424): "<campo> não cadastrado em <tabela>: <valor> (linha 5), <valor> (linhas 6, 7)…"
  select coalesce(jsonb_agg(jsonb_build_object(
           'aba', null, 'linha', l.linha::integer, 'campo', c.campo, 'valor', v.m[1],
           'mensagem', format('%s %s não cadastrado', c.campo, v.m[1])) order by l.linha::integer, v.m[1]), '[]')
    from (select substring(p_motivo from '^(.+?) não cadastrado em ') as campo,
                 substring(p_motivo from ' não cadastrado em [^:]+: (.*)$') as lista) c
    cross join lateral regexp_matches(c.lista, '([^ ,()]+) \(linhas? ([0-9, …]+)\)', 'g') v (m)
    cross join lateral regexp_split_to_table(v.m[2], ',\s*') l (linha)
   where p_codigo in ('XL424', '23503') and c.campo is not null and l.linha ~ '^[0-9]{1,9}$'
$_$;


--
-- Name: FUNCTION xls_falha_linhas(p_motivo text, p_codigo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_falha_linhas(p_motivo text, p_codigo text) IS 'The refused rows a failure message names, as stored rejected rows [{aba, linha, campo, valor, mensagem}]: for a missing registration (XL424, 23503: "<campo> não cadastrado em <tabela>: 999 (linha 5), 1000 (linhas 6, 7)") one row per named line. Empty for any other failure. Used by xls_falhar when the caller passes no rows.';


--
-- Name: xls_fk_aguardando(uuid); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_fk_aguardando(p_id uuid) RETURNS uuid
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select l.id
    from public.xls_processamento p
    join public.xls_conjunto l on l.id = p.conjunto_id
   where p.id = p_id and p.status = 'ERRO' and p.fk_retentar and l.fechado_em is null;
$$;


--
-- Name: FUNCTION xls_fk_aguardando(p_id uuid); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_fk_aguardando(p_id uuid) IS 'Internal: the open batch a processing waits for (ERRO by a first transient foreign-key failure, fk_retentar, while its batch''s master report has not concluded), else null. A resend (xls_receber) or a reprocess button (xls_reprocessar*) of such a processing does not run it again at once — it would fail again before the master report commits and use up its one retry — but leaves it waiting: the batch close reprocesses it.';


--
-- Name: xls_hook_compras(text, text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_hook_compras(p_fase text, p_staging text, p_meta jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_fase = 'inicio' then
    perform app.xls_aviso_linha_criar();
  elsif p_fase = 'normalizado' then
    -- only fuels enter: the other rows leave the chunk, counted as warnings (they are not errors)
    with f as (
      delete from pg_temp.xls_chunk_compra c
       where c.codigo_onu is null or c.codigo_onu not in (1170, 1202, 1203, 1223, 1863, 3475)
      returning c.linha, c.onu_texto)
    insert into pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor)
    select 1, 'filtrada', 'código ONU fora dos combustíveis (1170, 1202, 1203, 1223, 1863, 3475): linha não importada', 'Compras', f.linha, f.onu_texto from f;
  elsif p_fase = 'fim' then
    return jsonb_build_object('avisos', app.xls_aviso_linha_avisos(),
      'tabelas', jsonb_build_object('filtradas_onu', jsonb_build_object('linhas', (select count(*) from pg_temp.xls_aviso_linha))));
  end if;
  return '{}';
end;
$$;


--
-- Name: FUNCTION xls_hook_compras(p_fase text, p_staging text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_hook_compras(p_fase text, p_staging text, p_meta jsonb) IS 'Hook of COMPRAS in the declarative merge. normalizado: rows whose Código ONU is not a fuel (1170, 1202, 1203, 1223, 1863, 3475; an empty code included) leave the chunk and are counted, not rejected (pg_temp.xls_aviso_linha). fim: a warning of category filtrada listing the rows and their codes (app.xls_aviso_linha_avisos), and tabelas.filtradas_onu. (The suppliers are a description row: app.xls_alvo COMPRAS/fornecedor.)';


--
-- Name: xls_hook_fluxo(text, text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_hook_fluxo(p_fase text, p_staging text, p_meta jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_posicao date;
  v_max date;
  v_atual boolean;
  v_saiu integer := 0;
  v_soma numeric;
  v_avisos jsonb := '[]';
  v_aviso text;
begin
  -- the position date (the reader found it in tab Fluxo Pagar-Receber), checked from phase inicio on (app.xls_data: null when not a date)
  v_posicao := app.xls_data(p_meta ->> 'posicao');
  if v_posicao is null then
    raise exception 'FLUXO_PAGAR_RECEBER recusado: data de posição ausente ou inválida (%)', coalesce(p_meta ->> 'posicao', 'ausente')
      using errcode = 'XL422';
  elsif p_fase <> 'fim' then
    return '{}';
  end if;

  -- rule 4, total refusal: app.xls_tipo.recusa_total (the merge raises before this phase)
  -- rule 2: only the newest position is current (under the merge lock on bi_titulo; the
  -- description's expression of atual compared with the same table)
  select max(t.posicao) into v_max from public.bi_titulo t where t.posicao <> v_posicao;
  v_atual := v_max is null or v_posicao >= v_max;
  -- rule 2: a newer position takes the flag from the older ones (the partial index serves this)
  if v_atual and v_max is not null and v_posicao > v_max then
    update public.bi_titulo t set atual = false where t.atual and t.posicao < v_posicao;
    get diagnostics v_saiu = row_count;
  elsif not v_atual then
    v_avisos := app.xls_aviso('posicao', format('posição %s anterior à atual (%s): entra no histórico sem se tornar a atual',
                                                to_char(v_posicao, 'DD/MM/YYYY'), to_char(v_max, 'DD/MM/YYYY')));
  end if;

  -- rule 5: the receivable sum of Saldo against the Total of tab Grupo
  select coalesce(sum(a.saldo), 0) into v_soma from pg_temp.xls_aceitas_titulo a where a.tipo = 'RECEBER';
  if not (p_meta ? 'total_receber_grupo') then
    v_aviso := 'aba Grupo ausente: o total a receber não foi conferido';
  elsif p_meta ->> 'total_receber_grupo' is null then
    v_aviso := coalesce(p_meta ->> 'grupo_problema', 'aba Grupo sem total') || ': o total a receber não foi conferido';
  elsif abs(v_soma - (p_meta ->> 'total_receber_grupo')::numeric) > 0.01 then
    v_aviso := format('total a receber difere da aba Grupo: soma do Saldo %s, Total da aba Grupo %s',
                      app.xls_brl(v_soma), app.xls_brl((p_meta ->> 'total_receber_grupo')::numeric));
  end if;

  return jsonb_build_object('avisos', v_avisos || coalesce(app.xls_aviso('total', v_aviso), '[]'), 'tabelas', jsonb_build_object(
    'fluxo', jsonb_build_object('posicao', v_posicao, 'atual', v_atual, 'deixaram_de_ser_atuais', v_saiu, 'soma_saldo_receber', v_soma)));
end;
$$;


--
-- Name: FUNCTION xls_hook_fluxo(p_fase text, p_staging text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_hook_fluxo(p_fase text, p_staging text, p_meta jsonb) IS 'Hook of FLUXO_PAGAR_RECEBER in the declarative merge (its rules 1-5: docs/tipos.md, Rules per type, and docs/formatos.md). inicio: the position date of p_meta.posicao (missing or invalid: XL422, nothing written; the description''s expressions of posicao and atual read p_meta and bi_titulo under the merge lock, which serialises simultaneous imports). fim (after the merge''s total refusal, app.xls_tipo.recusa_total): a newer position takes atual from the older ones, an older one enters the history only (warning); the receivable sum of Saldo against p_meta.total_receber_grupo (more than 0,01 apart: warning naming both figures). tabelas.fluxo = {posicao, atual, deixaram_de_ser_atuais, soma_saldo_receber}.';


--
-- Name: xls_hook_relatorio18(text, text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_hook_relatorio18(p_fase text, p_staging text, p_meta jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET work_mem TO '64MB'
    AS $_$
declare
  v_aba text;
  v_data text;
  v_modelo text;
  v_veiculo integer;
begin
  if p_fase = 'inicio' then
    -- vehicle-registry defence, chunk by chunk: every row with any vehicle column, before
    -- rejections and repeated keys (the defence looks at all of them), is classified once per
    -- distinct plate and year; the chunk keeps its problem rows and, per valid plate, only the
    -- rows that can still be the latest (plate seen, latest valid year, latest model).
    create temp table xls_veiculo_lote (aba text, linha integer, data date, placa_bruta text, placa text, ano_bruto text, modelo text) on commit drop;
    perform app.xls_aviso_linha_criar();
    create temp table xls_veiculo_cand (placa text, k bigint, k_ano bigint, fab smallint, mod smallint, k_modelo bigint, modelo text) on commit drop;
    return '{}';
  end if;

  if p_fase = 'normalizado' then
    -- the target's tab and date (its scope column); tab 30 has no model
    select x.aba, x.escopo_coluna, case when x.staging = 'faturamento' then 'c.modelo_veiculo' else 'null::text' end
      into v_aba, v_data, v_modelo from app.xls_alvo x where x.tipo = 'RELATORIO18' and x.staging = p_staging;
    execute format('insert into pg_temp.xls_veiculo_lote select %1$L, c.linha, c.%2$I, c.placa_bruta, c.placa, c.ano_veiculo, left(%3$s, %4$s)
                      from pg_temp.%5$I c where c.placa_bruta is not null or c.ano_veiculo is not null or %3$s is not null',
                   v_aba, v_data, v_modelo, app.xls_tamanho('bi_veiculo', 'modelo'), 'xls_chunk_' || p_staging);
    if not exists (select from pg_temp.xls_veiculo_lote) then
      return '{}';
    end if;
    -- for the registry, each valid plate keeps only its latest row (latest date, tab 20 before
    -- 30, last row), found by a hash aggregate over one packed ordering key (no sort)
    with placas as (
      select p.placa, p.placa ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$' as placa_valida
        from (select distinct placa from pg_temp.xls_veiculo_lote where placa is not null) p
    ), anos as (
      select a.ano_bruto, a.ano_ok,
             case when a.ano_ok then substring(a.ano_bruto from '^([0-9]{4})')::smallint end as fab,
             case when a.ano_ok then substring(a.ano_bruto from '([0-9]{4})$')::smallint end as mod
        from (select d.ano_bruto, d.ano_bruto ~ '^(19|20)[0-9]{2}[[:space:]]*/[[:space:]]*(19|20)[0-9]{2}$' as ano_ok
                from (select distinct ano_bruto from pg_temp.xls_veiculo_lote where ano_bruto is not null) d) a
    ), problemas as (
      insert into pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor)
      select x.ordem, 'veiculo', x.motivo, c.aba, c.linha, x.valor
        from (select v.aba, v.linha, v.placa_bruta, v.ano_bruto, v.modelo, p.placa_valida, coalesce(a.ano_ok, false) as ano_ok, a.fab, a.mod
                from pg_temp.xls_veiculo_lote v
                left join placas p on p.placa = v.placa
                left join anos a on a.ano_bruto = v.ano_bruto) c
       cross join lateral (values
             (1, 'placa inválida', c.placa_bruta, c.placa_bruta is not null and not c.placa_valida),
             (2, 'placa ausente', coalesce(c.ano_bruto, c.modelo), c.placa_bruta is null),
             (3, 'ano do veículo inválido', c.ano_bruto, c.ano_bruto is not null and not c.ano_ok),
             (4, 'ano modelo incoerente', c.ano_bruto, c.ano_ok and (c.mod < c.fab or c.mod > c.fab + 1))
           ) x (ordem, motivo, valor, problema)
       where x.problema
    ), c as (
      -- the rows of valid plates, one per distinct date, tab, year and model (its last row: the
      -- only one of them that can be the latest), each with its ordering key
      -- k: the later row has the larger key: latest date (none last), tab 20 before 30, last
      -- row of the sheet; (data desc nulls last, aba, linha desc) packed into one bigint.
      -- Written inline: a SQL function with a pinned search_path is not inlined.
      select g.placa, g.modelo, coalesce(a.ano_ok, false) as ano_ok, a.fab, a.mod,
             ((coalesce(g.data - date '2000-01-01', -1000000) + 1000000)::bigint * 2 + (g.aba = '20')::integer) * 2147483648 + g.linha as k
        from (select v.placa, v.data, v.aba, v.ano_bruto, v.modelo, max(v.linha) as linha
                from pg_temp.xls_veiculo_lote v join placas p on p.placa = v.placa and p.placa_valida
               group by v.placa, v.data, v.aba, v.ano_bruto, v.modelo) g
        left join anos a on a.ano_bruto = g.ano_bruto
    ), melhores as (
      select c.placa, max(c.k) as k, max(array[c.k, c.fab, c.mod]) filter (where c.ano_ok) as ano,
             max(c.k) filter (where c.modelo is not null) as k_modelo
        from c group by c.placa
    )
    insert into pg_temp.xls_veiculo_cand (placa, k, k_ano, fab, mod, k_modelo, modelo)
    select m.placa, m.k, m.ano[1], m.ano[2]::smallint, m.ano[3]::smallint, m.k_modelo, c.modelo
      from melhores m
      left join c on c.placa = m.placa and c.k = m.k_modelo;
    truncate pg_temp.xls_veiculo_lote;
    return '{}';
  end if;

  if p_fase <> 'fim' then
    return '{}';
  end if;
  -- the vehicle registry: valid plates; a missing year or model keeps the stored one
  insert into public.bi_veiculo as t (placa, ano_fabricacao, ano_modelo, modelo)
  select s.placa, s.fab, s.mod, s.modelo
    from (select v.placa,
                 (max(array[v.k_ano, v.fab, v.mod]) filter (where v.k_ano is not null))[2]::smallint as fab,
                 (max(array[v.k_ano, v.fab, v.mod]) filter (where v.k_ano is not null))[3]::smallint as mod,
                 (array_agg(v.modelo order by v.k_modelo desc) filter (where v.k_modelo is not null))[1] as modelo
            from pg_temp.xls_veiculo_cand v group by v.placa) s
   where not exists (select from public.bi_veiculo t where t.placa = s.placa
                        and t.ano_fabricacao is not distinct from coalesce(s.fab, t.ano_fabricacao)
                        and t.ano_modelo is not distinct from coalesce(s.mod, t.ano_modelo)
                        and t.modelo is not distinct from coalesce(s.modelo, t.modelo))
   order by s.placa
  on conflict (placa) do update
     set ano_fabricacao = coalesce(excluded.ano_fabricacao, t.ano_fabricacao),
         ano_modelo = coalesce(excluded.ano_modelo, t.ano_modelo),
         modelo = coalesce(excluded.modelo, t.modelo)
   where (t.ano_fabricacao, t.ano_modelo, t.modelo) is distinct from
         (coalesce(excluded.ano_fabricacao, t.ano_fabricacao), coalesce(excluded.ano_modelo, t.ano_modelo), coalesce(excluded.modelo, t.modelo));
  get diagnostics v_veiculo = row_count;

  return jsonb_build_object(
    'avisos', app.xls_aviso_linha_avisos(1000), -- the problem rows the chunks kept (rows are imported anyway)
    'tabelas', jsonb_build_object('bi_veiculo', jsonb_build_object('efetivas', v_veiculo)),
    'resultado', jsonb_build_object('periodo', jsonb_build_object('inicio', (p_meta ->> 'periodo_inicio')::date, 'fim', (p_meta ->> 'periodo_fim')::date)));
end;
$_$;


--
-- Name: FUNCTION xls_hook_relatorio18(p_fase text, p_staging text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_hook_relatorio18(p_fase text, p_staging text, p_meta jsonb) IS 'Hook of RELATORIO18 in the declarative merge (app.xls_tipo.hook; phases in docs/xls-merge.md): what belongs to RELATORIO18 only, the vehicle-registry defence (bi_veiculo). inicio: creates its work tables (the period of p_meta is checked by app.xls_merge_preparar, scope periodo, XL422). normalizado: the vehicle-registry defence of the chunk''s rows with any vehicle column (before rejections), each distinct plate and year classified once, problem rows (pg_temp.xls_aviso_linha) and per valid plate the latest candidate kept. fim: the vehicle warnings (avisos categoria veiculo with counts and at most 1000 rows each, app.xls_aviso_linha_avisos), then upserts bi_veiculo (valid plates; a missing year or model keeps the stored one) from the latest row that has each value; returns its count and the period (resultado.periodo). bi_filial, bi_vendedor, bi_cliente and bi_produto are description rows (app.xls_alvo with fonte).';


--
-- Name: xls_mensagem_bot(uuid); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_mensagem_bot(p_id uuid) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select concat_ws(E'\n',
    case p.status when 'SUCESSO' then '✅' when 'IGNORADO' then '⚪' when 'ERRO' then '❌' else '•' end
      || ' Planilha ' || coalesce(p.tipo, 'de tipo desconhecido') || ': ' || p.status,
    'Arquivo: ' || p.arquivo,
    case when p.status = 'SUCESSO' then format('Linhas: %s enviadas, %s gravadas, %s removidas',
      coalesce(p.linhas_enviadas, 0), coalesce(p.linhas_efetivas, 0), coalesce(p.linhas_removidas, 0)) end,
    case when jsonb_array_length(p.linhas_rejeitadas) > 0
      then format('Linhas rejeitadas: %s (a primeira: %s)', jsonb_array_length(p.linhas_rejeitadas), p.linhas_rejeitadas -> 0 ->> 'mensagem') end,
    (select 'Avisos: ' || string_agg(coalesce(a ->> 'motivo', a ->> 'categoria') || coalesce(' (' || (a ->> 'quantidade') || ')', ''), '; ')
       from jsonb_array_elements(p.avisos) a),
    case when p.status in ('ERRO', 'IGNORADO') then 'Motivo: ' || coalesce(p.erro_mensagem, 'não informado') end,
    case when p.conjunto_id is not null then 'Conjunto: ' || p.conjunto_id end,
    'Processamento: ' || p.id)
  from public.xls_processamento p
  where p.id = p_id;
$$;


--
-- Name: FUNCTION xls_mensagem_bot(p_id uuid); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_mensagem_bot(p_id uuid) IS 'The pt-BR messaging-bot text reporting the outcome of a processing (status, type, file, row counts, rejected rows, warnings, reason).';


--
-- Name: xls_merge_chunk(text, jsonb, boolean); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_chunk(p_tipo text, p_meta jsonb, p_final boolean DEFAULT false) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET work_mem TO '64MB'
    AS $$
-- One chunk of a declarative merge: for every target of the type (app.xls_alvo, in order),
-- the rows staged so far are normalised, rows without a required value set aside, a key
-- repeated in the chunk settled (the last row wins), foreign keys checked (XL424), and the
-- target written diff-aware (new keys inserted, changed rows upserted in key order); the
-- staging is emptied. The statements were generated once by app.xls_merge_preparar.
declare
  -- time-ordered ids for new rows: 48-bit ms timestamp, version 7, rand_a 0, variant 10, xls_id_seq
  v_id_prefixo text := lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008';
  e record;
  r record;
  v_n integer;
  v_total integer := 0;
  v_dif integer;
begin
  perform app.xls_staging_exigir(p_tipo);
  if to_regclass('pg_temp.xls_merge_estado') is null then
    perform app.xls_merge_preparar(p_tipo, p_meta);
  elsif exists (select from pg_temp.xls_merge_estado x where x.tipo <> p_tipo) then
    raise exception 'outro merge (%) em andamento nesta transação: chame xls_staging_preparar antes', (select x.tipo from pg_temp.xls_merge_estado x limit 1)
      using errcode = 'XL409';
  elsif exists (select from pg_temp.xls_merge_estado x where x.meta is distinct from coalesce(p_meta, '{}') - 'linhas_rejeitadas') then
    raise exception 'parâmetros % diferentes dos chunks anteriores deste merge (%)', coalesce(p_meta, '{}') - 'linhas_rejeitadas',
      (select x.meta from pg_temp.xls_merge_estado x limit 1) using errcode = 'XL409';
  end if;

  for e in select x.* from pg_temp.xls_merge_estado x where x.fonte is null order by x.ordem loop
    execute format('truncate pg_temp.%I', 'xls_chunk_' || e.staging);
    execute format('insert into pg_temp.%I %s', 'xls_chunk_' || e.staging, e.sql_select);
    get diagnostics v_n = row_count;
    if v_n = 0 then continue; end if;
    execute format('truncate pg_temp.%I', 'xls_stg_' || e.staging);
    perform app.xls_merge_hook(p_tipo, 'normalizado', e.staging, p_meta);
    if e.sql_rejeitar is not null then
      execute e.sql_rejeitar using e.aba, e.staging;
    end if;
    execute e.sql_dedup using e.aba, e.staging;
    perform app.xls_merge_hook(p_tipo, 'aceito', e.staging, p_meta);
    -- the reference tables the target's foreign keys need, from the chunk's accepted rows
    for r in select x.* from pg_temp.xls_merge_estado x where x.fonte = e.staging and x.quando = 'chunk' order by x.ordem loop
      execute format('truncate pg_temp.%I', 'xls_chunk_' || r.staging);
      execute format('insert into pg_temp.%I %s', 'xls_chunk_' || r.staging, r.sql_select);
      v_dif := app.xls_merge_gravar(r.staging, v_id_prefixo);
      update pg_temp.xls_merge_estado x set efetivas = x.efetivas + v_dif, chunks = x.chunks + 1 where x.staging = r.staging;
    end loop;
    v_dif := app.xls_merge_gravar(e.staging, v_id_prefixo);
    execute e.sql_aceitar;
    -- the reference tables written at the end: this chunk's candidates (one row per key)
    for r in select x.sql_cand from pg_temp.xls_merge_estado x where x.fonte = e.staging and x.quando = 'fim' order by x.ordem loop
      execute r.sql_cand;
    end loop;
    -- the hashes are needed only when another chunk of the target came or may come
    if not p_final or e.chunks > 0 then
      execute e.sql_hash;
    end if;
    update pg_temp.xls_merge_estado x set enviadas = x.enviadas + v_n, efetivas = x.efetivas + v_dif, chunks = x.chunks + 1
     where x.staging = e.staging;
    v_total := v_total + v_n;
  end loop;
  return v_total;
end;
$$;


--
-- Name: FUNCTION xls_merge_chunk(p_tipo text, p_meta jsonb, p_final boolean); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_chunk(p_tipo text, p_meta jsonb, p_final boolean) IS 'Internal, one chunk of the declarative merge of a type (called by xls_merge_chunk while the edge reads, and by xls_merge for what is left): per target of app.xls_alvo, normalises the staged rows (trimmed, empty -> NULL, expressions, cut to the column length), sets aside rows with an empty NOT NULL column or a key longer than its column (xls_ocorrencia; a readable key stays protected from deletion), lets the last row of a key repeated in the chunk win, calls hook aceito, writes the reference tables the target refers to (app.xls_alvo.fonte, quando = chunk) from the accepted rows, checks the foreign keys (XL424 naming the missing codes and rows) and writes the target diff-aware (app.xls_merge_gravar) and keeps key, scope column and retained columns of the accepted rows (xls_aceitas_<staging>) for the end; the staging is emptied. The first call of a transaction prepares the merge (app.xls_merge_preparar); every chunk must carry the same parameters (else XL409). Returns the rows taken.';


--
-- Name: xls_merge_fim(text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_fim(p_tipo text, p_meta jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET work_mem TO '64MB'
    AS $_$
-- The end of a declarative merge: the rows still staged as a last chunk, keys repeated across
-- chunks, the type's hook (phase fim), rejected rows (protect their key or suspend the
-- deletes of their tab), the scope deletes, the metrics.
declare
  e record;
  v_n_alvos integer;
  v_bool boolean;
  v_n integer;
  v_rm_t integer;
  v_env integer := 0;
  v_ef integer := 0;
  v_rm integer := 0;
  v_hook jsonb;
  v_rej_leitor jsonb := app.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_rejeitadas jsonb;
  v_avisos jsonb := '[]';
  v_remocoes jsonb := '[]';
  v_tabelas jsonb := '{}';
  v_aux jsonb;
  v_legiveis integer[];
  v_ilegiveis integer[];
  v_abas text;
  -- the mass-deletion guard (bi_configuracao), and whether a person approved this processing's removals
  v_pid uuid := nullif(current_setting('bi.xls_processamento', true), '')::uuid;
  v_lim_pct integer := coalesce((select case when c.valor ~ '^[0-9]{1,9}$' then c.valor::integer end from public.bi_configuracao c where c.chave = 'xls_exclusao_limite_percentual'), 30);
  v_lim_linhas integer := coalesce((select case when c.valor ~ '^[0-9]{1,9}$' then c.valor::integer end from public.bi_configuracao c where c.chave = 'xls_exclusao_limite_linhas'), 100);
  v_aprovado boolean := coalesce((select p.exclusoes_aprovadas_em is not null from public.xls_processamento p where p.id = v_pid), false);
  v_simular boolean := coalesce((p_meta ->> 'simular')::boolean, false);
  v_retidas jsonb := '[]';
  v_escopo_n bigint;
  v_aceitas_n bigint;
  v_escopo_antes bigint;
begin
  perform app.xls_merge_chunk(p_tipo, p_meta, true);
  select count(*) into v_n_alvos from pg_temp.xls_merge_estado x where x.fonte is null;

  -- a key repeated across chunks: its last row stays (the chunks wrote it last, so it is what
  -- the target holds), the earlier rows give way; a key written by several chunks counts once
  for e in select x.* from pg_temp.xls_merge_estado x where x.chunks > 1 and x.fonte is null order by x.ordem loop
    execute format('select exists (select from pg_temp.%I group by h having count(*) > 1)', 'xls_hash_' || e.staging) into v_bool;
    if v_bool then
      execute e.sql_rep;
      execute format($q$
        with d as (delete from pg_temp.%1$I s using pg_temp.%2$I t where %3$s and s.linha < t.ultima returning s.linha)
        insert into pg_temp.xls_ocorrencia select 'duplicada', $1, d.linha, null, $2, true from d$q$,
        'xls_aceitas_' || e.staging, 'xls_rep_' || e.staging, e.sql_on_key_t) using e.aba, e.staging;
      execute format('select coalesce(sum(greatest(escritas - 1, 0)), 0)::integer from pg_temp.%I', 'xls_rep_' || e.staging) into v_n;
      update pg_temp.xls_merge_estado x set efetivas = x.efetivas - v_n, refeito = true where x.staging = e.staging;
    end if;
  end loop;

  -- reference tables written at the end (app.xls_alvo.fonte, quando = fim): from the chunks'
  -- candidates, or, when a key of the fonte repeated across chunks, from the accepted rows that
  -- survived (a row that gave way gives nothing)
  for e in select x.*, f.refeito as fonte_refeita from pg_temp.xls_merge_estado x
             join pg_temp.xls_merge_estado f on f.staging = x.fonte and f.fonte is null
            where x.fonte is not null and x.quando = 'fim' order by x.ordem loop
    execute format('insert into pg_temp.%I %s', 'xls_chunk_' || e.staging, case when e.fonte_refeita then e.sql_select else e.sql_cand_fim end);
    v_n := app.xls_merge_gravar(e.staging, lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008');
    update pg_temp.xls_merge_estado x set efetivas = x.efetivas + v_n where x.staging = e.staging;
  end loop;

  -- rows set aside by SQL (an empty NOT NULL column; the reader normally catches them)
  select coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'campo', o.campo, 'valor', o.valor, 'mensagem', o.mensagem)
                            order by o.aba, o.linha), '[]')
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'rejeitada';
  v_rejeitadas := app.xls_rejeitadas_normalizar(v_rej_leitor || v_aux);

  -- a type that refuses the whole file for any invalid row (app.xls_tipo.recusa_total) writes nothing
  if jsonb_array_length(v_rejeitadas) > 0 and (select t.recusa_total from app.xls_tipo t where t.tipo = p_tipo) then
    raise exception '% recusado, nada gravado: % linha(s) inválida(s): %', p_tipo,
      (select count(distinct (x ->> 'linha')::integer) from jsonb_array_elements(v_rejeitadas) x),
      (select string_agg(x ->> 'mensagem', '; ' order by (x ->> 'linha')::integer, x ->> 'campo') from jsonb_array_elements(v_rejeitadas) x)
      using errcode = 'XL422';
  end if;

  -- what belongs to one type only (defences, checks): {avisos, tabelas, resultado}
  v_hook := app.xls_merge_hook(p_tipo, 'fim', null, p_meta);
  v_avisos := v_avisos || coalesce(v_hook -> 'avisos', '[]');


  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'valor', null) order by o.aba, o.linha))) end
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'duplicada';
  v_avisos := v_avisos || v_aux;

  -- the reader's rejected rows, each with the targets it counts for: the staging it was read
  -- for, else its tab (a tab no target names, or none, counts for every target)
  drop table if exists pg_temp.xls_rej_leitor;
  create temp table xls_rej_leitor on commit drop as
  select m.staging as alvo, r.linha, r.aba, r.valores
    from (select (x ->> 'linha')::integer as linha, x ->> 'aba' as aba, x ->> 'staging' as staging,
                 (array_agg(x -> 'valores') filter (where jsonb_typeof(x -> 'valores') = 'object'))[1] as valores
            from jsonb_array_elements(case when jsonb_typeof(p_meta -> 'linhas_rejeitadas') = 'array' then p_meta -> 'linhas_rejeitadas' else '[]' end) x
           group by 1, 2, 3) r
    join pg_temp.xls_merge_estado m on m.fonte is null
     and (r.staging = m.staging or (r.staging is null and (r.aba is null or v_n_alvos = 1 or r.aba = m.aba
          or not exists (select from pg_temp.xls_merge_estado y where y.fonte is null and y.aba = r.aba))));

  for e in select x.* from pg_temp.xls_merge_estado x order by x.ordem loop
    if e.fonte is not null then
      -- a reference table: written only, never deleted from
      v_tabelas := v_tabelas || jsonb_build_object(e.tabela, jsonb_build_object('efetivas', coalesce((v_tabelas -> e.tabela ->> 'efetivas')::integer, 0) + e.efetivas));
      continue;
    end if;
    -- which of this target's rejected rows have a readable key: their values go through the
    -- same normalisation as accepted rows; a readable key is protected from the scope delete
    v_legiveis := '{}';
    if e.escopo <> 'nenhum' and exists (select from pg_temp.xls_rej_leitor r where r.alvo = e.staging and r.valores is not null) then
      begin
        execute format('insert into pg_temp.%1$I select * from jsonb_populate_recordset(null::pg_temp.%1$I, $1)', 'xls_stg_' || e.staging)
          using (select jsonb_agg(r.valores || jsonb_build_object('linha', r.linha)) from pg_temp.xls_rej_leitor r
                  where r.alvo = e.staging and r.valores is not null);
        execute format($q$
          with n as (select * from (%1$s) z where %2$s and z.xls_longo is null),
          p as (insert into pg_temp.%3$I select %4$s from n)
          select coalesce(array_agg(n.linha), '{}') from n$q$,
          e.sql_select, app.xls_sql_lista('z.%I is not null', ' and ', e.chave),
          'xls_protegidas_' || e.staging, e.sql_key_list) into v_legiveis;
      exception when data_exception or invalid_text_representation then
        v_legiveis := '{}'; -- values that do not even cast: the key is not readable
      end;
      execute format('truncate pg_temp.%I', 'xls_stg_' || e.staging);
    end if;
    select array_agg(distinct u.linha order by u.linha), string_agg(distinct u.aba, ', ')
      into v_ilegiveis, v_abas
      from (select r.linha, coalesce(e.aba, r.aba) as aba from pg_temp.xls_rej_leitor r
             where r.alvo = e.staging and not r.linha = any(v_legiveis)
            union all
            select o.linha, o.aba from pg_temp.xls_ocorrencia o
             where o.tipo = 'rejeitada' and o.staging = e.staging and not o.chave_legivel) u;

    v_rm_t := 0;
    if e.escopo = 'nenhum' then
      null; -- the file never deletes from this table
    elsif e.enviadas = 0 then
      v_remocoes := v_remocoes || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
        'motivo', format('envio vazio%s: nada removido de %s', ' na aba ' || e.aba, e.tabela)));
    elsif v_ilegiveis is not null then
      v_remocoes := v_remocoes || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', cardinality(v_ilegiveis),
        'linhas', (select jsonb_agg(jsonb_build_object('aba', coalesce(e.aba, v_abas), 'linha', l, 'valor', null) order by l) from unnest(v_ilegiveis[1:1000]) l),
        'motivo', format('há linhas rejeitadas sem chave legível%s (%s %s): remoções de %s suspensas; corrija e reenvie',
                         ' na aba ' || v_abas, case when cardinality(v_ilegiveis) = 1 then 'linha' else 'linhas' end,
                         array_to_string(v_ilegiveis[1:10], ', ') || case when cardinality(v_ilegiveis) > 10 then ', …' else '' end, e.tabela)));
    elsif not coalesce(e.vazio, false) then
      -- every key of the file is now stored with the file's values: when the scope holds as
      -- many rows as the file has in it, none is absent and the anti-join is skipped
      execute format('select (select count(*) from public.%I t where %s), (select count(*) from pg_temp.%I s where %s)',
                     e.tabela, e.sql_escopo_t, 'xls_aceitas_' || e.staging, e.sql_escopo_s) into v_escopo_n, v_aceitas_n;
      if v_escopo_n <> v_aceitas_n then
        drop table if exists pg_temp.xls_remover;
        execute format($q$
          create temp table xls_remover on commit drop as
          select t.id from public.%1$I t
           where %2$s
             and not exists (select from pg_temp.%3$I s where %4$s)
             and not exists (select from pg_temp.%5$I s where %4$s)
           order by %6$s$q$,
          e.tabela, e.sql_escopo_t, 'xls_aceitas_' || e.staging, e.sql_on_key_t, 'xls_protegidas_' || e.staging, e.sql_key_list);
        get diagnostics v_rm_t = row_count;
        -- the mass-deletion guard: the scope as it was before this processing (its own inserts left out)
        v_escopo_antes := v_escopo_n - coalesce((select sum(cardinality(a.linha_ids)) from app.xls_alteracao a
                                                  where a.processamento_id = v_pid and a.tabela = e.tabela and a.operacao = 'INSERIDA'), 0);
        if not v_aprovado and v_rm_t >= v_lim_linhas and v_rm_t * 100 > v_lim_pct * greatest(v_escopo_antes, 1) then
          v_retidas := v_retidas || jsonb_build_array(jsonb_build_object('tabela', e.tabela, 'aba', e.aba, 'remover', v_rm_t, 'escopo', v_escopo_antes,
            'percentual', round(v_rm_t * 100.0 / greatest(v_escopo_antes, 1), 1)));
        end if;
        -- held: nothing removed (the raise below undoes the rest); a preview removes anyway, to show what approval would do
        if jsonb_array_length(v_retidas) > 0 and not v_simular then
          v_rm_t := 0;
        else
          execute format('delete from public.%1$I t using (select r.id from pg_temp.xls_remover r join public.%1$I t2 on t2.id = r.id order by r.id for update of t2) alvo where t.id = alvo.id', e.tabela);
          get diagnostics v_rm_t = row_count;
        end if;
      end if;
    end if;
    v_env := v_env + e.enviadas;
    v_ef := v_ef + e.efetivas;
    v_rm := v_rm + v_rm_t;
    v_tabelas := v_tabelas || jsonb_build_object(e.tabela, jsonb_build_object('enviadas', e.enviadas, 'efetivas', e.efetivas, 'removidas', v_rm_t));
  end loop;

  if jsonb_array_length(v_retidas) > 0 and not v_simular then
    raise exception 'importação retida pela trava de exclusão em massa, nada foi gravado: %. Confira se o arquivo está completo; se estiver, aprove com "Aplicar mesmo assim" (ou reprocessar com aprovarExclusoes)',
      (select string_agg(format('removeria %s de %s linhas de %s%s (%s%%, acima do limite de %s%% e %s linhas)',
                                x ->> 'remover', x ->> 'escopo', x ->> 'tabela', ' da aba ' || (x ->> 'aba'), replace(x ->> 'percentual', '.', ','), v_lim_pct, v_lim_linhas), '; ')
         from jsonb_array_elements(v_retidas) x)
      using errcode = 'XL428', detail = v_retidas::text;
  end if;

  return jsonb_build_object(
    'retencao', v_retidas,
    'linhas_enviadas', v_env,
    'linhas_efetivas', v_ef,
    'linhas_removidas', v_rm,
    'avisos', app.xls_avisos_normalizar(v_avisos || v_remocoes),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', v_tabelas || coalesce(v_hook -> 'tabelas', '{}')) || coalesce(v_hook -> 'resultado', '{}');
end;
$_$;


--
-- Name: FUNCTION xls_merge_fim(p_tipo text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_fim(p_tipo text, p_meta jsonb) IS 'Internal, the end of the declarative merge of a type (called by xls_merge): takes what is still staged as a last chunk, settles keys repeated across chunks (the last row stays; linhas_efetivas counts such a key once), refuses the file (XL422) when the type has recusa_total and any row is invalid, calls the type hook (phase fim: reference tables, defences), then per target: a rejected row with a readable key (its values normalised as accepted rows) protects that key from deletion; a row whose key cannot be read suspends the deletes of its own target (tab), with a warning naming the rows; otherwise deletes the rows of the scope absent from the file in key order (skipped when the scope was empty before the merge or holds exactly the file''s rows). The mass-deletion guard: removals of more than xls_exclusao_limite_percentual % of the rows a target''s scope held before this processing, and at least xls_exclusao_limite_linhas rows, raise XL428 (nothing written; detail = the held tables as JSON) unless the processing''s removals were approved (exclusoes_aprovadas_em); with p_meta.simular the held tables are only reported (retencao) and the removals done, as approval would. Returns {retencao, linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas} plus the hook''s resultado.';


--
-- Name: xls_merge_gravar(text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_gravar(p_staging text, p_id_prefixo text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET work_mem TO '64MB'
    AS $$
-- Writes the rows of pg_temp.xls_chunk_<p_staging> to its target with the statements of
-- app.xls_merge_preparar: the foreign-key checks (XL424), the diff (new and changed rows),
-- new keys inserted (a reference table's in key order) and changed rows upserted in key order.
-- Returns the rows written.
declare
  e record;
  v_fk text;
  v_falta record;
  v_dif integer;
begin
  select x.* into e from pg_temp.xls_merge_estado x where x.staging = p_staging;
  foreach v_fk in array e.sql_fk loop
    execute v_fk into v_falta;
    if v_falta.n > 0 then
      raise exception '%', v_falta.rotulo || ': ' || v_falta.faltam || case when v_falta.n > 20 then format(' e mais %s', v_falta.n - 20) else '' end
        using errcode = 'XL424',
              hint = 'o cadastro é criado pelo relatório mestre; dentro de um conjunto (zip) o arquivo é refeito depois que o relatório mestre concluir';
    end if;
  end loop;
  execute format('truncate pg_temp.%I', 'xls_dif_' || p_staging);
  execute e.sql_dif;
  get diagnostics v_dif = row_count;
  if v_dif > 0 then
    execute e.sql_inserir using p_id_prefixo;
    if e.sql_atualizar is not null then
      execute e.sql_atualizar;
    end if;
  end if;
  return v_dif;
end;
$$;


--
-- Name: FUNCTION xls_merge_gravar(p_staging text, p_id_prefixo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_gravar(p_staging text, p_id_prefixo text) IS 'Internal, the write step of the declarative merge for one target (a row of pg_temp.xls_merge_estado): checks its foreign keys on pg_temp.xls_chunk_<staging> (XL424 naming the missing codes and rows), finds the new and changed rows (a kept column compares as the stored value when the sheet''s is empty), inserts new keys with time-ordered ids (p_id_prefixo; in the file''s order for a target of its own type, which the merge lock keeps to one writer, in key order for a reference table other types write too) and upserts changed rows in key order. Returns the rows written. Called by app.xls_merge_chunk and, for reference tables written at the end, app.xls_merge_fim.';


--
-- Name: xls_merge_hook(text, text, text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_hook(p_tipo text, p_fase text, p_staging text, p_meta jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_hook text;
  v_res jsonb;
begin
  select t.hook into v_hook from app.xls_tipo t where t.tipo = p_tipo;
  if v_hook is null then
    return '{}';
  end if;
  execute format('select %s($1, $2, $3)', v_hook::regproc) into v_res using p_fase, p_staging, coalesce(p_meta, '{}');
  return coalesce(v_res, '{}');
end;
$_$;


--
-- Name: FUNCTION xls_merge_hook(p_tipo text, p_fase text, p_staging text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_hook(p_tipo text, p_fase text, p_staging text, p_meta jsonb) IS 'Internal: calls the hook of a spreadsheet type (app.xls_tipo.hook), if it has one, at a phase of the generic merge: inicio (first chunk, p_staging null), normalizado (the chunk of target p_staging normalised, before rejections), aceito (after rejections and repeated keys, before writing), fim (after keys repeated across chunks, before the scope deletes, p_staging null; returns {avisos, tabelas, resultado}). Returns the hook''s jsonb ({} without hook).';


--
-- Name: xls_merge_preparar(text, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_preparar(p_tipo text, p_meta jsonb) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- First chunk of a merge in this transaction: reads the type's description (app.xls_alvo,
-- app.xls_staging_coluna) and the targets' catalog (UNIQUE constraint = natural key,
-- varchar(n) = length, NOT NULL without default = required, foreign keys), generates the
-- statements of every step once with format('%I') and keeps them in pg_temp.xls_merge_estado,
-- one row per target, with the counters; creates the work tables; takes the merge lock.
-- A target with a fonte (a reference table fed by another target's accepted rows) is prepared
-- after the others: its rows come from pg_temp.xls_chunk_<fonte> (written chunk by chunk, when
-- the fonte's table has a foreign key to it) or pg_temp.xls_aceitas_<fonte> (at the end).
declare
  a record;
  v_tabela regclass;
  v_stg text;
  v_chunk text;
  v_aceitas text;
  v_dif text;
  v_origem text;
  v_quando text;
  v_colunas text[];
  v_written text[];
  v_tipos text[];
  v_lens integer[];
  v_notnull boolean[];
  v_chave text[];
  v_naochave text[];
  v_comparar text[];
  v_manter text[];
  v_extras text[];
  v_obrig text[];
  v_reter text[];
  v_guardar text[];
  v_longos text;
  v_select text;
  v_lista text;
  v_cand text;
  v_cand_fim text;
  v_reduzir text;
  v_expr text;
  v_i integer;
  v_fk record;
  v_sql_fk text[];
  v_on_key text;
  v_on_key_t text;
  v_key_list text;
  v_escopo_t text;
  v_escopo_s text;
  v_inicio date;
  v_fim date;
  v_vazio boolean;
  v_aparado boolean := coalesce(jsonb_typeof(p_meta -> 'staging_aparado') = 'boolean' and (p_meta ->> 'staging_aparado')::boolean, false);
begin
  if not exists (select from app.xls_alvo x where x.tipo = p_tipo) then
    raise exception 'o tipo % ainda não tem importação', p_tipo using errcode = 'XL422';
  end if;
  perform app.xls_travar((select array_agg(distinct x.tabela order by x.tabela) from app.xls_alvo x where x.tipo = p_tipo));
  -- what belongs to one type only: checks of p_meta (its own messages first), its own work tables
  perform app.xls_merge_hook(p_tipo, 'inicio', null, p_meta);

  create temp table xls_merge_estado (
    tipo text not null, staging text not null, tabela text not null, ordem integer not null, aba text,
    escopo text not null, escopo_coluna text, chave text[] not null, meta jsonb not null,
    fonte text, quando text not null,
    inicio date, fim date, vazio boolean,
    enviadas integer not null default 0, efetivas integer not null default 0, chunks integer not null default 0,
    refeito boolean not null default false,
    sql_select text not null, sql_rejeitar text, sql_dedup text, sql_fk text[] not null,
    sql_dif text not null, sql_inserir text not null, sql_atualizar text, sql_aceitar text, sql_hash text,
    sql_rep text, sql_cand text, sql_cand_fim text, sql_escopo_t text, sql_escopo_s text, sql_on_key_t text not null,
    sql_key_list text not null
  ) on commit drop;
  -- rows rejected by SQL (chave_legivel: the natural key could be read) and rows that gave way
  -- to a later one with the same key
  create temp table xls_ocorrencia (tipo text, aba text, linha integer, campo text, staging text, chave_legivel boolean,
                                    valor text, mensagem text) on commit drop;

  for a in select x.* from app.xls_alvo x where x.tipo = p_tipo order by x.fonte is not null, x.ordem loop
    v_tabela := to_regclass('public.' || quote_ident(a.tabela));
    if v_tabela is null then
      raise exception 'descrição de %: tabela % não existe', p_tipo, a.tabela using errcode = 'XL500';
    end if;
    v_stg := format('pg_temp.%I', 'xls_stg_' || a.staging);
    v_chunk := format('pg_temp.%I', 'xls_chunk_' || a.staging);
    v_aceitas := format('pg_temp.%I', 'xls_aceitas_' || a.staging);
    v_dif := format('pg_temp.%I', 'xls_dif_' || a.staging);

    -- the columns the target is fed from: its staging's (normalised: text trimmed, empty -> NULL),
    -- or, for a reference table, those of its fonte's chunk or accepted rows
    v_quando := 'chunk';
    v_cand := null;
    v_cand_fim := null;
    if a.fonte is null then
      select array_agg(c.coluna order by c.ordem) into v_colunas
        from app.xls_staging_coluna c where c.tipo = p_tipo and c.staging = a.staging and c.ordem > 1;
      if v_colunas is null then
        raise exception 'descrição de %: staging % sem colunas em app.xls_staging_coluna', p_tipo, a.staging using errcode = 'XL500';
      end if;
      -- text trimmed and '' as NULL, unless the caller says its staging comes so already
      -- (p_meta.staging_aparado: the service's readers trim every text cell and give NULL for
      -- an empty one); those two calls are over half of the normalisation's cost
      v_origem := format('(select linha, %s, %L::jsonb as p_meta from %s)',
        (select string_agg(case when c.tipo_sql = 'text' and not v_aparado then format('nullif(btrim(%1$I), %2$L) as %1$I', c.coluna, '') else quote_ident(c.coluna) end,
                           ', ' order by c.ordem)
           from app.xls_staging_coluna c where c.tipo = p_tipo and c.staging = a.staging and c.ordem > 1),
        coalesce(p_meta, '{}') - 'linhas_rejeitadas', v_stg);
    else
      select e.tabela into v_origem from pg_temp.xls_merge_estado e where e.staging = a.fonte and e.fonte is null;
      if v_origem is null then
        raise exception 'descrição de %: fonte % de % não é um alvo do tipo', p_tipo, a.fonte, a.tabela using errcode = 'XL500';
      end if;
      -- written chunk by chunk when the fonte's table refers to it (its foreign-key check needs it), else at the end
      if exists (select from pg_catalog.pg_constraint con where con.conrelid = to_regclass('public.' || quote_ident(v_origem))
                    and con.contype = 'f' and con.confrelid = v_tabela) then
        v_origem := format('pg_temp.%I', 'xls_chunk_' || a.fonte);
      else
        v_quando := 'fim';
        v_origem := format('pg_temp.%I', 'xls_aceitas_' || a.fonte);
      end if;
      select array_agg(t.attname::text order by t.attnum) into v_colunas
        from pg_catalog.pg_attribute t where t.attrelid = v_origem::regclass and t.attnum > 0 and not t.attisdropped and t.attname <> 'linha';
    end if;

    -- written columns: the target's columns fed by a column of the same name or an expression
    select array_agg(t.attname::text order by t.attnum), array_agg(format_type(t.atttypid, t.atttypmod) order by t.attnum),
           array_agg(case when t.atttypid in ('varchar'::regtype, 'bpchar'::regtype) and t.atttypmod > 4 then t.atttypmod - 4 end order by t.attnum),
           array_agg(t.attnotnull and not t.atthasdef order by t.attnum)
      into v_written, v_tipos, v_lens, v_notnull
      from pg_catalog.pg_attribute t
     where t.attrelid = v_tabela and t.attnum > 0 and not t.attisdropped and t.attgenerated = ''
       and t.attname not in ('id', 'atualizado_em')
       and (a.expressoes ? t.attname::text or t.attname::text = any(v_colunas));

    -- natural key: the target's UNIQUE constraint
    v_chave := app.xls_chave_natural(v_tabela);
    if v_chave is null then
      raise exception 'descrição de %: % precisa de exatamente uma restrição UNIQUE (a chave natural)', p_tipo, a.tabela using errcode = 'XL500';
    end if;
    if not v_chave <@ coalesce(v_written, '{}') then
      raise exception 'descrição de %: a chave natural de % (%) não vem toda do staging %', p_tipo, a.tabela, array_to_string(v_chave, ', '), a.staging
        using errcode = 'XL500';
    end if;
    if a.escopo_coluna is not null and not a.escopo_coluna = any(v_written) then
      raise exception 'descrição de %: coluna de escopo % não é gravada em %', p_tipo, a.escopo_coluna, a.tabela using errcode = 'XL500';
    end if;
    select coalesce(array_agg(w order by o), '{}') into v_naochave from unnest(v_written) with ordinality x (w, o) where not w = any(v_chave);
    v_comparar := coalesce(a.comparar, v_naochave);
    if not v_comparar <@ v_naochave then
      raise exception 'descrição de %: comparar (%) deve listar colunas gravadas fora da chave de %', p_tipo, array_to_string(v_comparar, ', '), a.tabela
        using errcode = 'XL500';
    end if;
    v_manter := a.manter;
    if not v_manter <@ v_naochave then
      raise exception 'descrição de %: manter (%) deve listar colunas gravadas fora da chave de %', p_tipo, array_to_string(v_manter, ', '), a.tabela
        using errcode = 'XL500';
    end if;
    select coalesce(array_agg(w order by o), '{}') into v_obrig from unnest(v_written, v_notnull) with ordinality x (w, nn, o) where nn;
    -- extra columns (not for a reference table): staging columns not written, and expressions naming no target column
    v_extras := '{}';
    if a.fonte is null then
      select coalesce(array_agg(e), '{}') into v_extras
        from (select c as e from unnest(v_colunas) c where not c = any(v_written) and not a.expressoes ? c
              union
              select k from jsonb_object_keys(a.expressoes) k where not k = any(v_written)) x;
    end if;
    v_reter := a.reter;
    if not v_reter <@ (v_extras || v_written) then
      raise exception 'descrição de %: reter (%) nomeia colunas que o chunk não tem', p_tipo, array_to_string(v_reter, ', ') using errcode = 'XL500';
    end if;
    -- what the end needs of every accepted row: key, scope column, retained columns and the
    -- columns a reference table fed at the end reads (its plain-column expressions, its column names)
    select array_agg(distinct w order by w) into v_guardar
      from (select unnest(v_chave || coalesce(a.escopo_coluna, v_chave[1]) || v_reter) as w
            union
            select c from app.xls_alvo f
             cross join lateral (select x.value as c from jsonb_each_text(f.expressoes) x
                                 union select t.attname::text from pg_catalog.pg_attribute t
                                  where t.attrelid = to_regclass('public.' || quote_ident(f.tabela)) and t.attnum > 0) r
             where f.tipo = p_tipo and f.fonte = a.staging and (c = any(v_written) or c = any(v_extras))) g;

    -- the length policy: a key longer than its varchar(n) is a row error (cut, two codes would
    -- become one); so is a column feeding the key of a reference table of this target
    v_longos := null;
    if a.fonte is null then
      select string_agg(format('when length((%s)::text) > %s then array[%L, (%s)::text]', x.expr, x.n, x.coluna, x.expr), ' ' order by x.o)
        into v_longos
        from (select w as coluna, coalesce(a.expressoes ->> w, quote_ident(w)) as expr, n, o
                from unnest(v_written, v_lens) with ordinality u (w, n, o) where w = any(v_chave)
              union all
              select c.c, coalesce(a.expressoes ->> c.c, quote_ident(c.c)), app.xls_tamanho(f.tabela, u.k), 1000 * f.ordem + u.o
                from app.xls_alvo f
               cross join lateral unnest(app.xls_chave_natural(to_regclass('public.' || quote_ident(f.tabela)))) with ordinality u (k, o)
               cross join lateral (select coalesce(f.expressoes ->> u.k, u.k) as c) c
               where f.tipo = p_tipo and f.fonte = a.staging and (c.c = any(v_written) or c.c = any(v_extras))) x
       where x.n is not null;
    end if;

    -- the chunk's select list: target columns cut to their length and cast to their type, extras as they are
    v_select := 's.linha';
    -- (an explicit cast to varchar(n) cuts a longer value, as SQL says: one call, not left() and a cast)
    for v_i in 1 .. cardinality(v_written) loop
      v_expr := coalesce(a.expressoes ->> v_written[v_i], quote_ident(v_written[v_i]));
      v_select := v_select || ', ' || format('(%s)::%s as %I', v_expr, v_tipos[v_i], v_written[v_i]);
    end loop;
    v_select := v_select || coalesce(', ' || app.xls_sql_lista('%s as %I', ', ', (select array_agg(coalesce(a.expressoes ->> e, quote_ident(e))) from unnest(v_extras) e), v_extras), '');
    if a.fonte is null then
      v_select := v_select || format(', case %s end as xls_longo', coalesce(v_longos, 'when false then null::text[]'));
      v_select := format('select %s from %s s', v_select, v_origem);
    else
      -- a reference table: one row per key (a row without key names no reference); the key's last
      -- row gives the columns outside manter, and each manter column takes the last row of the file
      -- that has a value (a value given on an earlier row of the key is not lost; none at all keeps
      -- the stored one). The one rule of every reference table. %1$s: the rows to reduce.
      v_lista := v_select;
      v_reduzir := format('select max(z.linha) as linha, %s from (%%1$s) z where %s group by %s',
        app.xls_sql_lista('%s as %I', ', ', (select array_agg(case when w = any(v_chave) then format('z.%I', w)
                                                                    when w = any(v_manter) then format('(array_agg(z.%1$I order by z.linha desc) filter (where z.%1$I is not null))[1]', w)
                                                                    else format('(array_agg(z.%I order by z.linha desc))[1]', w) end order by o)
                                               from unnest(v_written) with ordinality x (w, o)), v_written),
        app.xls_sql_lista('z.%I is not null', ' and ', v_chave), app.xls_sql_lista('z.%I', ', ', v_chave));
      -- the rows to reduce are first grouped by their values (a hash aggregate keeping each group's
      -- last line): a few rows per key are left to sort instead of every row (same result: the
      -- reduction reads only the last line of each key and of each value)
      v_reduzir := format(v_reduzir, format('select max(y.linha) as linha, %s from (%%1$s) y group by %s',
                                            app.xls_sql_lista('y.%I', ', ', v_written), app.xls_sql_lista('y.%I', ', ', v_written)));
      v_select := format(v_reduzir, format('select %s from %s s', v_lista, v_origem));
      -- written at the end: each chunk reduces its own accepted rows to candidates (one per key, in
      -- the time the reader takes for the next chunk), and the end reduces the candidates; both
      -- reductions keep the last row, so that equals reducing every accepted row, unless a key of
      -- the fonte repeated across chunks (a row that gave way gives nothing): then the end reduces
      -- the accepted rows that survived (sql_select), as without candidates
      if v_quando = 'fim' then
        v_cand := format('insert into pg_temp.%I %s', 'xls_cand_' || a.staging,
                         format(v_reduzir, format('select %s from pg_temp.%I s', v_lista, 'xls_chunk_' || a.fonte)));
        v_cand_fim := format(v_reduzir, format('select s.* from pg_temp.%I s', 'xls_cand_' || a.staging));
      end if;
    end if;

    execute format('create temp table %I on commit drop as %s limit 0', 'xls_chunk_' || a.staging, v_select);
    if v_cand is not null then
      execute format('create temp table %I (like pg_temp.%I) on commit drop', 'xls_cand_' || a.staging, 'xls_chunk_' || a.staging);
    end if;
    execute format('create temp table %I on commit drop as select linha, %s, true as novo from %s limit 0', 'xls_dif_' || a.staging,
                   app.xls_sql_lista('%I', ', ', v_written), v_chunk);
    if a.fonte is null then
      execute format('create temp table %I on commit drop as select linha, %s, true as gravada from %s limit 0', 'xls_aceitas_' || a.staging,
                     app.xls_sql_lista('%I', ', ', v_guardar), v_chunk);
      execute format('create temp table %I (h bigint) on commit drop', 'xls_hash_' || a.staging);
      execute format('create temp table %I on commit drop as select %s from %s limit 0', 'xls_protegidas_' || a.staging,
                     app.xls_sql_lista('%I', ', ', v_chave), v_chunk);
    end if;

    v_on_key := app.xls_sql_lista('%%1$s.%1$I = %%2$s.%1$I', ' and ', v_chave);
    v_on_key_t := format(v_on_key, 't', 's');
    v_key_list := app.xls_sql_lista('%I', ', ', v_chave);

    -- foreign keys of the target: a referenced code missing is a transient failure (XL424)
    v_sql_fk := '{}';
    for v_fk in
      select con.confrelid::regclass as ref,
             array_agg(ca.attname::text order by u.ord) as cols, array_agg(ra.attname::text order by u.ord) as refcols
        from pg_catalog.pg_constraint con
       cross join lateral unnest(con.conkey, con.confkey) with ordinality u (ck, rk, ord)
        join pg_catalog.pg_attribute ca on ca.attrelid = con.conrelid and ca.attnum = u.ck
        join pg_catalog.pg_attribute ra on ra.attrelid = con.confrelid and ra.attnum = u.rk
       where con.conrelid = v_tabela and con.contype = 'f'
       group by con.oid, con.confrelid
    loop
      if not v_fk.cols <@ v_written then continue; end if;
      v_sql_fk := v_sql_fk || format($q$
        select count(*)::integer as n,
               string_agg(format('%%s (%%s %%s)', f.v, case when f.n = 1 then 'linha' else 'linhas' end, f.linhas), ', ' order by f.v)
                 filter (where f.ordem <= 20) as faltam,
               %1$L as rotulo
          from (select concat_ws('/', %2$s) as v, count(*) as n,
                       array_to_string((array_agg(c.linha order by c.linha))[1:10], ', ') || case when count(*) > 10 then ', …' else '' end as linhas,
                       row_number() over (order by concat_ws('/', %2$s)) as ordem
                  from %3$s c
                 where %4$s and not exists (select from %5$s r where %6$s)
                 group by %2$s) f$q$,
        format('%s não cadastrado em %s', array_to_string(v_fk.cols, '/'), v_fk.ref),
        app.xls_sql_lista('c.%I', ', ', v_fk.cols), v_chunk, app.xls_sql_lista('c.%I is not null', ' and ', v_fk.cols),
        v_fk.ref, app.xls_sql_lista('r.%2$I = c.%1$I', ' and ', v_fk.cols, v_fk.refcols));
    end loop;

    -- scope
    v_vazio := null;
    v_inicio := null;
    v_fim := null;
    v_escopo_t := 'true';
    v_escopo_s := 'true';
    if a.escopo = 'periodo' then
      begin
        v_inicio := (p_meta ->> 'periodo_inicio')::date;
        v_fim := (p_meta ->> 'periodo_fim')::date;
      exception when data_exception then
        v_inicio := null;
      end;
      if v_inicio is null or v_fim is null or v_fim < v_inicio then
        raise exception 'período ausente ou inválido (periodo_inicio, periodo_fim): % a %',
          coalesce(p_meta ->> 'periodo_inicio', '?'), coalesce(p_meta ->> 'periodo_fim', '?') using errcode = 'XL422';
      end if;
      v_escopo_t := format('t.%I between %L::date and %L::date', a.escopo_coluna, v_inicio, v_fim);
      v_escopo_s := format('s.%I between %L::date and %L::date', a.escopo_coluna, v_inicio, v_fim);
      execute format('select not exists (select from %s t where %s)', v_tabela, v_escopo_t) into v_vazio;
    elsif a.escopo = 'valores' then
      v_escopo_t := format('t.%1$I in (select distinct s.%1$I from %2$s s)', a.escopo_coluna, v_aceitas);
    elsif a.escopo = 'meses' then
      v_escopo_t := format('exists (select from (select distinct date_trunc(''month'', s.%1$I)::date as m from %2$s s) m where t.%1$I >= m.m and t.%1$I < (m.m + interval ''1 month'')::date)',
                           a.escopo_coluna, v_aceitas);
    elsif a.escopo = 'tudo' then
      execute format('select not exists (select from %s t)', v_tabela) into v_vazio;
    else -- nenhum: the file never deletes from this table
      v_escopo_t := null;
      v_escopo_s := null;
    end if;

    insert into pg_temp.xls_merge_estado (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, chave, meta, fonte, quando, inicio, fim, vazio,
      sql_select, sql_rejeitar, sql_dedup, sql_fk, sql_dif, sql_inserir, sql_atualizar, sql_aceitar, sql_hash, sql_rep,
      sql_cand, sql_cand_fim, sql_escopo_t, sql_escopo_s, sql_on_key_t, sql_key_list)
    values (p_tipo, a.staging, a.tabela, a.ordem, a.aba, a.escopo, a.escopo_coluna, v_chave, coalesce(p_meta, '{}') - 'linhas_rejeitadas',
      a.fonte, v_quando, v_inicio, v_fim, v_vazio,
      v_select,
      -- rows a NOT NULL column (key or not) of which is empty, or a key longer than its column: set
      -- aside; their key, when readable, stays protected
      case when a.fonte is null and (cardinality(v_obrig) > 0 or v_longos is not null) then format($q$
        with r as (
          delete from %1$s c where %2$s
          returning c.linha, coalesce(c.xls_longo[1], case %3$s end) as campo, c.xls_longo[2] as valor,
                    (%4$s and (c.xls_longo is null or not c.xls_longo[1] = any(%8$L::text[]))) as legivel, %5$s)
        , p as (insert into %6$s select %7$s from r where r.legivel)
        insert into pg_temp.xls_ocorrencia (tipo, aba, linha, campo, staging, chave_legivel, valor, mensagem)
        select 'rejeitada', $1, r.linha, r.campo, $2, r.legivel, coalesce(r.valor, ''),
               format(case when r.valor is null then 'linha %%s: %%s '''' inválido' else 'linha %%s: %%s ''%%s'' longo demais' end, r.linha, r.campo, r.valor)
          from r$q$,
        v_chunk,
        concat_ws(' or ', app.xls_sql_lista('c.%I is null', ' or ', v_obrig), case when v_longos is not null then 'c.xls_longo is not null' end),
        coalesce(app.xls_sql_lista('when c.%1$I is null then %1$L', ' ', v_obrig), 'when false then null'),
        app.xls_sql_lista('c.%I is not null', ' and ', v_chave),
        app.xls_sql_lista('c.%I', ', ', v_chave),
        format('pg_temp.%I', 'xls_protegidas_' || a.staging),
        app.xls_sql_lista('r.%I', ', ', v_chave),
        v_chave) end,
      -- a key repeated in the chunk: its last row wins (a hash aggregate finds the repeated keys; only their rows are sorted)
      case when a.fonte is null then format($q$
        with dup as (select %1$s from %2$s group by %1$s having count(*) > 1),
        d as (
          delete from %2$s c
           using (select s.ctid, row_number() over (partition by %3$s order by s.linha desc, s.ctid desc) as rn
                    from %2$s s join dup t on %4$s) x
           where c.ctid = x.ctid and x.rn > 1
          returning c.linha)
        insert into pg_temp.xls_ocorrencia select 'duplicada', $1, d.linha, null, $2, true from d$q$,
        v_key_list, v_chunk, app.xls_sql_lista('s.%I', ', ', v_chave), v_on_key_t) end,
      v_sql_fk,
      -- one probe of the natural-key index per row keeps the new (novo) and changed rows; a kept
      -- column compares as the stored value when the sheet's is empty
      format($q$
        insert into %1$s
        select s.linha, %2$s, t.id is null
          from %3$s s
          left join lateral (select t.id%4$s from %5$s t where %6$s limit 1) t on true
         where t.id is null%7$s$q$,
        v_dif, app.xls_sql_lista('s.%I', ', ', v_written), v_chunk,
        coalesce(app.xls_sql_lista(', t.%I', '', v_comparar), ''), v_tabela, v_on_key_t,
        case when cardinality(v_comparar) > 0 then format(' or (%s, null) is distinct from (%s, null)',
          app.xls_sql_lista('t.%I', ', ', v_comparar),
          app.xls_sql_lista('%s', ', ', (select array_agg(case when w = any(v_manter) then format('coalesce(s.%1$I, t.%1$I)', w) else format('s.%I', w) end order by o)
                                           from unnest(v_comparar) with ordinality x (w, o))))
        else '' end),
      -- new keys: plain INSERT with time-ordered ids. A target of its own type is written in the
      -- file's order (the merge lock excludes a concurrent writer; sorting 25,000 rows on the key
      -- cost more than it saved the index, measured); a reference table, which other types write
      -- too, in key order (two merges never take the same keys in opposite orders)
      format($q$
        insert into %1$s (id, %2$s)
        select ($1 || lpad(to_hex(nextval('public.xls_id_seq')), 15, '0'))::uuid, o.*
          from (select %2$s from %3$s s where s.novo%4$s) o$q$,
        v_tabela, app.xls_sql_lista('%I', ', ', v_written), v_dif, case when a.fonte is null then '' else ' order by ' || v_key_list end),
      -- changed rows: the diff-aware upsert in key order (a kept column keeps the stored value when the sheet's is empty)
      case when cardinality(v_naochave) > 0 then format($q$
        insert into %1$s as t (%2$s)
        select %2$s from %3$s s where not s.novo order by %4$s
        on conflict (%4$s) do update set %5$s
         where (%6$s, null) is distinct from (%7$s, null)$q$,
        v_tabela, app.xls_sql_lista('%I', ', ', v_written), v_dif, v_key_list,
        app.xls_sql_lista('%1$I = %2$s', ', ', v_naochave,
          (select array_agg(case when w = any(v_manter) then format('coalesce(excluded.%1$I, t.%1$I)', w) else format('excluded.%I', w) end order by o)
             from unnest(v_naochave) with ordinality x (w, o))),
        app.xls_sql_lista('t.%I', ', ', coalesce(nullif(v_comparar, '{}'), v_naochave)),
        app.xls_sql_lista('%s', ', ', (select array_agg(case when w = any(v_manter) then format('coalesce(excluded.%1$I, t.%1$I)', w) else format('excluded.%I', w) end order by o)
                                         from unnest(coalesce(nullif(v_comparar, '{}'), v_naochave)) with ordinality x (w, o)))) end,
      -- what the end needs of every accepted row: key, scope column, retained columns, written or
      -- not (the diff carries the chunk's line, unique in the chunk: an integer join, not one on the key)
      case when a.fonte is null then format($q$
        insert into %1$s (linha, %2$s, gravada)
        select c.linha, %3$s, d.linha is not null from %4$s c left join %5$s d on d.linha = c.linha$q$,
        v_aceitas, app.xls_sql_lista('%I', ', ', v_guardar), app.xls_sql_lista('c.%I', ', ', v_guardar),
        v_chunk, v_dif) end,
      -- the hash of each accepted key: a key repeated across chunks is looked for only when a hash repeats
      case when a.fonte is null then format($q$insert into %1$s select hashtextextended(concat_ws(chr(31), %2$s), 0) from %3$s c$q$,
        format('pg_temp.%I', 'xls_hash_' || a.staging), app.xls_sql_lista('c.%I::text', ', ', v_chave), v_chunk) end,
      -- keys repeated across chunks: the last row stays (the chunks wrote it last)
      case when a.fonte is null then format($q$
        create temp table %1$I on commit drop as
        select %2$s, max(linha) as ultima, count(*) filter (where gravada) as escritas from %3$s group by %2$s having count(*) > 1$q$,
        'xls_rep_' || a.staging, v_key_list, v_aceitas) end,
      v_cand, v_cand_fim, v_escopo_t, v_escopo_s, v_on_key_t, v_key_list);
  end loop;
end;
$_$;


--
-- Name: FUNCTION xls_merge_preparar(p_tipo text, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_preparar(p_tipo text, p_meta jsonb) IS 'Internal, first chunk of a merge (called by app.xls_merge_chunk): takes the merge lock of the type''s target tables, reads the description (app.xls_alvo, app.xls_staging_coluna) and the targets'' catalog (UNIQUE constraint = natural key, varchar(n) = length, NOT NULL without default = required, foreign keys = XL424 checks), generates every statement once with format(%I) (lists by app.xls_sql_lista) into pg_temp.xls_merge_estado and creates the work tables pg_temp.xls_chunk_<staging>, xls_dif_, xls_aceitas_, xls_hash_, xls_protegidas_ and xls_ocorrencia. A target with a fonte (a reference table) reads its fonte''s chunk (quando = chunk: the fonte''s table has a foreign key to it) or accepted rows (quando = fim), one row per key (the key''s last row, each manter column from the last row of the file that has a value), and is never deleted from. A key longer than its varchar(n), or a column feeding the key of such a reference table, makes a row error (longo demais). A description the catalog contradicts raises XL500; a periodo scope without a valid period XL422. Calls the type hook''s phase inicio. The normalisation trims text and turns '''' into NULL unless p_meta.staging_aparado is true (the caller''s staging has no leading or trailing space and no empty string: the service''s readers).';


--
-- Name: xls_merge_tipo(uuid, jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_merge_tipo(p_processamento_id uuid, p_meta jsonb) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_tipo text;
  v_status text;
  v_execucoes integer;
begin
  select p.tipo, p.status, p.execucoes into v_tipo, v_status, v_execucoes from public.xls_processamento p where p.id = p_processamento_id for update;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_status <> 'PROCESSANDO' then
    raise exception 'processamento % está em %: só se importa um processamento em PROCESSANDO', p_processamento_id, v_status
      using errcode = 'XL409';
  end if;
  if p_meta is not null and jsonb_typeof(p_meta) <> 'object' then
    raise exception 'p_meta deve ser um objeto JSON' using errcode = 'XL400';
  end if;
  -- fencing token: the run (execucoes returned by xls_iniciar) the caller merges for
  if p_meta ? 'execucao' and (p_meta ->> 'execucao') is distinct from v_execucoes::text then
    raise exception 'processamento % está na execução %: a execução % foi substituída e não pode gravar', p_processamento_id, v_execucoes, p_meta ->> 'execucao'
      using errcode = 'XL409';
  end if;
  if v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  if not exists (select from app.xls_alvo a where a.tipo = v_tipo) then
    raise exception 'o tipo % ainda não tem importação', v_tipo using errcode = 'XL422';
  end if;
  -- every bi_* row written from here to the commit goes into this processing's change set
  perform set_config('bi.xls_processamento', p_processamento_id::text, true);
  return v_tipo;
end;
$$;


--
-- Name: FUNCTION xls_merge_tipo(p_processamento_id uuid, p_meta jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_merge_tipo(p_processamento_id uuid, p_meta jsonb) IS 'Internal, the common entry of public.xls_merge and public.xls_merge_chunk: locks the processing row and returns its tipo once it is PROCESSANDO, typed, described in app.xls_alvo and p_meta is an object, and sets the transaction setting bi.xls_processamento to its id (the change-set trigger app.tg__xls_alteracao records every bi_* row written until the commit); when p_meta carries execucao (the fencing token: execucoes returned by xls_iniciar; the service always passes it) it must be the current run. Errors in this order: XL404 unknown processing, XL409 not PROCESSANDO, XL400 p_meta not an object, XL409 another run (execucao), XL409 no tipo, XL422 type without import.';


--
-- Name: xls_orfao(uuid, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_orfao(p_id uuid, p_worker text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select not app.xls_worker_vivo(p_worker)
      or not exists (select from app.job j
                      where j.kind = 'xls_processar' and j.status = 'running' and j.locked_by = p_worker
                        and j.payload ->> 'id' = p_id::text);
$$;


--
-- Name: FUNCTION xls_orfao(p_id uuid, p_worker text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_orfao(p_id uuid, p_worker text) IS 'True when a PROCESSANDO processing held by p_worker has nobody working on it: the worker is dead (no heartbeat within app.worker_timeout()), or it holds no running xls_processar job for it (the job ended, or was rescued and given to another worker).';


--
-- Name: xls_rejeitadas_normalizar(jsonb); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_rejeitadas_normalizar(p_linhas jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_out jsonb;
begin
  if p_linhas is null or jsonb_typeof(p_linhas) = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_linhas) <> 'array' then
    raise exception 'linhas_rejeitadas deve ser uma lista JSON' using errcode = 'XL400';
  end if;
  if exists (select from jsonb_array_elements(p_linhas) e
              where jsonb_typeof(e) <> 'object' or jsonb_typeof(e -> 'linha') <> 'number') then
    raise exception 'linha rejeitada inválida: cada item precisa de {linha, campo, valor, mensagem}' using errcode = 'XL400';
  end if;
  select coalesce(jsonb_agg(jsonb_build_object(
           'aba', e ->> 'aba',
           'linha', (e ->> 'linha')::integer,
           'campo', e ->> 'campo',
           'valor', e ->> 'valor',
           'mensagem', coalesce(e ->> 'mensagem',
                                format('linha %s: %s ''%s'' inválido', e ->> 'linha', e ->> 'campo', coalesce(e ->> 'valor', '')))
         ) order by e ->> 'aba' nulls first, (e ->> 'linha')::integer), '[]')
    into v_out
    from jsonb_array_elements(p_linhas) e;
  return v_out;
exception
  when invalid_text_representation or numeric_value_out_of_range then
    raise exception 'linha rejeitada com número inválido' using errcode = 'XL400';
end;
$$;


--
-- Name: FUNCTION xls_rejeitadas_normalizar(p_linhas jsonb); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_rejeitadas_normalizar(p_linhas jsonb) IS 'Normalises the rows rejected by the reader (RowError: {linha, campo, valor, mensagem}, optional aba) to the stored shape [{aba, linha, campo, valor, mensagem}] ordered by tab and row. XL400 for anything else.';


--
-- Name: xls_reprocessar_em_erro(uuid, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_reprocessar_em_erro(p_conjunto_id uuid, p_tipo text) RETURNS uuid[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  for v_id in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO'
       and (p_conjunto_id is null or p.conjunto_id = p_conjunto_id)
       and (p_tipo is null or p.tipo = p_tipo)
     order by p.recebido_em, p.id for update skip locked
  loop
    if app.xls_fk_aguardando(v_id) is not null then
      v_ids := v_ids || v_id; -- keeps waiting for its batch's master report: the batch close reprocesses it
    elsif app.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return v_ids;
end;
$$;


--
-- Name: FUNCTION xls_reprocessar_em_erro(p_conjunto_id uuid, p_tipo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_reprocessar_em_erro(p_conjunto_id uuid, p_tipo text) IS 'Internal, the one shape of xls_reprocessar_conjunto and xls_reprocessar_erros: every processing in ERRO (of batch p_conjunto_id and of type p_tipo, each when given), oldest first, skipping rows locked by another transaction, -> PENDENTE (app.xls_requeue). Returns the ids reprocessed; one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting, is not requeued, and is returned too (the batch close reprocesses it). Checks nothing: its callers validate their argument.';


--
-- Name: xls_requeue(uuid, text[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_requeue(p_id uuid, p_de text[] DEFAULT ARRAY['ERRO'::text]) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  update public.xls_processamento
     set status = 'PENDENTE', iniciado_em = null, finalizado_em = null, worker = null, erro_mensagem = null, erro_codigo = null,
         erro_anterior = case when status = 'ERRO' then erro_mensagem end,
         avisos = '[]', linhas_rejeitadas = '[]', metricas = null,
         linhas_enviadas = null, linhas_efetivas = null, linhas_removidas = null,
         fk_retentar = false, alarmar = false, retentar_em = null
   where id = p_id and status = any(p_de);
  if not found then
    return false;
  end if;
  perform app.xls_enfileirar(p_id);
  return true;
end;
$$;


--
-- Name: FUNCTION xls_requeue(p_id uuid, p_de text[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_requeue(p_id uuid, p_de text[]) IS 'Internal transition shared by resend, reprocess buttons and the batch FK retry: puts a processing whose status is in p_de (default ERRO) back to PENDENTE, clears the results of the previous run (metrics, warnings, rejected rows, error; the error message moves to erro_anterior when it came from ERRO, so the list keeps it among the errors until it ends) and queues its job. False (nothing done) when the status is not in p_de. Callers check and lock.';


--
-- Name: xls_sql_lista(text, text, text[], text[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_sql_lista(p_modelo text, p_sep text, p_a text[], p_b text[] DEFAULT NULL::text[]) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select string_agg(format(p_modelo, x.a, x.b), p_sep order by x.o)
    from unnest(p_a, coalesce(p_b, p_a)) with ordinality x (a, b, o);
$$;


--
-- Name: FUNCTION xls_sql_lista(p_modelo text, p_sep text, p_a text[], p_b text[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_sql_lista(p_modelo text, p_sep text, p_a text[], p_b text[]) IS 'Internal, the SQL lists the declarative merge generates: format(p_modelo, a[i], b[i]) for every element of p_a (and of p_b, which defaults to p_a), in order, joined by p_sep; null for an empty list. Example: app.xls_sql_lista(''t.%1$I = s.%1$I'', '' and '', chave).';


--
-- Name: xls_staging_exigir(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_staging_exigir(p_tipo text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_staging text;
begin
  for v_staging in select distinct d.staging from public.xls_staging_definicao(p_tipo) d loop
    if to_regclass('pg_temp.xls_stg_' || v_staging) is null then
      raise exception 'staging % ausente: chame xls_staging_preparar(%) e o COPY na mesma transação do merge', v_staging, p_tipo
        using errcode = 'XL500';
    end if;
  end loop;
end;
$$;


--
-- Name: FUNCTION xls_staging_exigir(p_tipo text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_staging_exigir(p_tipo text) IS 'Raises XL500 unless every staging temp table of the type exists in this transaction.';


--
-- Name: xls_tabelas_nivel(text[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_tabelas_nivel(p_tabelas text[]) RETURNS TABLE(tabela text, nivel integer)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  -- level 0: references no other table of public; level n: the longest chain of references
  with recursive fk as (
    select distinct c.conrelid::regclass::text as filha, c.confrelid::regclass::text as mae
      from pg_catalog.pg_constraint c
     where c.contype = 'f' and c.conrelid <> c.confrelid and c.connamespace = 'public'::regnamespace),
  caminho (tabela, nivel) as (
    select fk.filha, 1 from fk
    union all
    select fk.filha, c.nivel + 1 from caminho c join fk on fk.mae = c.tabela where c.nivel < 20)
  select t, coalesce(max(c.nivel), 0)::integer
    from unnest(p_tabelas) t left join caminho c on c.tabela = 'public.' || t
   group by t;
$$;


--
-- Name: FUNCTION xls_tabelas_nivel(p_tabelas text[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_tabelas_nivel(p_tabelas text[]) IS 'Internal: the foreign-key depth of each table of p_tabelas (0 = references no other table of public): the undo removes rows deepest first and puts rows back shallowest first.';


--
-- Name: xls_tamanho(text, text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_tamanho(p_tabela text, p_coluna text) RETURNS integer
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select case when a.atttypid in ('varchar'::regtype, 'bpchar'::regtype) and a.atttypmod > 4 then a.atttypmod - 4 end
    from pg_catalog.pg_attribute a
   where a.attrelid = to_regclass('public.' || quote_ident(p_tabela)) and a.attname = p_coluna and not a.attisdropped;
$$;


--
-- Name: FUNCTION xls_tamanho(p_tabela text, p_coluna text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_tamanho(p_tabela text, p_coluna text) IS 'The maximum length of public.<p_tabela>.<p_coluna> (its varchar(n) or char(n)), null when unbounded: hooks cut values to it instead of repeating the number (the declarative merge cuts the target columns itself).';


--
-- Name: xls_transicao_recusada(uuid, text, text, integer); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text, p_execucao integer DEFAULT NULL::integer) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_status text;
  v_worker text;
  v_execucoes integer;
begin
  select p.status, p.worker, p.execucoes into v_status, v_worker, v_execucoes from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_status = 'PROCESSANDO' and v_worker = p_worker and p_execucao is not null and p_execucao <> v_execucoes then
    raise exception 'processamento % está na execução %: a execução % (worker %) foi substituída e não pode levá-lo a %',
      p_id, v_execucoes, p_execucao, p_worker, p_destino using errcode = 'XL409';
  end if;
  raise exception 'processamento % está em % (worker %): o worker % não pode levá-lo a %',
    p_id, v_status, coalesce(v_worker, '-'), coalesce(p_worker, '-'), p_destino using errcode = 'XL409';
end;
$$;


--
-- Name: FUNCTION xls_transicao_recusada(p_id uuid, p_worker text, p_destino text, p_execucao integer); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text, p_execucao integer) IS 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker, or, when the same worker holds it under another run (execucoes <> p_execucao, the fencing token), naming both runs.';


--
-- Name: xls_travar(text[]); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_travar(p_tabelas text[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_tabela text;
begin
  for v_tabela in select distinct t from unnest(p_tabelas) t order by t loop
    perform pg_advisory_xact_lock(hashtextextended('xls_merge:' || v_tabela, 0));
  end loop;
end;
$$;


--
-- Name: FUNCTION xls_travar(p_tabelas text[]); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_travar(p_tabelas text[]) IS 'Serialises merges that delete within a scope of the same tables: one transaction advisory lock per table name (taken in name order, released at commit). Reading, parsing and COPY of concurrent processings still run in parallel.';


--
-- Name: xls_worker_vivo(text); Type: FUNCTION; Schema: app; Owner: -
--

CREATE FUNCTION app.xls_worker_vivo(p_worker text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select exists (select from app.worker w where w.id = p_worker and w.heartbeat_at > now() - app.worker_timeout());
$$;


--
-- Name: FUNCTION xls_worker_vivo(p_worker text); Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON FUNCTION app.xls_worker_vivo(p_worker text) IS 'True when the app.worker p_worker heartbeated within app.worker_timeout().';


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
-- Name: configuracao_criar(text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_criar(p_chave text, p_valor text, p_tipo text, p_descricao text DEFAULT NULL::text) RETURNS public.bi_configuracao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_row public.bi_configuracao;
  v_valor text;
begin
  if p_chave is null or p_chave !~ '^[a-z][a-z0-9_]{0,62}$' then
    raise exception 'chave ''%'' inválida: use letras minúsculas, dígitos e _ (começando por letra, até 63)', p_chave using errcode = 'CF400';
  end if;
  if p_tipo is null or p_tipo not in ('string', 'integer', 'boolean', 'duration') then
    raise exception 'tipo ''%'' inválido: string (texto), integer (número inteiro), boolean (sim/não) ou duration (duração)', p_tipo using errcode = 'CF400';
  end if;
  v_valor := public.configuracao_valor_normalizar(p_tipo, p_valor);
  if v_valor is null then
    raise exception 'valor ''%'' inválido: use %', coalesce(p_valor, ''), app.configuracao_tipo_dica(p_tipo) using errcode = 'CF400';
  end if;
  insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao)
  values (p_chave, v_valor, p_tipo, false, nullif(btrim(p_descricao), ''))
  on conflict (chave) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'a chave % já existe', p_chave using errcode = 'CF409';
  end if;
  return v_row;
end;
$_$;


--
-- Name: FUNCTION configuracao_criar(p_chave text, p_valor text, p_tipo text, p_descricao text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_criar(p_chave text, p_valor text, p_tipo text, p_descricao text) IS 'Adds a configuration key (never a system key: sistema = false). CF400 malformed key, unknown type or value invalid for the type (the message says the type in words, with examples); the value is stored in the form configuracao_valor_normalizar gives (''5 minutos'' -> PT5M); CF409 the key already exists.';


--
-- Name: configuracao_definir(text, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS public.bi_configuracao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.bi_configuracao;
  v_valor text;
  v_t record;
begin
  v_t := app.configuracao_travar(p_chave, 'alterar', p_valor, p_versao_esperada);
  v_row := v_t.linha;
  v_valor := v_t.valor;
  if v_row.valor is distinct from v_valor then
    update public.bi_configuracao set valor = v_valor where id = v_row.id returning * into v_row;
  end if;
  return v_row;
end;
$$;


--
-- Name: FUNCTION configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone) IS 'Changes the value of a non-system configuration key. Errors, in this order of precedence: CF404 unknown key, CF403 system key, CF400 value invalid for the key''s type (the value is stored in the form configuracao_valor_normalizar gives: ''5 minutos'' -> PT5M), CF409 the row changed since p_versao_esperada (its atualizado_em). Writing the same value is a no-op.';


--
-- Name: configuracao_remover(text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_remover(p_chave text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS public.bi_configuracao
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.bi_configuracao;
begin
  v_row := (app.configuracao_travar(p_chave, 'remover', null, p_versao_esperada)).linha;
  delete from public.bi_configuracao where id = v_row.id;
  return v_row;
end;
$$;


--
-- Name: FUNCTION configuracao_remover(p_chave text, p_versao_esperada timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_remover(p_chave text, p_versao_esperada timestamp with time zone) IS 'Removes a non-system configuration key and returns the removed row. Errors in this order: CF404 unknown key, CF403 system key, CF409 the row changed since p_versao_esperada (its atualizado_em).';


--
-- Name: configuracao_valor_normalizar(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.configuracao_valor_normalizar(p_tipo text, p_valor text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
declare
  -- 2^53 - 1: the largest integer a JavaScript client (the phones) holds exactly
  c_max constant bigint := 9007199254740991;
  v text := btrim(p_valor);
  m text[];
  v_n numeric;
  v_iso text;
  v_seg numeric;
begin
  if p_valor is null then
    return null;
  end if;
  case p_tipo
  when 'string' then
    return p_valor;
  when 'integer' then
    if v !~ '^[+-]?[0-9]{1,16}$' then
      return null;
    end if;
    if abs(v::bigint) > c_max then
      return null;
    end if;
    return (v::bigint)::text;
  when 'boolean' then
    return case lower(v)
      when 'true' then 'true' when 'sim' then 'true'
      when 'false' then 'false' when 'não' then 'false' when 'nao' then 'false'
    end;
  when 'duration' then
    -- the stored forms: ISO-8601 (PT30S, P1DT2H) or a Postgres interval literal ('30 seconds',
    -- '5 min'); Portuguese words ('5 minutos', '2 horas', '1 dia') become ISO-8601
    if v ~ '^P(?!$)([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$'
       or v ~ '^[0-9]+ ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$' then
      v_iso := v;
    else
      m := regexp_match(lower(v), '^([0-9]{1,16}) *(ms|milissegundos?|s|seg|segundos?|min|minutos?|h|horas?|d|dias?|semanas?)$');
      if m is null then
        return null;
      end if;
      v_n := m[1]::numeric;
      v_iso := case
        when m[2] in ('ms', 'milissegundo', 'milissegundos') then 'PT' || trim_scale(v_n / 1000) || 'S'
        when m[2] in ('s', 'seg', 'segundo', 'segundos') then 'PT' || v_n || 'S'
        when m[2] in ('min', 'minuto', 'minutos') then 'PT' || v_n || 'M'
        when m[2] in ('h', 'hora', 'horas') then 'PT' || v_n || 'H'
        when m[2] in ('d', 'dia', 'dias') then 'P' || v_n || 'D'
        else 'P' || v_n || 'W'
      end;
    end if;
    -- bounded by what Postgres (interval) and a JavaScript client (milliseconds below 2^53) hold
    begin
      v_seg := extract(epoch from v_iso::interval);
    exception when others then
      return null;
    end;
    if v_seg < 0 or v_seg * 1000 > c_max then
      return null;
    end if;
    return v_iso;
  else
    return null;
  end case;
end;
$_$;


--
-- Name: FUNCTION configuracao_valor_normalizar(p_tipo text, p_valor text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.configuracao_valor_normalizar(p_tipo text, p_valor text) IS 'The stored form of a configuration value, or null when p_valor is not valid for p_tipo. integer: digits, |n| <= 2^53-1 (exact in a JavaScript client), leading zeros and + dropped; boolean: true/false (sim/não accepted); duration: ISO-8601 (PT30S, P1DT2H) or a Postgres interval literal (''30 seconds'', ''5 min'') kept as written, Portuguese (''5 minutos'', ''30 s'', ''2 horas'', ''1 dia'', ''2 semanas'') turned into ISO-8601 (PT5M, P1D), at most 2^53-1 milliseconds and castable to interval; string: unchanged. Example: select configuracao_valor_normalizar(''duration'', ''5 minutos''); -- PT5M';


--
-- Name: destinatario; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.destinatario (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
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
-- Name: destinatario_remover(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.destinatario_remover(p_id uuid) RETURNS public.destinatario
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.destinatario;
begin
  delete from public.destinatario where id = p_id returning * into v_row;
  if v_row.id is null then
    raise exception 'destinatário % não existe', p_id using errcode = 'DS404';
  end if;
  return v_row;
end;
$$;


--
-- Name: FUNCTION destinatario_remover(p_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.destinatario_remover(p_id uuid) IS 'Removes a recipient of the webhook alert e-mails and returns it. DS404 unknown id. To stop sending without removing, save it with ativo = false.';


--
-- Name: destinatario_salvar(uuid, text, text, boolean, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.destinatario_salvar(p_id uuid, p_email text, p_nome text, p_ativo boolean DEFAULT true, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS public.destinatario
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_row public.destinatario;
  v_email text := btrim(coalesce(p_email, ''));
begin
  if p_id is not null then
    select * into v_row from public.destinatario where id = p_id for update;
    if not found then
      raise exception 'destinatário % não existe', p_id using errcode = 'DS404';
    end if;
  end if;
  if v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' or length(v_email) > 254 then
    raise exception 'e-mail ''%'' inválido', v_email using errcode = 'DS400';
  end if;
  if p_id is not null and p_versao_esperada is not null
     and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'o destinatário % foi alterado por outra pessoa; recarregue e tente de novo', v_row.email using errcode = 'DS409';
  end if;
  if exists (select 1 from public.destinatario d where lower(d.email) = lower(v_email) and d.id is distinct from p_id) then
    raise exception 'o e-mail % já está na lista', v_email using errcode = 'DS409';
  end if;
  if p_id is null then
    insert into public.destinatario (email, nome, ativo)
    values (v_email, nullif(btrim(p_nome), ''), coalesce(p_ativo, true))
    returning * into v_row;
  else
    update public.destinatario set email = v_email, nome = nullif(btrim(p_nome), ''), ativo = coalesce(p_ativo, true)
     where id = p_id
    returning * into v_row;
  end if;
  return v_row;
exception
  when unique_violation then
    raise exception 'o e-mail % já está na lista', v_email using errcode = 'DS409';
end;
$_$;


--
-- Name: FUNCTION destinatario_salvar(p_id uuid, p_email text, p_nome text, p_ativo boolean, p_versao_esperada timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.destinatario_salvar(p_id uuid, p_email text, p_nome text, p_ativo boolean, p_versao_esperada timestamp with time zone) IS 'Adds (p_id null) or edits a recipient of the webhook alert e-mails (/destinatarios). Errors in this order: DS404 unknown id, DS400 invalid e-mail, DS409 the row changed since p_versao_esperada or the e-mail (case-insensitive) is already on the list.';


--
-- Name: dia_util(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.dia_util(p_data date) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select extract(isodow from p_data) < 6
     and public.feriado_nacional(p_data) is null
     and not exists (select from public.feriado f where f.data = p_data);
$$;


--
-- Name: FUNCTION dia_util(p_data date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.dia_util(p_data date) IS 'True when p_data is Monday to Friday, not a national holiday (public.feriado_nacional, derived for any year) and not in public.feriado (state, municipal and company days).';


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
  -- answers the stored response (same items, same mode) or 422 (other items or mode), applying nothing
  if p_idempotency_key is not null then
    perform pg_advisory_xact_lock(hashtextextended('erp_sync:' || p_idempotency_key, 0));
    select a.id, a.request_sha256, a.dry_run, a.response into v_prev
      from public.erp_sync_audit a
     where a.idempotency_key = p_idempotency_key and a.replay_of is null and a.recusa_status is null
       and a.called_at > now() - interval '24 hours'
     order by a.id desc limit 1;
    if found then
      -- the fingerprint is the items and the mode: a dry-run answer is never replayed
      -- for a call made after the switch to real writes (nor the reverse)
      if v_prev.request_sha256 <> v_hash then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h com outro corpo (chamada %); use uma chave nova para outra requisição',
          p_idempotency_key, v_prev.id using errcode = 'ES422';
      end if;
      if v_prev.dry_run <> p_dry_run then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h em modo %, e o serviço agora está em modo % (chamada %); use uma chave nova',
          p_idempotency_key, case when v_prev.dry_run then 'simulação (dry run)' else 'real' end,
          case when p_dry_run then 'simulação (dry run)' else 'real' end, v_prev.id using errcode = 'ES422';
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

COMMENT ON FUNCTION public.erp_sync(p_items jsonb, p_dry_run boolean, p_idempotency_key text) IS 'The decision of POST /sync/erp. p_items: the request''s items (1 to 200 objects {ean | sku, preco_cheio, preco_desconto, estoque}); p_dry_run (default true): report only, write nothing but the audit row; false: apply every change in this transaction, locking the matched variants in id order, rewriting only variants whose values differ, with their before/after in erp_sync_audit_variante. Matching: by EAN against variante.ean, else by sku; never creates a variant. p_idempotency_key: a key seen in the last 24 h answers the stored response (same items and same mode) or raises ES422 (other items, or the other mode: a dry-run answer is never replayed after the switch to real writes). Returns the whole response {dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros, itens}. Errors: ES400 malformed items, ES413 more than 200 items, ES422 key reused with another body or mode. A refused HTTP call is audited by erp_sync_recusa_registrar. Every answered call leaves a row in erp_sync_audit.';


--
-- Name: erp_sync_recusa_registrar(integer, text, jsonb, text, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.erp_sync_recusa_registrar(p_status integer, p_detalhe text, p_items jsonb, p_idempotency_key text, p_dry_run boolean) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_id bigint;
begin
  if p_status is null or p_status not in (400, 413, 422) then
    raise exception 'recusa de POST /sync/erp com status % : só 400, 413 e 422 são auditados', p_status using errcode = 'ES400';
  end if;
  insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                     request_sha256, idempotency_key, response, recusa_status, recusa_detalhe)
  values (coalesce(p_dry_run, true),
          case when jsonb_typeof(p_items) = 'array' then jsonb_array_length(p_items) else 0 end, 0, 0, 0, 0, 0,
          case when jsonb_typeof(p_items) = 'array' then encode(sha256(convert_to(p_items::text, 'UTF8')), 'hex') end,
          -- a malformed key is not kept as a key (the detail names it)
          case when p_idempotency_key ~ '^[\x20-\x7e]{1,255}$' then p_idempotency_key end,
          null, p_status, left(p_detalhe, 2000))
  returning id into v_id;
  return v_id;
end;
$_$;


--
-- Name: FUNCTION erp_sync_recusa_registrar(p_status integer, p_detalhe text, p_items jsonb, p_idempotency_key text, p_dry_run boolean); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.erp_sync_recusa_registrar(p_status integer, p_detalhe text, p_items jsonb, p_idempotency_key text, p_dry_run boolean) IS 'Audits a call of POST /sync/erp refused with 400, 413 or 422 (the edge calls it after answering the refusal, the failed erp_sync() transaction being rolled back): one erp_sync_audit row with recusa_status, recusa_detalhe, the mode, the items received and their SHA-256 when the body had an items list, and the Idempotency-Key when well formed. Returns the row id.';


--
-- Name: feriado_nacional(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.feriado_nacional(p_data date) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(
           case (extract(month from p_data) * 100 + extract(day from p_data))::integer
             when 101 then 'Confraternização Universal'
             when 421 then 'Tiradentes'
             when 501 then 'Dia do Trabalho'
             when 907 then 'Independência do Brasil'
             when 1012 then 'Nossa Senhora Aparecida'
             when 1102 then 'Finados'
             when 1115 then 'Proclamação da República'
             -- national since Lei 14.759/2023
             when 1120 then case when extract(year from p_data) >= 2024 then 'Dia Nacional de Zumbi e da Consciência Negra' end
             when 1225 then 'Natal'
           end,
           -- the one national holiday that follows Easter (Carnaval and Corpus Christi are not
           -- national holidays by law: public.feriado holds them where they are observed)
           case when p_data = app.pascoa(extract(year from p_data)::integer) - 2 then 'Sexta-feira Santa' end);
$$;


--
-- Name: FUNCTION feriado_nacional(p_data date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.feriado_nacional(p_data date) IS 'The name of the Brazilian national holiday on p_data, or null: the fixed dates (1/1, 21/4, 1/5, 7/9, 12/10, 2/11, 15/11, 20/11 from 2024, 25/12) and Good Friday (Easter, app.pascoa, minus two days), for any year. public.dia_util excludes them; public.feriado holds the other days off (state, municipal, company).';


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

COMMENT ON FUNCTION public.minutos_comerciais(p_de timestamp with time zone, p_ate timestamp with time zone) IS 'Business minutes between two instants: the part of [p_de, p_ate] that falls Monday to Friday, 08:00-18:00 America/Sao_Paulo, on business days (public.dia_util: no national holiday, no day of public.feriado). Fractional (3 decimals); 0 when p_ate <= p_de.';


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
    'conciliacao', case when a.tipo = 'conciliacao_incompleta' then public.partner_conciliacao_dia((a.dados ->> 'dia')::date) end,
    'pendentes', coalesce((select jsonb_agg(v.email order by v.email) from public.partner_aviso_envio v
                            where v.aviso_id = a.id and v.enviado_em is null), '[]'))
  from public.partner_aviso a where a.id = p_id;
$$;


--
-- Name: FUNCTION partner_aviso_carregar(p_id bigint); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_aviso_carregar(p_id bigint) IS 'What the partner_aviso job needs to carry out a notice: the notice, its episode or contingency period (or, for conciliacao_incompleta, the day''s reconciliation: partner_conciliacao_dia), and the recipients still to be mailed. Null for an unknown id.';


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
-- Name: partner_conciliacao_agendar(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_agendar(p_agora timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_hoje date := (p_agora at time zone 'America/Sao_Paulo')::date;
  v_desde date;
  v_dia date;
  v_n integer := 0;
begin
  if not public.dia_util(v_hoje) or not (select c.api_configurada from public.partner_configuracao c) then
    return 0;
  end if;
  -- whole days watched by the service, up to a week back: after a weekend or a holiday every
  -- day since the last business day; a day never reconciled or left INACESSIVEL is asked again
  select greatest(v_hoje - 7, coalesce((c.monitorando_desde at time zone 'America/Sao_Paulo')::date + 1, v_hoje))
    into v_desde from public.partner_configuracao c;
  for v_dia in select d::date from generate_series(v_desde::timestamp, (v_hoje - 1)::timestamp, interval '1 day') d loop
    if not exists (select from public.partner_conciliacao c
                    where c.dia = v_dia and c.status in ('CONCILIADO', 'INCOMPLETO', 'PENDENTE', 'EM_ANDAMENTO')) then
      if public.partner_conciliacao_solicitar(v_dia, 'agendada', p_agora) is not null then
        v_n := v_n + 1;
      end if;
    end if;
  end loop;
  return v_n;
end;
$$;


--
-- Name: FUNCTION partner_conciliacao_agendar(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_agendar(p_agora timestamp with time zone) IS 'The daily request of the reconciliation (pg_cron ''partner_conciliacao'', 09:30 UTC = 06:30 in Brasília): on a business day (dia_util) with the REST API configured, requests partner_conciliacao_solicitar(dia, ''agendada'') for each whole day since the previous ones, up to 7 days back and not before the first whole day watched (monitorando_desde), that has no verdict yet or was left INACESSIVEL. On Monday that is Friday, Saturday and Sunday. Returns how many it requested.';


--
-- Name: partner_conciliacao_dia(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_dia(p_dia date) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select jsonb_build_object(
    'dia', c.dia, 'status', c.status, 'motivo', c.motivo, 'solicitada_em', c.solicitada_em,
    'conciliada_em', c.conciliada_em, 'tentativas', c.tentativas, 'erro', c.erro,
    'na_plataforma', c.na_plataforma, 'aqui', c.aqui, 'por_webhook', c.por_webhook, 'recuperados', c.recuperados,
    'faltando', c.faltando, 'preenchidos', c.preenchidos, 'faltando_apos', c.faltando_apos,
    'divergentes', c.divergentes, 'ilegiveis', c.ilegiveis,
    'itens', jsonb_build_object(
      'recuperados', coalesce((select jsonb_agg(jsonb_build_object('code', i.code, 'status', i.status_aqui, 'estado', i.estado_aqui)
                                 order by i.code) from public.partner_conciliacao_item i where i.dia = c.dia and i.tipo = 'recuperado'), '[]'),
      'faltando', coalesce((select jsonb_agg(jsonb_build_object('code', i.code, 'status_plataforma', i.status_plataforma,
                                 'preenchido', i.preenchido, 'erro', i.erro) order by i.code)
                              from public.partner_conciliacao_item i where i.dia = c.dia and i.tipo = 'faltando'), '[]'),
      'divergentes', coalesce((select jsonb_agg(jsonb_build_object('code', i.code, 'status_plataforma', i.status_plataforma,
                                 'atualizado_plataforma', i.atualizado_plataforma, 'status_aqui', i.status_aqui,
                                 'estado_aqui', i.estado_aqui, 'atualizado_aqui', i.atualizado_aqui) order by i.code)
                                 from public.partner_conciliacao_item i where i.dia = c.dia and i.tipo = 'divergente'), '[]')))
    from public.partner_conciliacao c where c.dia = p_dia;
$$;


--
-- Name: FUNCTION partner_conciliacao_dia(p_dia date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_dia(p_dia date) IS 'One day of the reconciliation ledger as jsonb: the verdict (status and counts: na_plataforma, aqui, por_webhook, recuperados, faltando, preenchidos, faltando_apos, divergentes, ilegiveis) and its items (recovered, missing with whether they were backfilled, status differences with both sides). Null for a day never reconciled.';


--
-- Name: partner_conciliacao_falhar(date, text, boolean, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_falhar(p_dia date, p_erro text, p_definitiva boolean, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.partner_conciliacao;
begin
  select * into v_row from public.partner_conciliacao where dia = p_dia for update;
  if not found then
    raise exception 'conciliação do dia % não existe', p_dia using errcode = 'PW404';
  end if;
  if not p_definitiva then
    update public.partner_conciliacao set status = 'PENDENTE', erro = left(p_erro, 2000) where dia = p_dia;
    return 'PENDENTE';
  end if;
  update public.partner_conciliacao set status = 'INACESSIVEL', erro = left(p_erro, 2000), conciliada_em = p_agora,
         avisado = 'INACESSIVEL'
   where dia = p_dia;
  if v_row.avisado is distinct from 'INACESSIVEL' then
    perform app.partner_aviso_criar('conciliacao_incompleta', null, null,
      jsonb_build_object('dia', p_dia, 'status', 'INACESSIVEL', 'erro', left(p_erro, 500), 'tentativas', v_row.tentativas), p_agora);
  end if;
  return 'INACESSIVEL';
end;
$$;


--
-- Name: FUNCTION partner_conciliacao_falhar(p_dia date, p_erro text, p_definitiva boolean, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_falhar(p_dia date, p_erro text, p_definitiva boolean, p_agora timestamp with time zone) IS 'Records a failed attempt of a day''s reconciliation (the platform unreachable, an HTTP error, a page out of shape): back to PENDENTE while the job retries, or, when the job gave up (p_definitiva: the platform was unreachable for the whole window of its attempts), INACESSIVEL with one ''conciliacao_incompleta'' notice (error tracker and e-mail to the recipients; once per day and status). Unknown day -> PW404.';


--
-- Name: partner_conciliacao_iniciar(date, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_iniciar(p_dia date, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS TABLE(desde timestamp with time zone, ate timestamp with time zone, tentativas integer)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  insert into public.partner_conciliacao as c (dia, status, solicitada_em, iniciada_em, tentativas)
  values (p_dia, 'EM_ANDAMENTO', p_agora, p_agora, 1)
  on conflict (dia) do update set status = 'EM_ANDAMENTO', iniciada_em = p_agora, tentativas = c.tentativas + 1;
  return query
    select (p_dia::timestamp) at time zone 'America/Sao_Paulo',
           ((p_dia + 1)::timestamp) at time zone 'America/Sao_Paulo',
           c.tentativas
      from public.partner_conciliacao c where c.dia = p_dia;
end;
$$;


--
-- Name: FUNCTION partner_conciliacao_iniciar(p_dia date, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_iniciar(p_dia date, p_agora timestamp with time zone) IS 'Starts an attempt of a day''s reconciliation (the job partner_conciliar): the ledger row is EM_ANDAMENTO, and the answer is the window the service asks the platform for, [desde, ate): the day''s midnight to the next, America/Sao_Paulo.';


--
-- Name: partner_conciliacao_resumo(date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_resumo(p_desde date DEFAULT (((now() AT TIME ZONE 'America/Sao_Paulo'::text))::date - 30), p_ate date DEFAULT NULL::date) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select coalesce(jsonb_agg(public.partner_conciliacao_dia(c.dia) order by c.dia desc), '[]')
    from public.partner_conciliacao c
   where c.dia >= p_desde and (p_ate is null or c.dia <= p_ate);
$$;


--
-- Name: FUNCTION partner_conciliacao_resumo(p_desde date, p_ate date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_resumo(p_desde date, p_ate date) IS 'The reconciliation ledger from p_desde (default: the last 30 days) to p_ate (default: every later day), newest first: one partner_conciliacao_dia per day (what /pedidos and GET /api/partner/conciliacao show).';


--
-- Name: partner_conciliacao_solicitar(date, text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliacao_solicitar(p_dia date, p_motivo text DEFAULT 'manual'::text, p_agora timestamp with time zone DEFAULT now()) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_job bigint;
begin
  if p_motivo is null or p_motivo not in ('agendada', 'manual') then
    raise exception 'motivo de conciliação desconhecido: %', p_motivo using errcode = 'PW400';
  end if;
  if p_dia is null or p_dia >= (p_agora at time zone 'America/Sao_Paulo')::date then
    raise exception 'só um dia já encerrado pode ser conciliado (dia %, hoje %)', p_dia,
      (p_agora at time zone 'America/Sao_Paulo')::date using errcode = 'PW400';
  end if;
  v_job := app.enqueue('partner_conciliar', jsonb_build_object('dia', p_dia), now(), 'conciliacao:' || p_dia, 10);
  if v_job is null then
    return null; -- this day's reconciliation is already queued or running
  end if;
  insert into public.partner_conciliacao as c (dia, status, motivo, solicitada_em, job_id)
  values (p_dia, 'PENDENTE', p_motivo, p_agora, v_job)
  on conflict (dia) do update set status = 'PENDENTE', motivo = excluded.motivo, solicitada_em = excluded.solicitada_em,
    job_id = excluded.job_id, erro = null;
  return v_job;
end;
$$;


--
-- Name: FUNCTION partner_conciliacao_solicitar(p_dia date, p_motivo text, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliacao_solicitar(p_dia date, p_motivo text, p_agora timestamp with time zone) IS 'Requests the reconciliation of one past day (America/Sao_Paulo) of orders: enqueues the job partner_conciliar (the service fetches the platform''s list of that day and calls partner_conciliar; up to 10 attempts with backoff). A DBA may call select partner_conciliacao_solicitar(''2026-11-27''). Returns the job id, or null when that day''s job is already queued or running. Today or a future day -> PW400. The day''s previous verdict stays until the new one replaces it (status PENDENTE meanwhile).';


--
-- Name: partner_conciliar(date, jsonb, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_conciliar(p_dia date, p_pedidos jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET jit TO 'off'
    AS $$
declare
  v_row public.partner_conciliacao;
  v_ilegiveis integer;
  v_faltam jsonb[];
  v_faltam_codes text[];
  v_codes text[];
  v_lidos app.partner_pedido_lido[];
  v_legiveis app.partner_pedido_lido[];
  v_status text;
  v_out jsonb;
begin
  if p_dia is null then
    raise exception 'dia não informado' using errcode = 'PW400';
  end if;
  if p_pedidos is null or jsonb_typeof(p_pedidos) <> 'array' then
    raise exception 'a lista de pedidos da plataforma não é uma lista' using errcode = 'PW422';
  end if;
  -- the day's row, locked: two runs of one day are one after the other
  insert into public.partner_conciliacao (dia, status, solicitada_em)
  values (p_dia, 'EM_ANDAMENTO', p_agora) on conflict (dia) do nothing;
  select * into v_row from public.partner_conciliacao where dia = p_dia for update;

  -- 1. the platform's list: one entry per code (the newest updated_at when listed twice)
  create temporary table if not exists partner_conciliar_lista (
    code text primary key, status text, atualizado timestamptz, recurso jsonb,
    classe text, pedido_id uuid, preenchido boolean, erro text
  ) on commit drop;
  truncate partner_conciliar_lista;
  select count(*) filter (where jsonb_typeof(e) <> 'object' or nullif(btrim(e ->> 'code'), '') is null)
    into v_ilegiveis from jsonb_array_elements(p_pedidos) e;
  insert into partner_conciliar_lista (code, status, atualizado, recurso)
  select distinct on (btrim(e ->> 'code')) btrim(e ->> 'code'), lower(e ->> 'status'),
         case when (e ->> 'updated_at') ~ '^\d{4}-\d{2}-\d{2}' and app.partner_instante_valido(e ->> 'updated_at')
              then (e ->> 'updated_at')::timestamptz end,
         e
    from jsonb_array_elements(p_pedidos) e
   where jsonb_typeof(e) = 'object' and nullif(btrim(e ->> 'code'), '') is not null
   order by btrim(e ->> 'code'), e ->> 'updated_at' desc nulls last;
  select array_agg(code) into v_codes from partner_conciliar_lista;

  -- 2. classify by what is stored: by webhook (a delivery of the code), recovered (stored, no
  --    delivery: the poll, the contingency, by hand), missing (not stored); an order that a
  --    previous run of this day backfilled stays missing (backfilled), so a second run says the same
  update partner_conciliar_lista l set pedido_id = p.id
    from public.partner_pedido p where p.code = l.code and p.code = any (v_codes);
  update partner_conciliar_lista l set classe = case
      when l.pedido_id is null then 'faltando'
      when exists (select from public.partner_conciliacao_item i
                    where i.dia = p_dia and i.tipo = 'faltando' and i.code = l.code) then 'faltando'
      when exists (select from public.partner_webhook w where w.code = l.code) then 'webhook'
      else 'recuperado' end;
  update partner_conciliar_lista l set preenchido = true where l.classe = 'faltando' and l.pedido_id is not null;

  -- 3. backfill the missing ones through the one normalisation of the webhook and the pulls
  --    (app.partner_pedido_ler + app.partner_pedido_aplicar, which partner_pedido_observar
  --    calls with a set of one), origem 'conciliacao'
  select array_agg(l.recurso order by l.code), array_agg(l.code order by l.code) into v_faltam, v_faltam_codes
    from partner_conciliar_lista l where l.classe = 'faltando' and l.pedido_id is null;
  if v_faltam is not null then
    v_lidos := app.partner_pedido_ler(v_faltam, array_fill(null::text, array[cardinality(v_faltam)]),
                                      array_fill(null::jsonb, array[cardinality(v_faltam)]));
    update partner_conciliar_lista l set erro = x.erro, preenchido = false
      from unnest(v_lidos) with ordinality x join unnest(v_faltam_codes) with ordinality k(code, n) on k.n = x.ordinality
     where x.erro is not null and l.code = k.code;
    select array_agg(x) into v_legiveis from unnest(v_lidos) x where x.erro is null;
    if v_legiveis is not null then
      perform app.partner_pedido_aplicar(v_legiveis, 'conciliacao', p_agora);
    end if;
    update partner_conciliar_lista l set pedido_id = p.id, preenchido = true
      from public.partner_pedido p
     where l.classe = 'faltando' and l.pedido_id is null and l.erro is null and p.code = l.code and p.code = any (v_codes);
    update partner_conciliar_lista l set preenchido = false, erro = coalesce(l.erro, 'não gravado')
     where l.classe = 'faltando' and l.pedido_id is null;
  end if;

  -- 4. the items, rewritten whole: recovered, missing, and status differences (listed only)
  delete from public.partner_conciliacao_item where dia = p_dia;
  insert into public.partner_conciliacao_item (dia, code, tipo, status_plataforma, atualizado_plataforma,
                                               status_aqui, estado_aqui, atualizado_aqui, preenchido, erro)
  select p_dia, l.code, l.classe, l.status, l.atualizado, p.status, p.estado, p.atualizado_no_parceiro,
         case when l.classe = 'faltando' then l.preenchido end, l.erro
    from partner_conciliar_lista l
    left join public.partner_pedido p on p.id = l.pedido_id
   where l.classe in ('recuperado', 'faltando')
  union all
  select p_dia, l.code, 'divergente', l.status, l.atualizado, p.status, p.estado, p.atualizado_no_parceiro, null, null
    from partner_conciliar_lista l
    join public.partner_pedido p on p.id = l.pedido_id
   where p.status is distinct from l.status;

  -- 5. the verdict
  update public.partner_conciliacao c set
    na_plataforma = s.na_plataforma, aqui = s.aqui, por_webhook = s.por_webhook, recuperados = s.recuperados,
    faltando = s.faltando, preenchidos = s.preenchidos, faltando_apos = s.faltando_apos,
    divergentes = (select count(*) from public.partner_conciliacao_item i where i.dia = p_dia and i.tipo = 'divergente'),
    ilegiveis = v_ilegiveis,
    status = case when s.faltando_apos > 0 or v_ilegiveis > 0 then 'INCOMPLETO' else 'CONCILIADO' end,
    conciliada_em = p_agora, erro = null,
    avisado = case when s.faltando_apos > 0 or v_ilegiveis > 0 then 'INCOMPLETO' end
    from (select count(*)::integer as na_plataforma,
                 count(*) filter (where l.pedido_id is not null)::integer as aqui,
                 count(*) filter (where l.classe = 'webhook')::integer as por_webhook,
                 count(*) filter (where l.classe = 'recuperado')::integer as recuperados,
                 count(*) filter (where l.classe = 'faltando')::integer as faltando,
                 count(*) filter (where l.classe = 'faltando' and l.preenchido)::integer as preenchidos,
                 count(*) filter (where l.pedido_id is null)::integer as faltando_apos
            from partner_conciliar_lista l) s
   where c.dia = p_dia
  returning c.status into v_status;

  -- 6. a day still not proved complete: one notice (error tracker, e-mail), once per day and status
  if v_status = 'INCOMPLETO' and v_row.avisado is distinct from 'INCOMPLETO' then
    perform app.partner_aviso_criar('conciliacao_incompleta', null, null,
      (select jsonb_build_object('dia', c.dia, 'status', c.status, 'na_plataforma', c.na_plataforma, 'aqui', c.aqui,
                                 'faltando', c.faltando, 'faltando_apos', c.faltando_apos, 'ilegiveis', c.ilegiveis,
                                 'codigos', (select jsonb_agg(i.code order by i.code) from public.partner_conciliacao_item i
                                              where i.dia = p_dia and i.tipo = 'faltando' and not i.preenchido))
         from public.partner_conciliacao c where c.dia = p_dia), p_agora);
  end if;
  v_out := public.partner_conciliacao_dia(p_dia);
  drop table partner_conciliar_lista;
  return v_out;
end;
$$;


--
-- Name: FUNCTION partner_conciliar(p_dia date, p_pedidos jsonb, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_conciliar(p_dia date, p_pedidos jsonb, p_agora timestamp with time zone) IS 'Reconciles one day (America/Sao_Paulo) of orders against the platform''s list of that day (p_pedidos: the jsonb array of its orders, {code, status, updated_at, ...}, every page together; the job partner_conciliar passes what GET /orders?created_since=&created_until= returned; a DBA may paste one). By code: stored by webhook (a delivery of the code), recovered (stored only through the poll, the contingency or by hand), missing (not stored) — backfilled at once through the same normalisation as the webhook and the pulls (app.partner_pedido_ler + app.partner_pedido_aplicar, origem conciliacao; the gate''s rules apply as always) — and status differences (the platform''s status is not the stored one), listed, never changed. Records the verdict in partner_conciliacao and its items in partner_conciliacao_item (rewritten whole) and returns it as partner_conciliacao_dia does. Idempotent: a second run with the same list gives the same verdict (an order a previous run backfilled stays missing/backfilled) and no second notice. A day with orders still missing after the backfill (unreadable) or entries without a code is INCOMPLETO, with one ''conciliacao_incompleta'' notice (error tracker, e-mail). Volatile; not a list -> PW422.';


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
    aprendido_semanas integer DEFAULT 8 NOT NULL,
    aprendido_limiar numeric DEFAULT 0.01 NOT NULL,
    CONSTRAINT partner_configuracao_aprendido_limiar_check CHECK (((aprendido_limiar > (0)::numeric) AND (aprendido_limiar < (1)::numeric))),
    CONSTRAINT partner_configuracao_aprendido_semanas_check CHECK (((aprendido_semanas >= 0) AND (aprendido_semanas <= 52))),
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
-- Name: COLUMN partner_configuracao.aprendido_semanas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_configuracao.aprendido_semanas IS 'PARTNER_WATCHDOG_APRENDIDO_SEMANAS: weeks of stored orders the learned silence alarm learns the expected rate from (per weekday and hour, holidays apart); 0 turns the learned alarm off (fixed thresholds only).';


--
-- Name: COLUMN partner_configuracao.aprendido_limiar; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_configuracao.aprendido_limiar IS 'PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT / 100: the learned alarm fires when the probability of the silence under the expected rate, exp(-expected orders), falls below this.';


--
-- Name: partner_configurar(boolean, integer, integer, integer, integer, integer, text, boolean, timestamp with time zone, integer, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone DEFAULT now(), p_aprendido_semanas integer DEFAULT 8, p_aprendido_limiar_pct numeric DEFAULT 1) RETURNS public.partner_configuracao
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
  if p_aprendido_limiar_pct is not null and not (p_aprendido_limiar_pct > 0 and p_aprendido_limiar_pct < 100) then
    raise exception 'limiar do alarme aprendido fora de (0, 100)%%: %', p_aprendido_limiar_pct using errcode = 'PW400';
  end if;
  if p_aprendido_semanas is not null and p_aprendido_semanas not between 0 and 52 then
    raise exception 'semanas do alarme aprendido fora de 0..52: %', p_aprendido_semanas using errcode = 'PW400';
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
    aprendido_semanas = coalesce(p_aprendido_semanas, 8),
    aprendido_limiar = coalesce(p_aprendido_limiar_pct, 1) / 100,
    monitorando_desde = coalesce(monitorando_desde, p_agora)
  where id
  returning * into v_row;
  return v_row;
end;
$_$;


--
-- Name: FUNCTION partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone, p_aprendido_semanas integer, p_aprendido_limiar_pct numeric); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_configurar(p_watchdog_habilitado boolean, p_limite_min_comercial integer, p_limite_horas integer, p_contingencia_apos_min_comercial integer, p_contingencia_intervalo_min integer, p_poll_intervalo_horas integer, p_gate_primeira_captura_desde text, p_api_configurada boolean, p_agora timestamp with time zone, p_aprendido_semanas integer, p_aprendido_limiar_pct numeric) IS 'Writes the settings row from the environment of a booting replica. p_gate_primeira_captura_desde: an ISO date (midnight America/Sao_Paulo) or instant, empty/null = off; invalid -> PW400. p_aprendido_semanas (0-52, 0 = off) and p_aprendido_limiar_pct (a percentage in (0, 100), stored as a fraction): the learned silence alarm; out of range -> PW400. Sets monitorando_desde on the first call.';


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
  v_lido app.partner_pedido_lido;
begin
  -- the rules live in the two set-based functions, here with a set of one (the webhook's batches
  -- call them with the whole batch)
  v_lido := (app.partner_pedido_ler(array[p_recurso], array[p_evento], array[p_tempo_evento]))[1];
  if v_lido.erro is not null then
    raise exception '%', v_lido.erro using errcode = 'PW422';
  end if;
  return (app.partner_pedido_aplicar(array[v_lido], p_origem, p_agora))[1];
end;
$$;


--
-- Name: FUNCTION partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text, p_tempo_evento jsonb, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text, p_tempo_evento jsonb, p_agora timestamp with time zone) IS 'The one idempotent normalisation path of an order (webhook, poll, contingency): upserts the order by code. The newest observation (updated_at, then lifecycle rank) wins; an older one never overwrites the state but still counts as gate evidence. Returns criado | atualizado | obsoleto | repetido. A payload it cannot read raises PW422 (no code, unknown status, bad date or number). p_evento fills a missing status (order.paid -> received, order.cancelled -> cancelled); p_tempo_evento (the event''s time) stands in for a missing updated_at. A newer cancelled status moves the order to CANCELADO; then the gate decides. The rules are app.partner_pedido_ler and app.partner_pedido_aplicar, which the webhook''s batches call with a whole batch.';


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
-- Name: partner_ritmo_aprender(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_ritmo_aprender(p_agora timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET jit TO 'off'
    AS $$
declare
  v_semanas integer;
  v_hoje date := (p_agora at time zone 'America/Sao_Paulo')::date;
  v_ini date;
  v_primeiro date;
  v_pedidos integer;
begin
  select c.aprendido_semanas,
         (least((select min(w.recebido_em) from public.partner_webhook w), c.monitorando_desde) at time zone 'America/Sao_Paulo')::date + 1
    into v_semanas, v_primeiro
    from public.partner_configuracao c;
  -- whole days only: from N weeks before today (or the first whole day of history) to yesterday
  v_ini := greatest(v_hoje - 7 * coalesce(v_semanas, 0), coalesce(v_primeiro, v_hoje));
  delete from public.partner_ritmo;
  with dias as (
         select d::date as dia, public.partner_tipo_dia(d::date) as tipo
           from generate_series(v_ini::timestamp, (v_hoje - 1)::timestamp, interval '1 day') d),
       -- an order counts once, at its first webhook delivery (30 days of look-back keep an order
       -- created before the window and updated inside it out)
       primeiros as (
         select w.code, min(w.recebido_em) as em
           from public.partner_webhook w
          where w.code is not null
            and w.recebido_em >= ((v_ini - 30)::timestamp) at time zone 'America/Sao_Paulo'
            and w.recebido_em < (v_hoje::timestamp) at time zone 'America/Sao_Paulo'
          group by w.code),
       pedidos as (
         select d.tipo, extract(hour from p.em at time zone 'America/Sao_Paulo')::smallint as hora, count(*)::integer as n
           from primeiros p
           join dias d on d.dia = (p.em at time zone 'America/Sao_Paulo')::date
          group by 1, 2),
       ndias as (select tipo, count(*)::integer as n from dias group by tipo)
  insert into public.partner_ritmo (tipo_dia, hora, pedidos, dias, semanas, aprendido_para)
  select t.tipo, h.hora, coalesce(pe.n, 0), coalesce(nd.n, 0), coalesce(v_semanas, 0), p_agora
    from generate_series(0, 7) t(tipo)
   cross join generate_series(0, 23) h(hora)
    left join ndias nd on nd.tipo = t.tipo
    left join pedidos pe on pe.tipo = t.tipo and pe.hora = h.hora;
  select coalesce(sum(r.pedidos), 0) into v_pedidos from public.partner_ritmo r;
  return v_pedidos;
end;
$$;


--
-- Name: FUNCTION partner_ritmo_aprender(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_ritmo_aprender(p_agora timestamp with time zone) IS 'Rebuilds public.partner_ritmo as of p_agora: for each day type (public.partner_tipo_dia: weekday, or 0 for a holiday) and local hour, the orders first delivered by the webhook in that slot during the whole days of the last partner_configuracao.aprendido_semanas weeks before p_agora (not before the first whole day of history), and the number of days of that type in that window. partner_tick calls it when the table is older than an hour (or of another window); a DBA may call it after changing the settings. Returns the orders counted. Volatile (writes the table).';


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
-- Name: partner_silencio_aprendido(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_silencio_aprendido(p_agora timestamp with time zone DEFAULT now()) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET jit TO 'off'
    AS $$
  with c as (select * from public.partner_configuracao),
       s as (select * from public.partner_silencio(p_agora)),
       lim as (
         select s.desde, c.aprendido_semanas, c.aprendido_limiar, ln(1 / c.aprendido_limiar) as alvo,
                least(public.apos_minutos_comerciais(s.desde, c.limite_min_comercial),
                      s.desde + c.limite_horas * interval '1 hour') as fixo_em
           from s cross join c),
       -- the hour slots from the start of the silence to the fixed alert (the learned alarm may
       -- only come earlier), each with its learned rate (orders a minute; 0 without history)
       -- each hour's day type once (partner_tipo_dia reads the holidays), then its learned rate
       horas as materialized (
         select g.ini_local, public.partner_tipo_dia(g.ini_local::date) as tipo, extract(hour from g.ini_local)::smallint as hora
           from lim l
          cross join generate_series(date_trunc('hour', l.desde at time zone 'America/Sao_Paulo'),
                                     l.fixo_em at time zone 'America/Sao_Paulo', interval '1 hour') g(ini_local)
          where l.desde is not null and l.aprendido_semanas > 0),
       slots as (
         select h.ini_local,
                greatest((h.ini_local at time zone 'America/Sao_Paulo'), l.desde) as a,
                least(((h.ini_local + interval '1 hour') at time zone 'America/Sao_Paulo'), l.fixo_em) as b,
                r.dias, r.pedidos,
                case when r.dias >= 3 then r.pedidos::numeric / r.dias / 60 else 0 end as taxa_min
           from lim l
          cross join horas h
           left join public.partner_ritmo r on r.tipo_dia = h.tipo and r.hora = h.hora),
       agora as materialized (
         select public.partner_tipo_dia((p_agora at time zone 'America/Sao_Paulo')::date) as tipo,
                extract(hour from p_agora at time zone 'America/Sao_Paulo')::smallint as hora),
       acum as (
         select sl.*,
                sl.taxa_min * extract(epoch from greatest(sl.b - sl.a, interval '0')) / 60 as esperado,
                coalesce(sum(sl.taxa_min * extract(epoch from greatest(sl.b - sl.a, interval '0')) / 60)
                           over (order by sl.ini_local rows between unbounded preceding and 1 preceding), 0) as antes
           from slots sl),
       res as (
         select l.*,
                (select count(*) from acum x where x.dias >= 3 and x.b > x.a) as slots_com_historico,
                (select coalesce(sum(x.taxa_min * extract(epoch from greatest(least(x.b, p_agora) - x.a, interval '0')) / 60), 0)
                   from acum x) as esperados,
                (select x.a + ((l.alvo - x.antes) / x.taxa_min) * interval '1 minute'
                   from acum x
                  where x.taxa_min > 0 and x.antes + x.esperado >= l.alvo
                  order by x.ini_local limit 1) as dispara_bruto,
                (select jsonb_build_object('taxa_hora', case when r.dias >= 3 then round(r.pedidos::numeric / r.dias, 2) end,
                                           'dias', r.dias, 'tipo_dia', r.tipo_dia, 'hora', r.hora)
                   from public.partner_ritmo r join agora g on r.tipo_dia = g.tipo and r.hora = g.hora) as faixa_atual
           from lim l)
  select jsonb_build_object(
           'base', case when r.desde is null then null
                        when r.aprendido_semanas = 0 then 'fixo'
                        when r.slots_com_historico = 0 then 'fixo'
                        else 'aprendido' end,
           'motivo_fixo', case when r.desde is null then null
                               when r.aprendido_semanas = 0 then 'desligado'
                               when r.slots_com_historico = 0 then 'historico_insuficiente' end,
           'desde', r.desde,
           'semanas', r.aprendido_semanas,
           'limiar', r.aprendido_limiar,
           'esperados', round(r.esperados, 2),
           'probabilidade', round(exp(-r.esperados), 6),
           'fixo_em', r.fixo_em,
           'dispara_em', case when r.dispara_bruto < r.fixo_em then r.dispara_bruto end,
           'dispara', coalesce(r.dispara_bruto < r.fixo_em and r.dispara_bruto <= p_agora, false),
           'faixa_atual', r.faixa_atual)
    from res r;
$$;


--
-- Name: FUNCTION partner_silencio_aprendido(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_silencio_aprendido(p_agora timestamp with time zone) IS 'The learned silence alarm at p_agora (partner_tick decides with it; read-only, callable from psql): the orders expected since the silence began (esperados, from public.partner_ritmo: per day type and hour, slots with fewer than 3 days of history count 0), the probability of receiving none, exp(-esperados), and dispara_em, the instant at which that probability falls below partner_configuracao.aprendido_limiar — only when that comes before the fixed alert (fixo_em: limite_min_comercial business minutes or limite_horas hours), so the learned alarm may fire earlier, never later, and never while fewer than ln(1/limiar) orders were expected (expected quiet). base = aprendido, or fixo with motivo_fixo = desligado (aprendido_semanas = 0) or historico_insuficiente (no slot of the silence has history). faixa_atual: the current slot''s learned rate (orders an hour, null without history).';


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
                      least(public.apos_minutos_comerciais(s.desde, c.limite_min_comercial), s.desde + c.limite_horas * interval '1 hour',
                            (a.r ->> 'dispara_em')::timestamptz) end,
                   'aprendido', a.r)
                   from public.partner_silencio(p_agora) s cross join public.partner_configuracao c
                   cross join lateral (select public.partner_silencio_aprendido(p_agora) as r) a),
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

COMMENT ON FUNCTION public.partner_status(p_agora timestamp with time zone) IS 'The state of area B at p_agora (GET /api/partner/status): last event, silence (and when the alert will fire: the fixed thresholds or, earlier, the learned alarm; silencio.aprendido is partner_silencio_aprendido), watchdog settings, open and last episode, contingency, last poll and last pull, counts of events to normalise or review and of orders per state.';


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
  v_apr jsonb;
  v_ritmo boolean;
begin
  perform pg_advisory_xact_lock(hashtext('partner_tick'));
  select * into v_cfg from public.partner_configuracao;
  select * into v_sil from public.partner_silencio(p_agora);
  v_out := jsonb_build_object('silencio_desde', v_sil.desde, 'minutos_comerciais', v_sil.minutos_comerciais, 'horas', v_sil.horas);

  -- 0. the learned rhythm: rebuilt when older than an hour (or learned for another window)
  if v_cfg.aprendido_semanas > 0 and not exists (
       select from public.partner_ritmo r
        where r.semanas = v_cfg.aprendido_semanas and r.aprendido_para <= p_agora
          and r.aprendido_para > p_agora - interval '1 hour') then
    perform public.partner_ritmo_aprender(p_agora);
    v_out := v_out || jsonb_build_object('ritmo_aprendido', true);
  end if;
  v_apr := public.partner_silencio_aprendido(p_agora);
  v_ritmo := coalesce((v_apr ->> 'dispara')::boolean, false);

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
        and (v_sil.minutos_comerciais >= v_cfg.limite_min_comercial or v_sil.horas >= v_cfg.limite_horas or v_ritmo) then
    -- the fixed thresholds are upper bounds; the learned alarm (partner_silencio_aprendido) may only come earlier
    insert into public.partner_episodio (silencio_desde, aberto_em, motivo, minutos_comerciais)
    values (v_sil.desde, p_agora,
            case when v_sil.minutos_comerciais >= v_cfg.limite_min_comercial then 'limite_min_comercial'
                 when v_sil.horas >= v_cfg.limite_horas then 'limite_horas'
                 else 'ritmo_aprendido' end,
            v_sil.minutos_comerciais)
    returning * into v_ep;
    perform app.partner_aviso_criar('webhook_parado', v_ep.id, null,
      jsonb_build_object('silencio_desde', v_sil.desde, 'ultimo_evento', v_sil.ultimo_evento,
        'minutos_comerciais', v_sil.minutos_comerciais, 'horas', v_sil.horas, 'motivo', v_ep.motivo,
        'limite_min_comercial', v_cfg.limite_min_comercial, 'limite_horas', v_cfg.limite_horas,
        'aprendido', v_apr), p_agora);
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
  elsif v_cfg.api_configurada and v_sil.desde is not null
        and (v_sil.minutos_comerciais >= v_cfg.contingencia_apos_min_comercial or v_ritmo) then
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
  return v_out || jsonb_build_object('aprendido', v_apr);
end;
$$;


--
-- Name: FUNCTION partner_tick(p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_tick(p_agora timestamp with time zone) IS 'The minute decision of area B, as of p_agora (pg_cron runs select partner_tick(now()) every minute; tests pass another clock). 0. Rebuilds the learned rhythm (partner_ritmo_aprender) when older than an hour. 1. Watchdog (when enabled): opens one silence episode with a ''Webhook parado'' notice when the silence reaches limite_min_comercial business minutes or limite_horas elapsed hours, or earlier when the learned alarm says so (partner_silencio_aprendido: the silence has become improbable under the shop''s learned rhythm; motivo ritmo_aprendido); closes it when max(recebido_em) advances, with ''Webhook voltou a funcionar'' only when the return is at most aviso_retorno_max old. 2. Contingency (when the REST API is configured): on after contingencia_apos_min_comercial business minutes of silence (or earlier, when the learned alarm fires), a pull every contingencia_intervalo_min minutes, off when the webhook returns; each change is a notice (log line). 3. Requests the REST poll every poll_intervalo_horas. 4. Enqueues the normalisation job when due PENDENTE events have none (retries, or a job that gave up). Serialised by an advisory lock; returns what it did.';


--
-- Name: partner_tipo_dia(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_tipo_dia(p_data date) RETURNS smallint
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select case when public.feriado_nacional(p_data) is not null
                or exists (select from public.feriado f where f.data = p_data) then 0
              else extract(isodow from p_data) end::smallint;
$$;


--
-- Name: FUNCTION partner_tipo_dia(p_data date); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_tipo_dia(p_data date) IS 'The day type of the learned silence alarm (public.partner_ritmo): 0 for a holiday (public.feriado_nacional or a row of public.feriado, whatever the weekday: holidays are learned apart), else the ISO weekday 1 (Monday) to 7 (Sunday).';


--
-- Name: partner_webhook_normalizar(uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone DEFAULT clock_timestamp()) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_situacao text;
  v_resultado text;
begin
  select situacao, resultado into v_situacao, v_resultado from public.partner_webhook where id = p_id for update;
  if not found then
    raise exception 'evento % do webhook não existe', p_id using errcode = 'PW404';
  end if;
  if v_situacao <> 'PENDENTE' then
    return v_resultado; -- already done: a repeated job is harmless
  end if;
  perform app.partner_webhook_normalizar_ids(array[p_id], p_agora);
  return (select resultado from public.partner_webhook where id = p_id);
end;
$$;


--
-- Name: FUNCTION partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_normalizar(p_id uuid, p_agora timestamp with time zone) IS 'Normalises one stored event (app.partner_webhook_normalizar_ids with a set of one: the same rules as a batch). Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';


--
-- Name: partner_webhook_normalizar_lote(integer, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_normalizar_lote(p_limite integer DEFAULT 50, p_agora timestamp with time zone DEFAULT NULL::timestamp with time zone) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    SET enable_sort TO 'off'
    SET enable_seqscan TO 'off'
    SET jit TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $_$
declare
  v_ids uuid[];
  v_tamanhos bigint[];
  v_agora timestamptz := coalesce(p_agora, clock_timestamp());
  v_de integer := 1;
  v_bytes bigint := 0;
  v_revisar integer := 0;
  v_tratados integer := 0;
begin
  -- fast path, all in ONE subtransaction: the claim of the batch and its normalisation as sets
  -- (app.partner_webhook_normalizar_ids: a few statements per set, not per event), one set per
  -- 8 MiB of bodies (a set holds its bodies and payloads in memory). One subtransaction per event
  -- costs a transaction id and a commit entry each, and more than 64 in a transaction make every
  -- concurrent snapshot check slower (the intake's inserts run meanwhile). The rows are locked by
  -- the subtransaction that updates them: locked by the transaction and updated by a
  -- subtransaction, each row's xmax became a MultiXact that every later visit of the row (the
  -- next claims' index scans among them) had to look up.
  begin
    -- the batch, oldest first. Read in order from partner_webhook_pendente_idx, never by sorting
    -- every PENDENTE row (enable_sort off): the statistics of a table growing fast from empty say
    -- few rows, the planner then prefers scan-and-sort, and each batch of 50 read a backlog of
    -- 20,000 (34 ms a batch, a cost that grew with the backlog). Likewise enable_seqscan off: the
    -- plans of this call (and of the functions it calls) are kept by the job's connection for as
    -- long as it lives; made while the table was small, a sequential scan per event would stay as
    -- the table grows. Every statement here has an index to use, but the one that has none
    -- (partner_configuracao, one row, read by the gate) then costs 10^10 in the planner's units,
    -- and JIT compiled it at each call (10-60 ms of CPU per order released): jit off. And
    -- generic plans: planned once per connection, not again at each call (a batch of one spent a
    -- third of its CPU planning) — except this claim, planned at each call (EXECUTE) with its
    -- limit and the statistics of the moment: a generic plan made while every row was PENDENTE
    -- read partner_webhook_recebido_em_idx from the oldest event on, through every row already
    -- normalised, for as long as the connection lived.
    execute 'select array_agg(s.id order by s.recebido_em), array_agg(s.tamanho order by s.recebido_em)
      from (select w.id, w.recebido_em, octet_length(w.corpo)::bigint as tamanho from public.partner_webhook w
             where w.situacao = ''PENDENTE'' and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())
             order by w.recebido_em
             limit $1
             for update skip locked) s'
      into v_ids, v_tamanhos using greatest(p_limite, 1);
    if v_ids is null then
      return jsonb_build_object('tratados', 0, 'revisar', 0);
    end if;
    for i in 1 .. cardinality(v_ids) loop
      v_bytes := v_bytes + v_tamanhos[i];
      if v_bytes >= 8388608 or i = cardinality(v_ids) then
        v_revisar := v_revisar + app.partner_webhook_normalizar_ids(v_ids[v_de:i], v_agora);
        v_de := i + 1;
        v_bytes := 0;
      end if;
    end loop;
    return jsonb_build_object('tratados', cardinality(v_ids), 'revisar', v_revisar);
  exception when others then
    v_revisar := 0; -- an event failed unexpectedly: nothing of the batch stays; redone one event at a time below
  end;

  -- one event at a time, each in its own subtransaction, in order; an event another caller took
  -- meanwhile (the batch's locks went with its subtransaction) is left to it
  for i in 1 .. cardinality(v_ids) loop
    begin
      perform 1 from public.partner_webhook w where w.id = v_ids[i] and w.situacao = 'PENDENTE' for update skip locked;
      if found then
        v_revisar := v_revisar + app.partner_webhook_normalizar_ids(array[v_ids[i]], coalesce(p_agora, clock_timestamp()));
        v_tratados := v_tratados + 1;
      end if;
    exception when others then
      update public.partner_webhook set
        tentativas = tentativas + 1,
        detalhe = left(sqlerrm, 500),
        proxima_tentativa_em = clock_timestamp() + least(interval '5 seconds' * power(2, tentativas), interval '15 minutes'),
        situacao = case when tentativas + 1 >= 8 then 'REVISAR' else situacao end,
        resultado = case when tentativas + 1 >= 8 then 'erro_interno' else resultado end,
        processado_em = case when tentativas + 1 >= 8 then coalesce(p_agora, clock_timestamp()) end
      where id = v_ids[i] and situacao = 'PENDENTE';
      v_tratados := v_tratados + 1;
      raise warning 'partner_webhook %: falha na normalização (nova tentativa agendada): %', v_ids[i], sqlerrm;
    end;
  end loop;
  return jsonb_build_object('tratados', v_tratados, 'revisar', v_revisar);
end;
$_$;


--
-- Name: FUNCTION partner_webhook_normalizar_lote(p_limite integer, p_agora timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_normalizar_lote(p_limite integer, p_agora timestamp with time zone) IS 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work), read in order from the partial index of PENDENTE rows (enable_sort and enable_seqscan off: a batch costs the same whatever the backlog or the table''s size when its plans were made; jit off: a plan forced off a sequential scan looks costly enough to be compiled at each call; generic plans: planned once per connection). The batch is normalised as sets (app.partner_webhook_normalizar_ids, one set per 8 MiB of bodies: a few statements per set, the events applied in order, several events of one order in one batch too), claimed and normalised in one subtransaction; when an event fails unexpectedly the batch is redone one event at a time, each locked again (one another caller took meanwhile is left to it) in its own subtransaction, so that the error does not stop the others: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. p_agora (default: the clock once per batch) is processado_em and the instant of the transitions. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';


--
-- Name: partner_webhook_receber(bytea, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text DEFAULT NULL::text, p_ip text DEFAULT NULL::text, p_user_agent text DEFAULT NULL::text) RETURNS uuid
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select l.id
    from public.partner_webhook_receber_lote(array[app.uuid_v7()], array[p_corpo], array[p_content_type],
                                             array[p_ip], array[p_user_agent]) l;
$$;


--
-- Name: FUNCTION partner_webhook_receber(p_corpo bytea, p_content_type text, p_ip text, p_user_agent text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_receber(p_corpo bytea, p_content_type text, p_ip text, p_user_agent text) IS 'Intake of one delivery (for DBAs and scripts; the service stores by group commit through partner_webhook_receber_lote): stores the raw body (recebido_em = clock time) and makes sure the normalisation job runs (job partner_normalizar with unique key lote: a no-op when one is pending or running; NOTIFY app_jobs), in the caller''s transaction. Returns the new event id. Never fails on the content of the body.';


--
-- Name: partner_webhook_receber_lote(uuid[], bytea[], text[], text[], text[], timestamp with time zone[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_receber_lote(p_ids uuid[], p_corpos bytea[], p_content_types text[] DEFAULT NULL::text[], p_ips text[] DEFAULT NULL::text[], p_user_agents text[] DEFAULT NULL::text[], p_recebidos_em timestamp with time zone[] DEFAULT NULL::timestamp with time zone[]) RETURNS TABLE(id uuid, inserido boolean)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_n integer := coalesce(cardinality(p_ids), 0);
  v_novos uuid[];
begin
  if coalesce(cardinality(p_corpos), 0) <> v_n
     or (p_content_types is not null and cardinality(p_content_types) <> v_n)
     or (p_ips is not null and cardinality(p_ips) <> v_n)
     or (p_user_agents is not null and cardinality(p_user_agents) <> v_n)
     or (p_recebidos_em is not null and cardinality(p_recebidos_em) <> v_n) then
    raise exception 'partner_webhook_receber_lote: os arrays têm tamanhos diferentes (% ids)', v_n using errcode = 'PW400';
  end if;
  if v_n = 0 then
    return;
  end if;
  if array_position(p_ids, null) is not null then
    raise exception 'partner_webhook_receber_lote: id nulo' using errcode = 'PW400';
  end if;

  -- one multi-row insert, in the arrays' order (recebido_em: the given instant, else the clock
  -- at the row); an id already stored (a replay of the spool) is skipped, never duplicated
  with entrada as (
    select e.id, e.corpo, e.content_type, e.ip, e.user_agent, e.recebido_em, e.n
      from unnest(p_ids, p_corpos,
                  coalesce(p_content_types, array_fill(null::text, array[v_n])),
                  coalesce(p_ips, array_fill(null::text, array[v_n])),
                  coalesce(p_user_agents, array_fill(null::text, array[v_n])),
                  coalesce(p_recebidos_em, array_fill(null::timestamptz, array[v_n])))
           with ordinality as e(id, corpo, content_type, ip, user_agent, recebido_em, n)
  ), ins as (
    insert into public.partner_webhook as w (id, recebido_em, corpo, content_type, ip, user_agent)
    select e.id, coalesce(e.recebido_em, clock_timestamp()), coalesce(e.corpo, ''::bytea),
           left(e.content_type, 200), left(e.ip, 100), left(e.user_agent, 500)
      from entrada e
     order by e.n
    on conflict on constraint partner_webhook_pkey do nothing
    returning w.id
  )
  select coalesce(array_agg(ins.id), '{}') into v_novos from ins;

  if cardinality(v_novos) > 0 then
    begin
      -- shared: concurrent intakes never wait for each other; see partner_normalizar_concluir
      perform pg_advisory_xact_lock_shared(app.partner_normalizar_trava());
      -- under load the job is nearly always there already: a pending one will read these rows, and
      -- a running one cannot end before this commit (its end takes the lock exclusively, then looks
      -- for PENDENTE rows), so only the lookup is paid, not an insert attempt per flush
      if not exists (select from app.job j where j.kind = 'partner_normalizar' and j.unique_key = 'lote'
                                             and j.status in ('pending', 'running')) then
        perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
      end if;
    exception when others then
      -- the events are stored: nothing may turn the answer into an error. partner_tick re-enqueues them.
      raise warning 'partner_webhook (% eventos): falha ao enfileirar a normalização: %', cardinality(v_novos), sqlerrm;
    end;
  end if;

  return query
    select e.id, e.id = any (v_novos)
      from unnest(p_ids) with ordinality as e(id, n)
     order by e.n;
end;
$$;


--
-- Name: FUNCTION partner_webhook_receber_lote(p_ids uuid[], p_corpos bytea[], p_content_types text[], p_ips text[], p_user_agents text[], p_recebidos_em timestamp with time zone[]); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_receber_lote(p_ids uuid[], p_corpos bytea[], p_content_types text[], p_ips text[], p_user_agents text[], p_recebidos_em timestamp with time zone[]) IS 'Group-commit intake of POST /webhook/partner and replay of the local spool: stores many deliveries with one multi-row insert, in the arrays'' order (one element per event; content types, IPs, user agents and instants may be null arrays). The id is chosen by the edge at intake, so storing the same event twice (a spool replay after a crash, or after a commit whose answer was lost) inserts it once: inserido = false for an id already stored. recebido_em = the given instant (the spool''s arrival time) or the clock at the row. Makes sure the normalisation job runs, as partner_webhook_receber does, in the caller''s transaction. PW400 when the arrays differ in length or an id is null. Never fails on the content of a body.';


--
-- Name: partner_webhook_receber_lote_juntos(uuid[], bytea, integer[], text[], text[], text[], timestamp with time zone[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.partner_webhook_receber_lote_juntos(p_ids uuid[], p_corpos bytea, p_tamanhos integer[], p_content_types text[] DEFAULT NULL::text[], p_ips text[] DEFAULT NULL::text[], p_user_agents text[] DEFAULT NULL::text[], p_recebidos_em timestamp with time zone[] DEFAULT NULL::timestamp with time zone[]) RETURNS TABLE(id uuid, inserido boolean)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_corpos bytea[];
begin
  if coalesce(cardinality(p_tamanhos), 0) <> coalesce(cardinality(p_ids), 0) then
    raise exception 'partner_webhook_receber_lote_juntos: % ids e % tamanhos', coalesce(cardinality(p_ids), 0), coalesce(cardinality(p_tamanhos), 0) using errcode = 'PW400';
  end if;
  if (select coalesce(sum(t), 0) from unnest(p_tamanhos) t) <> coalesce(length(p_corpos), 0)
     or array_position(p_tamanhos, null) is not null or exists (select from unnest(p_tamanhos) t where t < 0) then
    raise exception 'partner_webhook_receber_lote_juntos: os tamanhos não somam os % bytes dos corpos', coalesce(length(p_corpos), 0) using errcode = 'PW400';
  end if;
  -- the bodies one after the other, cut back into one element each, in order
  select coalesce(array_agg(substring(p_corpos from (x.fim - x.t + 1)::integer for x.t) order by x.n), '{}')
    into v_corpos
    from (select u.t, u.n, sum(u.t) over (order by u.n) as fim from unnest(p_tamanhos) with ordinality as u(t, n)) x;
  return query
    select l.id, l.inserido from public.partner_webhook_receber_lote(p_ids, v_corpos, p_content_types, p_ips, p_user_agents, p_recebidos_em) l;
end;
$$;


--
-- Name: FUNCTION partner_webhook_receber_lote_juntos(p_ids uuid[], p_corpos bytea, p_tamanhos integer[], p_content_types text[], p_ips text[], p_user_agents text[], p_recebidos_em timestamp with time zone[]); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.partner_webhook_receber_lote_juntos(p_ids uuid[], p_corpos bytea, p_tamanhos integer[], p_content_types text[], p_ips text[], p_user_agents text[], p_recebidos_em timestamp with time zone[]) IS 'partner_webhook_receber_lote with the bodies sent as one bytea, one after the other, and their lengths (p_tamanhos, in bytes, in the order of p_ids): what the service calls, so that the bodies travel as raw bytes (a bytea parameter goes in binary) instead of a bytea[] literal that the edge writes and Postgres reads back in hex, twice the size. PW400 when there are not as many lengths as ids or they do not add up to the bytes given; otherwise exactly partner_webhook_receber_lote.';


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
-- Name: replicacao_assumir(uuid, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_assumir(p_id uuid, p_worker text, p_estrategia text) RETURNS public.xls_resetar_replicator
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.xls_resetar_replicator;
begin
  -- session-level: held by the worker's connection for as long as it runs the steps; a
  -- process that dies loses its connection, and so the lock (replicacao_recuperar)
  if not pg_try_advisory_lock(hashtext('xls_resetar_replicator'), hashtext(p_id::text)) then
    return null;
  end if;
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    return v_row;
  end if;
  if v_row.assumido_em is not null then
    -- taken before by a process that died (we hold its lock now): never run the steps twice
    v_row := public.replicacao_falhar(p_id, 'interrompida após reinício da aplicação');
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    return v_row;
  end if;
  update public.xls_resetar_replicator set assumido_em = now(), worker = p_worker, estrategia = p_estrategia where id = p_id returning * into v_row;
  return v_row;
end;
$$;


--
-- Name: FUNCTION replicacao_assumir(p_id uuid, p_worker text, p_estrategia text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_assumir(p_id uuid, p_worker text, p_estrategia text) IS 'Called by the job of a reset on its own connection: takes the execution''s advisory lock (session level, held while the steps run) and marks it taken by p_worker under the restart strategy p_estrategia (hosting | manual). Returns null when another session holds the lock; the row unchanged when it is no longer EM_ANDAMENTO; the row in ERRO (''interrompida após reinício da aplicação'') when it had been taken by a process that died. RR404: unknown id.';


--
-- Name: replicacao_consultas_definir(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_consultas_definir(p_consultas jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v jsonb;
  v_m text[];
  v_tabela text;
  v_n integer := 0;
begin
  if p_consultas is null or jsonb_typeof(p_consultas) <> 'array' then
    raise exception 'as consultas devem ser uma lista [{"bucket": …, "consulta": …}]' using errcode = 'RR400';
  end if;
  delete from app.replicacao_consulta;
  for v in select * from jsonb_array_elements(p_consultas) loop
    -- SELECT <columns> FROM <bi_table> [WHERE <filter>]: the one shape the sync configuration uses
    v_m := regexp_match(v->>'consulta', '^\s*select\s+(.+?)\s+from\s+"?(bi_[a-z0-9_]+)"?(?:\s+where\s+(.+?))?\s*$', 'is');
    if v_m is null or (v->>'consulta') ~ ';' then
      raise exception 'consulta da configuração de sincronização fora do formato SELECT … FROM bi_… [WHERE …]: %', v->>'consulta'
        using errcode = 'RR400';
    end if;
    v_tabela := lower(v_m[2]);
    if to_regclass(format('public.%I', v_tabela)) is null then
      raise exception 'a consulta da configuração de sincronização nomeia a tabela %, que não existe', v_tabela using errcode = 'RR400';
    end if;
    if exists (select from app.replicacao_consulta where tabela = v_tabela) then
      raise exception 'a tabela % aparece em mais de uma consulta da configuração de sincronização', v_tabela using errcode = 'RR400';
    end if;
    insert into app.replicacao_consulta (tabela, bucket, filtro, consulta)
    values (v_tabela, coalesce(v->>'bucket', ''), nullif(btrim(v_m[3]), ''), btrim(v->>'consulta'));
    v_n := v_n + 1;
  end loop;
  return v_n;
end;
$_$;


--
-- Name: FUNCTION replicacao_consultas_definir(p_consultas jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_consultas_definir(p_consultas jsonb) IS 'Replaces app.replicacao_consulta with the sync configuration''s data queries, given as [{"bucket": …, "consulta": "SELECT … FROM bi_x [WHERE …]"}] (the service calls it at start). RR400: a query of another shape, a table that does not exist, a table in two queries. Returns how many were stored.';


--
-- Name: replicacao_falhar(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_falhar(p_id uuid, p_mensagem text) RETURNS public.xls_resetar_replicator
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.xls_resetar_replicator;
begin
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    return v_row;
  end if;
  -- the step that was running when the execution stopped ends with it
  update public.xls_resetar_replicator_passo
     set status = 'ERRO', finalizado_em = now(), mensagem = coalesce(mensagem || ' — ', '') || coalesce(p_mensagem, 'falhou')
   where execucao_id = p_id and status = 'EM_ANDAMENTO';
  update public.xls_resetar_replicator
     set status = 'ERRO', finalizado_em = now(),
         step_falho = coalesce(step_falho, step_atual),
         erro_mensagem = case when erro_mensagem is null then coalesce(p_mensagem, 'falhou')
                              when p_mensagem is null or position(p_mensagem in erro_mensagem) > 0 then erro_mensagem
                              else erro_mensagem || '; ' || p_mensagem end
   where id = p_id
  returning * into v_row;
  perform app.notificar_bot(app.replicacao_texto_bot(v_row));
  return v_row;
end;
$$;


--
-- Name: FUNCTION replicacao_falhar(p_id uuid, p_mensagem text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_falhar(p_id uuid, p_mensagem text) IS 'Ends a reset in ERRO (step_atual kept; step_falho = the first failed step, else the step that was running) and queues the messaging-bot notice, in one transaction. No automatic cleanup: replicacao_instrucoes(step_falho) says what to do by hand. A no-op on an execution already ended. RR404 unknown.';


--
-- Name: replicacao_finalizar(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_finalizar(p_id uuid) RETURNS public.xls_resetar_replicator
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.xls_resetar_replicator;
  v_nuke text;
begin
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    raise exception 'o reset % já terminou (%)', p_id, v_row.status using errcode = 'RR409';
  end if;
  if v_row.step_falho is not null then
    raise exception 'o reset % teve falha no passo %: não pode ser finalizado com sucesso', p_id, v_row.step_falho
      using errcode = 'RR409';
  end if;
  -- the phones clear their data when ultimo_nuke moves: only once the engine was found complete
  -- (SUCESSO), or could not be looked at under the manual strategy (AVISO, said in its message)
  if not exists (select from public.xls_resetar_replicator_passo
                  where execucao_id = p_id and step = 'VERIFICAR_PARIDADE' and status in ('SUCESSO', 'AVISO')) then
    raise exception 'o reset % não conferiu a paridade do motor (passo VERIFICAR_PARIDADE): ultimo_nuke não avança', p_id
      using errcode = 'RR409';
  end if;
  perform public.replicacao_passo(p_id, 'FINALIZAR', 'EM_ANDAMENTO');
  v_nuke := public.replicacao_ultimo_nuke_avancar();
  perform public.replicacao_passo(p_id, 'FINALIZAR', 'SUCESSO', format('ultimo_nuke = %s', v_nuke));
  update public.xls_resetar_replicator
     set status = 'SUCESSO', finalizado_em = now(), ultimo_nuke = v_nuke
   where id = p_id
  returning * into v_row;
  perform app.notificar_bot(app.replicacao_texto_bot(v_row));
  return v_row;
end;
$$;


--
-- Name: FUNCTION replicacao_finalizar(p_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_finalizar(p_id uuid) IS 'Reset step FINALIZAR: advances ultimo_nuke (replicacao_ultimo_nuke_avancar), ends the execution in SUCESSO and queues the messaging-bot notice, in one transaction. RR404 unknown; RR409 already ended, a step failed, or VERIFICAR_PARIDADE did not end SUCESSO or AVISO (the engine was not found complete).';


--
-- Name: replicacao_instrucoes(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_instrucoes(p_step text, p_estrategia text DEFAULT 'manual'::text) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case p_step
    when 'VALIDAR' then
      'Nada foi alterado: o motor de sincronização não foi parado. Corrija o que a mensagem de erro aponta '
      || '(variáveis REPLICATOR_*, conexão com o banco, API da plataforma de hospedagem) e inicie um novo reset.'
    when 'PAUSAR' then
      case when p_estrategia = 'hosting' then
        'A suspensão do serviço do motor na plataforma de hospedagem falhou. Abra o painel da plataforma e veja o estado '
        || 'do serviço: se ficou suspenso, retome-o (Resume) ou inicie um novo reset; se continua no ar, nada foi alterado. '
        || 'Confira a chave e o id do serviço (REPLICATOR_HOSTING_API_KEY, REPLICATOR_HOSTING_SERVICE_ID).'
      else
        'O pedido de parada manual não foi registrado. Nada foi alterado; inicie um novo reset.'
      end
    when 'AGUARDAR_PARADA' then
      'Um slot do motor continuou ativo além do limite: nada foi removido. Veja quem o segura com '
      || '"select * from replicacao_slots();" (active_pid) e pare o motor de sincronização '
      || '(painel da plataforma ou à mão). Depois inicie um novo reset. Se o motor ficou suspenso e você não vai '
      || 'refazer o reset agora, retome-o.'
    when 'RESET_SLOT' then
      'O motor está parado e parte dos slots pode já ter sido removida (veja "slots removidos"). Com o motor parado, '
      || 'inicie um novo reset (ele refaz tudo desde o começo). Para terminar à mão: '
      || '"select replicacao_slots_remover();", apague o docstore do motor, "select replicacao_publicacao_recriar();", '
      || 'retome o motor, confira que um slot ficou ativo ("select * from replicacao_slots();") e rode '
      || '"select replicacao_ultimo_nuke_avancar();".'
    when 'DROP_DOCSTORE' then
      'O slot já foi removido e o RESUME foi tentado (o motor volta a replicar do zero, mas o docstore antigo continua lá). '
      || 'Apague à mão o armazenamento do motor: no MongoDB, "db.dropDatabase()" no banco de REPLICATOR_DOCSTORE_URL; '
      || 'no Postgres, "drop schema <schema> cascade" (o schema da URL, padrão powersync). Depois inicie um novo reset, '
      || 'para que o motor recomece limpo e os aparelhos recebam o novo ultimo_nuke.'
    when 'RECRIAR_PUBLICACAO' then
      'O motor está parado, sem slot e sem docstore. Recrie a publicação com "select replicacao_publicacao_recriar();", '
      || 'retome o motor (painel da plataforma ou à mão), confira que um slot ficou ativo ("select * from replicacao_slots();") '
      || 'e rode "select replicacao_ultimo_nuke_avancar();" para os aparelhos sincronizarem do zero.'
    when 'RESUME' then
      'O motor continua parado. Retome-o à mão (painel da plataforma: Resume no serviço do motor, ou reinicie o processo), '
      || 'confira que um slot ficou ativo ("select * from replicacao_slots();") e rode '
      || '"select replicacao_ultimo_nuke_avancar();" para os aparelhos sincronizarem do zero.'
    when 'AGUARDAR_REPLICACAO' then
      'O motor foi retomado, mas nenhum slot ficou ativo dentro do limite. Veja os logs do motor na plataforma de hospedagem '
      || '(conexão com o banco, publicação, docstore). Quando um slot ficar ativo ("select * from replicacao_slots();"), '
      || 'rode "select replicacao_ultimo_nuke_avancar();".'
    when 'VERIFICAR_PARIDADE' then
      'A replicação foi refeita, mas o motor não terminou a cópia inicial ou não serve o mesmo que o Postgres dentro do limite '
      || '(veja as tabelas e os números na mensagem). ultimo_nuke NÃO foi avançado: nenhum aparelho foi mandado limpar os dados. '
      || 'Enquanto o motor não conclui a cópia, os aparelhos mantêm os dados que têm; uma cópia concluída, mesmo diferente do '
      || 'Postgres, os aparelhos conectados já recebem (sem limpar). '
      || 'Veja os logs do motor (erros de replicação, tabelas sem permissão de leitura) e a saúde da replicação na tela; '
      || 'confira de novo com "Conferir paridade" na tela Replicação. Quando o motor estiver completo, rode '
      || '"select replicacao_ultimo_nuke_avancar();", ou inicie um novo reset.'
    when 'FINALIZAR' then
      'A replicação já foi refeita; só o aviso aos aparelhos faltou. Rode "select replicacao_ultimo_nuke_avancar();".'
  end;
$$;


--
-- Name: FUNCTION replicacao_instrucoes(p_step text, p_estrategia text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_instrucoes(p_step text, p_estrategia text) IS 'What to do by hand (pt-BR) after a reset failed in step p_step under the restart strategy p_estrategia (hosting | manual); shown by the reset detail (API and /admin screen). The runbook is docs/replicacao.md.';


--
-- Name: replicacao_liberar(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_liberar(p_id uuid) RETURNS boolean
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
$$;


--
-- Name: FUNCTION replicacao_liberar(p_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_liberar(p_id uuid) IS 'Releases the advisory lock replicacao_assumir took on this session (end of the reset job).';


--
-- Name: replicacao_paridade(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_paridade(p_motor jsonb) RETURNS TABLE(tabela text, postgres bigint, motor bigint, igual boolean)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select coalesce(p.tabela, m.tabela),
         coalesce(p.linhas, 0),
         coalesce(m.linhas, 0),
         coalesce(p.linhas, 0) = coalesce(m.linhas, 0) and coalesce(p.ids, 0) = coalesce(m.ids, 0)
    from public.replicacao_paridade_postgres() p
    full join jsonb_to_recordset(coalesce(p_motor, '[]')) as m(tabela text, linhas bigint, ids numeric)
      on m.tabela = p.tabela
   order by 1;
$$;


--
-- Name: FUNCTION replicacao_paridade(p_motor jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_paridade(p_motor jsonb) IS 'The parity of the sync engine with Postgres, per synced table: p_motor is what the engine serves ([{"tabela", "linhas", "ids"}], read from its storage by the service), compared with replicacao_paridade_postgres(). igual: same number of rows and the same ids (sum of app.replicacao_id_hash). A table on one side only is listed with 0 on the other.';


--
-- Name: replicacao_paridade_conferir(uuid, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_paridade_conferir(p_id uuid, p_motor jsonb) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_tabelas jsonb;
  v_ok boolean;
begin
  select coalesce(jsonb_agg(to_jsonb(r) order by r.tabela), '[]'), coalesce(bool_and(r.igual), false)
    into v_tabelas, v_ok
    from public.replicacao_paridade(p_motor) r;
  update public.xls_resetar_replicator set paridade = v_tabelas where id = p_id and status = 'EM_ANDAMENTO';
  if not found then
    raise exception 'reset % não existe ou já terminou', p_id using errcode = 'RR409';
  end if;
  return v_ok;
end;
$$;


--
-- Name: FUNCTION replicacao_paridade_conferir(p_id uuid, p_motor jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_paridade_conferir(p_id uuid, p_motor jsonb) IS 'One look of the reset step VERIFICAR_PARIDADE: compares what the engine serves (p_motor, see replicacao_paridade) with Postgres, keeps the figures in xls_resetar_replicator.paridade and answers whether every table is equal (false also when no table is configured). RR409: the execution is not running.';


--
-- Name: replicacao_paridade_postgres(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_paridade_postgres() RETURNS TABLE(tabela text, linhas bigint, ids numeric)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  c app.replicacao_consulta;
begin
  for c in select * from app.replicacao_consulta order by 1 loop
    tabela := c.tabela;
    execute format('select count(*), coalesce(sum(app.replicacao_id_hash(id::text)), 0) from public.%I where %s',
                   c.tabela, coalesce(c.filtro, 'true'))
       into linhas, ids;
    return next;
  end loop;
end;
$$;


--
-- Name: FUNCTION replicacao_paridade_postgres(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_paridade_postgres() IS 'What the phones must hold, per synced table: the rows of the table under the sync configuration''s filter (app.replicacao_consulta) and the sum of app.replicacao_id_hash of their ids. One side of the reset''s parity check; in psql: select * from replicacao_paridade_postgres();';


--
-- Name: xls_resetar_replicator_passo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_resetar_replicator_passo (
    id bigint NOT NULL,
    execucao_id uuid NOT NULL,
    ordem smallint NOT NULL,
    step text NOT NULL,
    status text DEFAULT 'EM_ANDAMENTO'::text NOT NULL,
    mensagem text,
    iniciado_em timestamp with time zone DEFAULT now() NOT NULL,
    finalizado_em timestamp with time zone,
    CONSTRAINT xls_resetar_replicator_passo_fim CHECK (((status = 'EM_ANDAMENTO'::text) = (finalizado_em IS NULL))),
    CONSTRAINT xls_resetar_replicator_passo_status_valido CHECK ((status = ANY (ARRAY['EM_ANDAMENTO'::text, 'SUCESSO'::text, 'AVISO'::text, 'PULADO'::text, 'ERRO'::text]))),
    CONSTRAINT xls_resetar_replicator_passo_step_valido CHECK ((step = ANY (ARRAY['VALIDAR'::text, 'PAUSAR'::text, 'AGUARDAR_PARADA'::text, 'RESET_SLOT'::text, 'DROP_DOCSTORE'::text, 'RECRIAR_PUBLICACAO'::text, 'RESUME'::text, 'AGUARDAR_REPLICACAO'::text, 'VERIFICAR_PARIDADE'::text, 'FINALIZAR'::text])))
);


--
-- Name: TABLE xls_resetar_replicator_passo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_resetar_replicator_passo IS 'Per-step log of a reset: one row per step started, with its outcome (SUCESSO, AVISO = done with a warning, PULADO = skipped, ERRO), timestamps and the last message.';


--
-- Name: replicacao_passo(uuid, text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_passo(p_id uuid, p_step text, p_status text, p_mensagem text DEFAULT NULL::text, p_slot_novo text DEFAULT NULL::text) RETURNS public.xls_resetar_replicator_passo
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_exec public.xls_resetar_replicator;
  v_passo public.xls_resetar_replicator_passo;
  v_ordem smallint;
begin
  v_ordem := array_position(array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'DROP_DOCSTORE',
    'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR'], p_step);
  if v_ordem is null then
    raise exception 'passo desconhecido: %', p_step using errcode = 'RR400';
  end if;
  if p_status is null or p_status not in ('EM_ANDAMENTO', 'SUCESSO', 'AVISO', 'PULADO', 'ERRO') then
    raise exception 'status de passo inválido: %', p_status using errcode = 'RR400';
  end if;
  select * into v_exec from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_exec.status <> 'EM_ANDAMENTO' then
    raise exception 'o reset % já terminou (%)', p_id, v_exec.status using errcode = 'RR409';
  end if;

  if p_status = 'EM_ANDAMENTO' then
    update public.xls_resetar_replicator set step_atual = p_step where id = p_id;
    insert into public.xls_resetar_replicator_passo (execucao_id, ordem, step, status, mensagem)
    values (p_id, v_ordem, p_step, 'EM_ANDAMENTO', p_mensagem)
    on conflict (execucao_id, step) do update
      set status = 'EM_ANDAMENTO', mensagem = excluded.mensagem, iniciado_em = now(), finalizado_em = null
    returning * into v_passo;
  else
    insert into public.xls_resetar_replicator_passo (execucao_id, ordem, step, status, mensagem, finalizado_em)
    values (p_id, v_ordem, p_step, p_status, p_mensagem, now())
    on conflict (execucao_id, step) do update
      set status = excluded.status, mensagem = coalesce(excluded.mensagem, xls_resetar_replicator_passo.mensagem),
          finalizado_em = now()
    returning * into v_passo;
    if p_status = 'ERRO' then
      update public.xls_resetar_replicator
         set step_falho = coalesce(step_falho, p_step),
             erro_mensagem = coalesce(erro_mensagem, format('%s: %s', p_step, coalesce(p_mensagem, 'falhou')))
       where id = p_id;
    end if;
  end if;
  if p_slot_novo is not null then
    update public.xls_resetar_replicator set slot_novo = p_slot_novo where id = p_id;
  end if;
  return v_passo;
end;
$$;


--
-- Name: FUNCTION replicacao_passo(p_id uuid, p_step text, p_status text, p_mensagem text, p_slot_novo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_passo(p_id uuid, p_step text, p_status text, p_mensagem text, p_slot_novo text) IS 'Records a step of a reset: EM_ANDAMENTO starts it (step_atual of the execution), SUCESSO / AVISO (done with a warning) / PULADO / ERRO end it with a message; the first ERRO sets step_falho and erro_mensagem (the execution ends later, by replicacao_falhar). RR400 unknown step or status; RR404 unknown execution; RR409 the execution already ended.';


--
-- Name: replicacao_publicacao_recriar(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_publicacao_recriar(p_nome text DEFAULT 'powersync'::text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
begin
  if p_nome is null or p_nome !~ '^[a-z_][a-z0-9_]{0,62}$' then
    raise exception 'nome de publicação inválido: %', p_nome using errcode = 'RR400';
  end if;
  insert into app.replicacao_publicacao (nome) values (p_nome) on conflict (nome) do nothing;
  execute format('drop publication if exists %I', p_nome);
  return public.replicacao_publicacao_sincronizar(p_nome);
end;
$_$;


--
-- Name: FUNCTION replicacao_publicacao_recriar(p_nome text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_publicacao_recriar(p_nome text) IS 'Reset step RECRIAR_PUBLICACAO, also for psql: registers p_nome in app.replicacao_publicacao (so later bi_* tables join it), drops the publication and creates it again with exactly the bi_* tables of public. Returns how many tables it covers. RR400: invalid name.';


--
-- Name: replicacao_publicacao_sincronizar(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_publicacao_sincronizar(p_nome text DEFAULT NULL::text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_pub text;
  v_tabelas text;
  v_n integer;
  v_rel record;
begin
  select string_agg(format('%I.%I', n.nspname, c.relname), ', ' order by c.relname), count(*)
    into v_tabelas, v_n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\_%'
     and not c.relispartition;
  for v_pub in
    select r.nome from app.replicacao_publicacao r where p_nome is null or r.nome = p_nome order by r.nome
  loop
    if not exists (select from pg_publication where pubname = v_pub) then
      execute format('create publication %I', v_pub);
    end if;
    if v_tabelas is not null then
      execute format('alter publication %I set table %s', v_pub, v_tabelas);
    else
      for v_rel in select * from pg_publication_tables where pubname = v_pub loop
        execute format('alter publication %I drop table %I.%I', v_pub, v_rel.schemaname, v_rel.tablename);
      end loop;
    end if;
  end loop;
  return coalesce(v_n, 0);
end;
$$;


--
-- Name: FUNCTION replicacao_publicacao_sincronizar(p_nome text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_publicacao_sincronizar(p_nome text) IS 'Sets the publication p_nome (or, with null, every publication of app.replicacao_publicacao) to exactly the bi_* tables of public, creating it when missing. Returns how many tables it covers. Called by the event trigger _200_bi_publicar and by replicacao_publicacao_recriar.';


--
-- Name: replicacao_recuperar(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_recuperar() RETURNS SETOF public.xls_resetar_replicator
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v record;
begin
  for v in
    select r.id from public.xls_resetar_replicator r
     where r.status = 'EM_ANDAMENTO'
       -- nobody runs it: no session holds its advisory lock (a dead process lost it) ...
       and not exists (select from pg_locks l
                        where l.locktype = 'advisory' and l.granted
                          and l.database = (select oid from pg_database where datname = current_database())
                          and l.classid = hashtext('xls_resetar_replicator')::oid
                          and l.objid = hashtext(r.id::text)::oid and l.objsubid = 2)
       -- ... and it was taken before, or no job will take it (none queued, none just claimed)
       and (r.assumido_em is not null
            or not exists (select from app.job j
                            where j.id = r.job_id
                              and (j.status = 'pending'
                                   or (j.status = 'running' and j.locked_at > now() - interval '1 minute'))))
     for update skip locked
  loop
    return query select * from public.replicacao_falhar(v.id, 'interrompida após reinício da aplicação');
  end loop;
end;
$$;


--
-- Name: FUNCTION replicacao_recuperar(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_recuperar() IS 'Orphan rule of the reset, at application startup and every minute (pg_cron job replicacao_recuperar): an execution EM_ANDAMENTO that no live process runs (no session holds its advisory lock, and it was taken, or its job is neither queued nor just claimed) ends in ERRO ''interrompida após reinício da aplicação'' with step_atual kept, which unblocks new resets. Executions run by live replicas are left alone. Returns the executions it ended.';


--
-- Name: replicacao_resetar(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_resetar(p_motivo text DEFAULT NULL::text, p_solicitante text DEFAULT 'psql'::text) RETURNS public.xls_resetar_replicator
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_row public.xls_resetar_replicator;
  v_em_andamento uuid;
  v_motivo text := nullif(btrim(p_motivo), '');
begin
  if char_length(v_motivo) > 500 then
    raise exception 'motivo com % caracteres: o máximo é 500', char_length(v_motivo) using errcode = 'RR400';
  end if;
  begin
    insert into public.xls_resetar_replicator (motivo, solicitante) values (v_motivo, left(p_solicitante, 200))
    returning * into v_row;
  exception when unique_violation then
    select id into v_em_andamento from public.xls_resetar_replicator where status = 'EM_ANDAMENTO';
    raise exception 'já existe um reset da replicação em andamento (%)', v_em_andamento
      using errcode = 'RR409', detail = coalesce(v_em_andamento::text, '');
  end;
  update public.xls_resetar_replicator
     set job_id = app.enqueue('replicacao_resetar', jsonb_build_object('id', v_row.id), now(), v_row.id::text, 1)
   where id = v_row.id
  returning * into v_row;
  return v_row;
end;
$$;


--
-- Name: FUNCTION replicacao_resetar(p_motivo text, p_solicitante text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_resetar(p_motivo text, p_solicitante text) IS 'Starts a reset of the replication to the phones: an execution EM_ANDAMENTO in xls_resetar_replicator and its job (replicacao_resetar), which a replica of the service claims and runs step by step. Callable from psql: select * from replicacao_resetar(''motivo''); then follow it in xls_resetar_replicator_passo. RR409 when one is already EM_ANDAMENTO (the detail carries its id); RR400 when motivo has more than 500 characters.';


--
-- Name: replicacao_saude(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_saude(p_prefixo text DEFAULT 'powersync_'::text) RETURNS TABLE(slot_name text, active boolean, active_pid integer, confirmed_flush_lsn pg_lsn, current_lsn pg_lsn, lag_bytes numeric, retained_bytes numeric, write_lag interval, flush_lag interval, replay_lag interval, wal_status text, safe_wal_size bigint, inactive_since timestamp with time zone, inactive_at_least boolean)
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  with wal as (
    -- a standby has no current insert position: the position it has replayed
    select case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end as lsn
  )
  select s.slot_name::text, s.active, s.active_pid, s.confirmed_flush_lsn, wal.lsn,
         pg_wal_lsn_diff(wal.lsn, s.confirmed_flush_lsn), pg_wal_lsn_diff(wal.lsn, s.restart_lsn),
         r.write_lag, r.flush_lag, r.replay_lag, s.wal_status, s.safe_wal_size,
         -- the observer's last look at this slot is recent (it runs every minute): it can tell
         case when not s.active and v.visto_em >= now() - interval '5 minutes'
              then coalesce(v.ativo_visto_em, v.observado_desde) end,
         case when not s.active and v.visto_em >= now() - interval '5 minutes'
              then v.ativo_visto_em is null end
    from pg_replication_slots s
   cross join wal
    left join pg_stat_replication r on r.pid = s.active_pid
    left join app.replicacao_slot_visto v on v.slot = s.slot_name::text
   where s.database = current_database() and starts_with(s.slot_name::text, p_prefixo)
   order by s.slot_name;
$$;


--
-- Name: FUNCTION replicacao_saude(p_prefixo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_saude(p_prefixo text) IS 'Replication health, one row per replication slot of this database whose name starts with p_prefixo (the sync engine''s, REPLICATOR_SLOT_PREFIX): active and active_pid (a client holds it), confirmed_flush_lsn (the WAL position the client confirmed), current_lsn (this server''s WAL position now), lag_bytes (WAL written since the confirmed position: pg_wal_lsn_diff(current, confirmed_flush_lsn)), retained_bytes (WAL the slot keeps on disk: from restart_lsn), write_lag / flush_lag / replay_lag (pg_stat_replication of the walsender holding the slot; null when unknown: no client, caught up and idle, or a caller without pg_read_all_stats looking at another role''s walsender), wal_status and safe_wal_size (pg_replication_slots), inactive_since (for an inactive slot, the last minute the pg_cron job replicacao_slots_observar saw it active; null when active or when the job has not looked in 5 minutes) and inactive_at_least (true: the slot was already inactive when the job started looking, so it is inactive since inactive_since or earlier). Reads only. In psql: select * from replicacao_saude(); The screen /admin/replicacao and GET /api/transporte/admin/replicacao/saude show it (docs/replicacao.md, "Replication health").';


--
-- Name: replicacao_slots(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_slots(p_prefixo text DEFAULT 'powersync_'::text) RETURNS TABLE(slot_name text, plugin text, slot_type text, active boolean, active_pid integer, restart_lsn pg_lsn, wal_status text)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select s.slot_name::text, s.plugin::text, s.slot_type, s.active, s.active_pid, s.restart_lsn, s.wal_status
    from pg_replication_slots s
   where s.database = current_database() and starts_with(s.slot_name::text, p_prefixo)
   order by s.slot_name;
$$;


--
-- Name: FUNCTION replicacao_slots(p_prefixo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_slots(p_prefixo text) IS 'The replication slots of this database whose name starts with p_prefixo (the sync engine''s, REPLICATOR_SLOT_PREFIX), with whether a client holds them (active, active_pid). Read by the reset steps AGUARDAR_PARADA and AGUARDAR_REPLICACAO; handy in psql: select * from replicacao_slots();';


--
-- Name: replicacao_slots_remover(text, uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_slots_remover(p_prefixo text DEFAULT 'powersync_'::text, p_execucao uuid DEFAULT NULL::uuid) RETURNS text[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_ativo text;
  v_slot text;
  v_removidos text[] := '{}';
begin
  if p_prefixo is null or p_prefixo = '' then
    raise exception 'prefixo de slot vazio: recusado (removeria todos os slots)' using errcode = 'RR400';
  end if;
  select s.slot_name into v_ativo from public.replicacao_slots(p_prefixo) s where s.active limit 1;
  if v_ativo is not null then
    raise exception 'o slot % está ativo: o motor de sincronização ainda o usa; nenhum slot foi removido', v_ativo
      using errcode = 'RR409';
  end if;
  for v_slot in select s.slot_name from public.replicacao_slots(p_prefixo) s where not s.active loop
    perform pg_drop_replication_slot(v_slot);
    v_removidos := v_removidos || v_slot;
  end loop;
  if p_execucao is not null then
    update public.xls_resetar_replicator set slots_removidos = slots_removidos || v_removidos where id = p_execucao;
  end if;
  return v_removidos;
end;
$$;


--
-- Name: FUNCTION replicacao_slots_remover(p_prefixo text, p_execucao uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_slots_remover(p_prefixo text, p_execucao uuid) IS 'Reset step RESET_SLOT, also for psql: drops every inactive replication slot of this database whose name starts with p_prefixo (two can coexist) and returns their names; records them on the execution p_execucao when given. RR409 when one of them is active (nothing is dropped); RR400 for an empty prefix.';


--
-- Name: replicacao_ultimo_nuke_avancar(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.replicacao_ultimo_nuke_avancar() RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_antigo timestamptz;
  v_novo timestamptz;
  v_texto text;
begin
  select valor::timestamptz into v_antigo from public.bi_configuracao where chave = 'ultimo_nuke' for update;
  -- only grows: a clock behind the stored value still moves it forward by a millisecond
  v_novo := greatest(date_trunc('milliseconds', clock_timestamp()),
                     coalesce(v_antigo, '-infinity'::timestamptz) + interval '1 millisecond');
  v_texto := to_char(v_novo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao)
  values ('ultimo_nuke', v_texto, 'string', true,
          'Instante (UTC, ISO-8601) do último reset da replicação. Só cresce; clientes que veem um valor novo limpam os dados locais e sincronizam do zero.')
  on conflict (chave) do update set valor = excluded.valor;
  return v_texto;
end;
$$;


--
-- Name: FUNCTION replicacao_ultimo_nuke_avancar(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.replicacao_ultimo_nuke_avancar() IS 'Advances bi_configuracao.ultimo_nuke (UTC ISO-8601 instant, never goes back) and so NOTIFYs app_config: clients that see a new value clear their local data and sync from zero. The FINALIZAR step of a reset; callable from psql to finish a reset by hand (docs/replicacao.md). Returns the new value.';


--
-- Name: xls_alteracoes(uuid, text, text, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_alteracoes(p_id uuid, p_tabela text DEFAULT NULL::text, p_operacao text DEFAULT NULL::text, p_limite integer DEFAULT 20, p_deslocamento integer DEFAULT 0) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_p record;
begin
  if p_operacao is not null and p_operacao not in ('INSERIDA', 'ALTERADA', 'REMOVIDA') then
    raise exception 'operacao % inválida: INSERIDA, ALTERADA ou REMOVIDA', p_operacao using errcode = 'XL400';
  end if;
  if p_limite < 1 or p_limite > 100 or p_deslocamento < 0 then
    raise exception 'página inválida' using errcode = 'XL400';
  end if;
  select p.id, p.alteracoes_expiradas_em, p.desfeito_em into v_p from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  return jsonb_build_object(
    'total', (select coalesce(sum(coalesce(cardinality(a.linha_ids), 1)), 0) from app.xls_alteracao a
               where a.processamento_id = p_id and (p_tabela is null or a.tabela = p_tabela) and (p_operacao is null or a.operacao = p_operacao)),
    'contagens', (select coalesce(jsonb_object_agg(c.tabela, c.ops), '{}') from (
                    select x.tabela, jsonb_object_agg(x.operacao, x.n) as ops
                      from (select a.tabela, a.operacao, sum(coalesce(cardinality(a.linha_ids), 1)) as n from app.xls_alteracao a where a.processamento_id = p_id group by 1, 2) x
                     group by x.tabela) c),
    'expiradasEm', v_p.alteracoes_expiradas_em,
    'itens', (select coalesce(jsonb_agg(jsonb_build_object('seq', a.seq, 'tabela', a.tabela, 'operacao', a.operacao, 'chave', a.chave,
                                                           'antes', a.antes, 'depois', a.depois) order by a.o), '[]')
                from app.xls_alteracao_itens(p_id, p_tabela, p_operacao, p_limite, p_deslocamento)
                     with ordinality a (seq, tabela, operacao, linha_id, chave, antes, depois, o)));
end;
$$;


--
-- Name: FUNCTION xls_alteracoes(p_id uuid, p_tabela text, p_operacao text, p_limite integer, p_deslocamento integer); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_alteracoes(p_id uuid, p_tabela text, p_operacao text, p_limite integer, p_deslocamento integer) IS 'The change set of one processing, one page: {total (matching the filters), contagens {tabela: {INSERIDA, ALTERADA, REMOVIDA}}, expiradasEm (purged by the retention, else null), itens [{seq, tabela, operacao, chave, antes, depois}] in the order written}. Filters p_tabela, p_operacao (INSERIDA / ALTERADA / REMOVIDA); p_limite 1..100. XL404 unknown processing, XL400 bad filter or page.';


--
-- Name: xls_aprovar_exclusoes(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_aprovar_exclusoes(p_id uuid, p_por text) RETURNS uuid[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_p record;
begin
  if p_por is null or btrim(p_por) = '' then
    raise exception 'informe quem aprova (p_por)' using errcode = 'XL400';
  end if;
  select p.id, p.status, p.exclusao_retida into v_p from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_p.status <> 'ERRO' or not v_p.exclusao_retida then
    raise exception 'esta importação não está retida pela trava de exclusão em massa (status %): não há exclusões a aprovar', v_p.status
      using errcode = 'XL409';
  end if;
  update public.xls_processamento p set exclusoes_aprovadas_em = now(), exclusoes_aprovadas_por = btrim(p_por) where p.id = p_id;
  return public.xls_reprocessar(p_id);
end;
$$;


--
-- Name: FUNCTION xls_aprovar_exclusoes(p_id uuid, p_por text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_aprovar_exclusoes(p_id uuid, p_por text) IS '"Aplicar mesmo assim": a person approves the removals the mass-deletion guard held (the processing ended ERRO with XL428, exclusao_retida) and the processing is reprocessed with the guard lifted for it; records exclusoes_aprovadas_em / exclusoes_aprovadas_por (p_por: e-mail, "api" or the DBA''s text). Returns the ids reprocessed, as xls_reprocessar. XL404 unknown id; XL409 not held by the guard; XL400 p_por empty.';


--
-- Name: xls_backfill_pendentes(integer, uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_backfill_pendentes(p_limite integer DEFAULT 100, p_apos uuid DEFAULT NULL::uuid) RETURNS TABLE(id uuid, checksum text, objeto_chave text, objeto_tamanho_bytes bigint)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select p.id, p.checksum, public.xls_objeto_chave(p.checksum, p.recebido_em), octet_length(p.arquivo_bytes)::bigint
    from public.xls_processamento p
   where p.objeto_chave is null and p.arquivo_bytes is not null
     and (p_apos is null or p.id > p_apos)
   order by p.id
   limit p_limite;
$$;


--
-- Name: FUNCTION xls_backfill_pendentes(p_limite integer, p_apos uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_backfill_pendentes(p_limite integer, p_apos uuid) IS 'Legacy processings whose original lives only in arquivo_bytes, with the content-addressed key they get in the object store; keyset-paged by id.';


--
-- Name: xls_backfill_registrar(uuid, text, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_backfill_registrar(p_id uuid, p_bucket text, p_limpar_coluna boolean) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  update public.xls_processamento p
     set objeto_bucket = p_bucket,
         objeto_chave = public.xls_objeto_chave(p.checksum, p.recebido_em),
         objeto_tamanho_bytes = coalesce(p.objeto_tamanho_bytes, octet_length(p.arquivo_bytes)),
         arquivo_bytes = case when p_limpar_coluna then null else p.arquivo_bytes end
   where p.id = p_id and p.objeto_chave is null and p.arquivo_bytes is not null;
  return found;
end;
$$;


--
-- Name: FUNCTION xls_backfill_registrar(p_id uuid, p_bucket text, p_limpar_coluna boolean); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_backfill_registrar(p_id uuid, p_bucket text, p_limpar_coluna boolean) IS 'Records that the original of a legacy processing was copied to the object store (call after the put succeeded). With p_limpar_coluna (storage mode OBJSTORE) the column is emptied. Idempotent: false when already done.';


--
-- Name: xls_concluir(uuid, text, jsonb, jsonb, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb, p_execucao integer DEFAULT NULL::integer) RETURNS SETOF app.xls_desfecho
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_avisos jsonb := app.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := app.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  update public.xls_processamento p
     set status = 'SUCESSO', finalizado_em = now(), erro_mensagem = null, erro_codigo = null, alarmar = false, fk_retentar = false,
         falhas_transitorias = 0, retentar_em = null,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
     and (p_execucao is null or p.execucoes = p_execucao)
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'SUCESSO', p_execucao);
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'SUCESSO'::text, false, null::text, v_fechado, v_ids;
end;
$$;


--
-- Name: FUNCTION xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb, p_avisos jsonb, p_execucao integer); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb, p_avisos jsonb, p_execucao integer) IS 'Transition PROCESSANDO -> SUCESSO by the worker that holds it; call it in the merge transaction, so data and status commit together. Appends p_linhas_rejeitadas and p_avisos (beyond those the merge recorded). When it is its batch''s master report (RELATORIO18), the batch closes and items waiting for it by a transient FK failure are reprocessed (listed in reprocessados). XL404 unknown id, XL409 not PROCESSANDO by this worker, or p_execucao (the fencing token: execucoes returned by xls_iniciar; the service always passes it) not the current run, XL400 malformed lists.';


--
-- Name: xls_conjunto_abrir(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_conjunto_abrir(p_arquivo text, p_uploader_id text DEFAULT NULL::text, p_uploader_nome text DEFAULT NULL::text) RETURNS uuid
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  insert into public.xls_conjunto (arquivo, uploader_id, uploader_nome)
  values (nullif(btrim(p_arquivo), ''), p_uploader_id, p_uploader_nome)
  returning id;
$$;


--
-- Name: FUNCTION xls_conjunto_abrir(p_arquivo text, p_uploader_id text, p_uploader_nome text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_conjunto_abrir(p_arquivo text, p_uploader_id text, p_uploader_nome text) IS 'Creates a batch for an uploaded .zip and returns its id. Then call xls_receber / xls_receber_ignorado once per entry (in zip order) and xls_conjunto_recebido, all in the same transaction.';


--
-- Name: xls_conjunto_avaliar(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_conjunto_avaliar(p_conjunto_id uuid) RETURNS TABLE(fechado boolean, reprocessados uuid[])
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_fechado_em timestamptz;
  v_motivo text;
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  select l.fechado_em into v_fechado_em from public.xls_conjunto l where l.id = p_conjunto_id for update;
  if not found or v_fechado_em is not null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  select format('relatório mestre concluído: processamento %s', p.id) into v_motivo
    from public.xls_processamento p
   where p.conjunto_id = p_conjunto_id and p.status = 'SUCESSO' and public.xls_tipo_mestre(p.tipo)
   order by p.finalizado_em limit 1;
  if v_motivo is null and not exists (select from public.xls_processamento p
                                       where p.conjunto_id = p_conjunto_id and p.status in ('PENDENTE', 'PROCESSANDO')) then
    v_motivo := 'todos os processamentos do conjunto terminaram';
  end if;
  if v_motivo is null then
    return query select false, '{}'::uuid[];
    return;
  end if;
  update public.xls_conjunto set fechado_em = now(), fechamento_motivo = v_motivo where id = p_conjunto_id;
  for v_id in
    select p.id from public.xls_processamento p
     where p.conjunto_id = p_conjunto_id and p.status = 'ERRO' and p.fk_retentar
     order by p.id for update
  loop
    if app.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return query select true, v_ids;
end;
$$;


--
-- Name: FUNCTION xls_conjunto_avaliar(p_conjunto_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_conjunto_avaliar(p_conjunto_id uuid) IS 'Closes an open batch when its master report (RELATORIO18) is in SUCESSO, or when none of its processings is PENDENTE or PROCESSANDO any more; on closing, every item in ERRO waiting for it (fk_retentar: first transient FK failure) is reprocessed once. Returns whether this call closed the batch and the ids reprocessed. Called by the transitions; harmless to call by hand.';


--
-- Name: xls_conjunto_recebido(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_conjunto_recebido(p_conjunto_id uuid) RETURNS TABLE(ordem integer, arquivo text, processamento_id uuid, status text, motivo text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
begin
  perform 1 from public.xls_conjunto l where l.id = p_conjunto_id for update;
  if not found then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  -- a batch whose entries generated no processing has nothing to wait for
  update public.xls_conjunto l
     set fechado_em = now(), fechamento_motivo = 'nenhuma entrada gerou processamento'
   where l.id = p_conjunto_id and l.fechado_em is null
     and not exists (select from public.xls_processamento p where p.conjunto_id = l.id);
  return query
    select i.ordem, i.arquivo, i.processamento_id, i.status, i.motivo
      from public.xls_conjunto_item i where i.conjunto_id = p_conjunto_id order by i.ordem;
end;
$$;


--
-- Name: FUNCTION xls_conjunto_recebido(p_conjunto_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_conjunto_recebido(p_conjunto_id uuid) IS 'Ends the receipt of a batch (call last, in the receipt transaction): closes it at once when no entry generated a processing, and returns its entries in zip order (the receipt response: total = number of entries; 202 when any is ENFILEIRADO or REPROCESSANDO). XL404 unknown batch.';


--
-- Name: xls_definir_tipo(uuid, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_definir_tipo(p_id uuid, p_worker text, p_tipo text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  update public.xls_processamento p set tipo = p_tipo
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'tipo ' || p_tipo);
  end if;
end;
$$;


--
-- Name: FUNCTION xls_definir_tipo(p_id uuid, p_worker text, p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_definir_tipo(p_id uuid, p_worker text, p_tipo text) IS 'Records the detected type of a processing held (PROCESSANDO) by p_worker; call it in its own transaction right after detection, so the type survives a failed merge. XL400 unknown type, XL404 unknown id, XL409 not PROCESSANDO by this worker.';


--
-- Name: xls_desfazer(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_desfazer(p_id uuid, p_por text) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- Undo of one processing from its change set (app.xls_alteracao): per bi_* row it touched,
-- the earliest record says how the row was before it — absent (INSERIDA first: the row is
-- removed) or the stored row (antes: restored, or put back when it was removed). One
-- transaction, under the merge lock of every table touched; refused whole when a later
-- processing (not undone) touched any of the same keys.
declare
  v_p record;
  v_tabelas text[];
  v_conflitos jsonb;
  t record;
  v_chave text;
  v_cols text;
  v_n integer;
  v_rem integer;
  v_rest integer;
  v_rein integer;
  v_res jsonb := '{}';
begin
  if p_por is null or btrim(p_por) = '' then
    raise exception 'informe quem desfaz (p_por)' using errcode = 'XL400';
  end if;
  select p.* into v_p from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_p.desfeito_em is not null then
    raise exception 'esta importação já foi desfeita em % por %', to_char(v_p.desfeito_em at time zone 'America/Sao_Paulo', 'DD/MM/YYYY HH24:MI'), v_p.desfeito_por
      using errcode = 'XL409', detail = 'ja_desfeito';
  end if;
  if v_p.alteracoes_expiradas_em is not null then
    raise exception 'o registro de alterações desta importação foi apagado em % (retenção de % dias): não é possível desfazê-la; reenvie o arquivo anterior',
      to_char(v_p.alteracoes_expiradas_em at time zone 'America/Sao_Paulo', 'DD/MM/YYYY'),
      coalesce((select c.valor from public.bi_configuracao c where c.chave = 'xls_alteracoes_retencao_dias'), '180')
      using errcode = 'XL409', detail = 'expirado';
  end if;
  if v_p.status in ('PENDENTE', 'PROCESSANDO') then
    raise exception 'a importação ainda está em %: espere terminar', v_p.status using errcode = 'XL409', detail = 'em_andamento';
  end if;
  select array_agg(distinct a.tabela order by a.tabela) into v_tabelas from app.xls_alteracao a where a.processamento_id = p_id;
  if v_tabelas is null then
    raise exception '%', case when v_p.status = 'SUCESSO' then 'esta importação não alterou nenhuma linha: nada a desfazer'
                              else format('esta importação terminou em %s sem gravar nada: nada a desfazer', v_p.status) end
      using errcode = 'XL409', detail = 'sem_alteracoes';
  end if;
  -- the same lock as the merges of these tables: no merge writes them meanwhile
  perform app.xls_travar(v_tabelas);

  select jsonb_agg(jsonb_build_object('id', c.id, 'arquivo', c.arquivo, 'tipo', c.tipo, 'finalizadoEm', c.finalizado_em, 'linhas', c.n)
                   order by c.primeira)
    into v_conflitos
    from (select p2.id, p2.arquivo, p2.tipo, p2.finalizado_em, count(distinct (b.tabela, b.linha)) as n, min(b.seq) as primeira
            from (-- each key this processing changed or removed, probed once in the key-hash index
                  select y.processamento_id, y.seq, a.tabela, a.chave::text as linha
                    from (select x.tabela, x.chave, min(x.seq) as seq from app.xls_alteracao x
                           where x.processamento_id = p_id and x.chave is not null group by x.tabela, x.chave) a
                   cross join lateral (select y.processamento_id, y.seq from app.xls_alteracao y
                                        where jsonb_hash_extended(y.chave, 0) = jsonb_hash_extended(a.chave, 0) and y.tabela = a.tabela and y.chave = a.chave
                                          and y.seq > a.seq and y.processamento_id <> p_id) y
                  union all
                  -- each row this processing inserted, probed once in the id index
                  select y.processamento_id, y.seq, a.tabela, u.id::text
                    from app.xls_alteracao a
                   cross join lateral unnest(a.linha_ids) u (id)
                   cross join lateral (select y.processamento_id, y.seq from app.xls_alteracao y
                                        where y.linha_id = u.id and y.tabela = a.tabela and y.seq > a.seq and y.processamento_id <> p_id) y
                   where a.processamento_id = p_id and a.operacao = 'INSERIDA') b
            join public.xls_processamento p2 on p2.id = b.processamento_id and p2.desfeito_em is null
           group by p2.id, p2.arquivo, p2.tipo, p2.finalizado_em) c;
  if v_conflitos is null then
    -- a row this processing removed that a later one inserted again (under another id): its
    -- insertion holds ids only, so the stored row of each removed key is looked up instead
    for t in select distinct a.tabela from app.xls_alteracao a where a.processamento_id = p_id and a.operacao = 'REMOVIDA' loop
      execute format($q$
        select jsonb_agg(jsonb_build_object('id', p2.id, 'arquivo', p2.arquivo, 'tipo', p2.tipo, 'finalizadoEm', p2.finalizado_em, 'linhas', c.n) order by c.primeira)
          from (select i.processamento_id, count(*) as n, min(i.seq) as primeira
                  from app.xls_alteracao a
                 cross join lateral jsonb_populate_record(null::public.%1$I, a.chave) r
                  join public.%1$I t on %2$s and t.id <> a.linha_id
                 cross join lateral (select i.processamento_id, i.seq from app.xls_alteracao i
                                      where i.tabela = a.tabela and i.operacao = 'INSERIDA' and i.seq > a.seq and i.processamento_id <> $1
                                        and i.linha_ids @> array[t.id]
                                      order by i.seq limit 1) i
                 where a.processamento_id = $1 and a.tabela = %3$L and a.operacao = 'REMOVIDA'
                 group by i.processamento_id) c
          join public.xls_processamento p2 on p2.id = c.processamento_id and p2.desfeito_em is null$q$,
        t.tabela, app.xls_chave_igual_sql(format('public.%I', t.tabela)::regclass, 't', 'r'), t.tabela)
        into v_conflitos using p_id;
      exit when v_conflitos is not null;
    end loop;
  end if;
  if v_conflitos is not null then
    raise exception 'importações posteriores alteraram as mesmas linhas: desfaça-as primeiro (%)',
      (select string_agg(format('%s de %s', x ->> 'arquivo', to_char((x ->> 'finalizadoEm')::timestamptz at time zone 'America/Sao_Paulo', 'DD/MM/YYYY HH24:MI')), ', ')
         from jsonb_array_elements(v_conflitos) x)
      using errcode = 'XL409', detail = jsonb_build_object('motivo', 'conflito', 'conflitos', v_conflitos)::text,
            hint = 'desfaça primeiro as importações posteriores listadas';
  end if;

  -- the undo itself is not a change set, and keeps atualizado_em as it was
  perform set_config('bi.xls_processamento', '', true);
  perform set_config('bi.xls_desfazendo', 'on', true);
  create temp table xls_desfazer_linha on commit drop as
  select distinct on (x.tabela, x.linha_id) x.tabela, x.linha_id, x.operacao, x.antes
    from (select a.tabela, a.linha_id, a.operacao, a.antes, a.seq from app.xls_alteracao a where a.processamento_id = p_id and a.linha_id is not null
          union all
          select a.tabela, u.id, a.operacao, null, a.seq from app.xls_alteracao a cross join lateral unnest(a.linha_ids) u (id)
           where a.processamento_id = p_id and a.operacao = 'INSERIDA') x
   order by x.tabela, x.linha_id, x.seq;
  create index on pg_temp.xls_desfazer_linha (tabela, linha_id);
  analyze pg_temp.xls_desfazer_linha;

  -- removals child tables first, then restorations and puts back parents first (foreign keys)
  for t in select x.tabela, x.nivel from app.xls_tabelas_nivel(v_tabelas) x order by x.nivel desc, x.tabela loop
    -- the change set keeps only the ids of inserted rows: their values are stored now, before the
    -- rows go (the next change's antes, else the row as stored, as app.xls_alteracao_depois reads)
    execute format($q$
      update app.xls_alteracao a
         set depois = (select jsonb_agg(coalesce((select b.antes from app.xls_alteracao b
                                                   where b.linha_id = u.id and b.tabela = a.tabela and b.seq > a.seq
                                                   order by b.seq limit 1), to_jsonb(t)) order by u.n)
                         from unnest(a.linha_ids) with ordinality u (id, n)
                         left join public.%I t on t.id = u.id)
       where a.processamento_id = $1 and a.tabela = %L and a.operacao = 'INSERIDA' and a.depois is null$q$, t.tabela, t.tabela)
      using p_id;
    execute format('delete from public.%I t using pg_temp.xls_desfazer_linha d where d.tabela = %L and d.operacao = ''INSERIDA'' and t.id = d.linha_id', t.tabela, t.tabela);
    get diagnostics v_rem = row_count;
    v_res := v_res || jsonb_build_object(t.tabela, jsonb_build_object('removidas', v_rem));
  end loop;
  for t in select x.tabela, x.nivel from app.xls_tabelas_nivel(v_tabelas) x order by x.nivel, x.tabela loop
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into v_cols
      from pg_catalog.pg_attribute a
     where a.attrelid = format('public.%I', t.tabela)::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' and a.attname <> 'id';
    execute format($q$
      update public.%1$I t set (%2$s) = (select %2$s from jsonb_populate_record(null::public.%1$I, d.antes))
        from pg_temp.xls_desfazer_linha d where d.tabela = %3$L and d.operacao <> 'INSERIDA' and t.id = d.linha_id$q$,
      t.tabela, v_cols, t.tabela);
    get diagnostics v_rest = row_count;
    execute format($q$
      insert into public.%1$I (id, %2$s)
      select r.id, %3$s
        from pg_temp.xls_desfazer_linha d cross join lateral jsonb_populate_record(null::public.%1$I, d.antes) r
       where d.tabela = %4$L and d.operacao <> 'INSERIDA' and not exists (select from public.%1$I t where t.id = d.linha_id)
       order by r.id$q$,
      t.tabela, v_cols, (select string_agg('r.' || c, ', ') from unnest(string_to_array(v_cols, ', ')) c), t.tabela);
    get diagnostics v_rein = row_count;
    v_res := jsonb_set(v_res, array[t.tabela], coalesce(v_res -> t.tabela, '{}') || jsonb_build_object('restauradas', v_rest, 'reinseridas', v_rein));
  end loop;
  perform set_config('bi.xls_desfazendo', '', true);

  update public.xls_processamento p set desfeito_em = now(), desfeito_por = btrim(p_por) where p.id = p_id;
  return jsonb_build_object('id', p_id, 'desfeitoEm', now(), 'desfeitoPor', btrim(p_por), 'tabelas', v_res);
end;
$_$;


--
-- Name: FUNCTION xls_desfazer(p_id uuid, p_por text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_desfazer(p_id uuid, p_por text) IS 'Undoes one spreadsheet processing from its change set (app.xls_alteracao), in the caller''s transaction and under the merge lock of the tables it touched: rows it inserted are removed, rows it rewrote get their stored values back (atualizado_em included), rows it removed are put back with their ids — every bi_* row exactly as before the processing, derived state included (FLUXO''s atual). Marks desfeito_em / desfeito_por (p_por: e-mail, "api" or the DBA''s text); the status stays. Errors (XL409, detail says which): ja_desfeito, expirado (purged by the retention), em_andamento, sem_alteracoes, conflito (a later processing not undone touched the same keys: the message names them, the detail is the JSON object {motivo: conflito, conflitos: [their list]} — undo those first; docs/error-codes.md). XL404 unknown id; XL400 p_por empty. Returns {id, desfeitoEm, desfeitoPor, tabelas: {tabela: {removidas, restauradas, reinseridas}}}.';


--
-- Name: xls_falha_explicar(text, text, text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_falha_explicar(p_status text, p_motivo text, p_codigo text, p_rejeitadas jsonb) RETURNS TABLE(tipo text, resumo text, proximo_passo text)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
declare
  v_linhas integer[];
  v_lista text;
  v_campo text;
  v_valores text;
  v_mestre text;
  v_n integer;
begin
  if p_status = 'IGNORADO' then
    return query select 'ignorado'::text, 'Tipo de planilha não reconhecido: nada foi gravado.'::text,
      'Confira se o arquivo é uma das planilhas aceitas e se o cabeçalho não foi alterado; depois envie de novo.'::text;
    return;
  end if;
  if p_status is distinct from 'ERRO' then
    return;
  end if;
  select coalesce(t.nome, t.tipo) into v_mestre from app.xls_tipo t where t.mestre order by t.ordem limit 1;

  -- a code the file references is not registered yet (the master report registers it)
  if p_codigo in ('XL424', '23503') or p_motivo ~ ' não cadastrado em ' then
    v_campo := coalesce(substring(p_motivo from '^(.+?) não cadastrado em '), 'código');
    v_valores := substring(p_motivo from ' não cadastrado em [^:]+: (.*?)( \(falha transitória.*)?$');
    return query select 'cadastro'::text,
      format('Falta cadastro: %s %s não está cadastrado.', v_campo, coalesce(v_valores, '')),
      case when p_motivo ~ 'falha transitória: nova tentativa automática'
           then format('Nada a fazer agora: o arquivo é refeito sozinho quando o %s do mesmo envio terminar.', coalesce(v_mestre, 'relatório mestre'))
           else format('Envie primeiro o %s que cadastra o %s %s e depois clique em "Reprocessar este".', coalesce(v_mestre, 'relatório mestre'), v_campo,
                       coalesce(substring(v_valores from '^([^ ,()]+)'), '')) end;
    return;
  end if;

  -- invalid rows: the file is refused as a whole
  select array_agg(distinct (e ->> 'linha')::integer order by (e ->> 'linha')::integer) into v_linhas
    from jsonb_array_elements(case when jsonb_typeof(p_rejeitadas) = 'array' then p_rejeitadas else '[]' end) e
   where jsonb_typeof(e -> 'linha') = 'number';
  if v_linhas is null and p_motivo ~ 'linha\(s\) inválida\(s\)' then
    select array_agg(distinct m[1]::integer order by m[1]::integer) into v_linhas from regexp_matches(p_motivo, 'linha ([0-9]{1,9}):', 'g') m;
  end if;
  if v_linhas is not null then
    v_n := cardinality(v_linhas);
    v_lista := case when v_n = 1 then v_linhas[1]::text
                    when v_n <= 10 then array_to_string(v_linhas[1:v_n - 1], ', ') || ' e ' || v_linhas[v_n]
                    else array_to_string(v_linhas[1:10], ', ') || format(' e mais %s', v_n - 10) end;
    return query select 'linhas'::text,
      format('%s inválida%s: nada foi gravado.', case when v_n = 1 then 'Uma linha' else v_n || ' linhas' end, case when v_n = 1 then '' else 's' end),
      format('Corrija %s %s na planilha e envie o arquivo de novo.', case when v_n = 1 then 'a linha' else 'as linhas' end, v_lista);
    return;
  end if;

  -- not a readable spreadsheet (the reader's refusal: damaged zip, not an .xlsx, too big to read)
  if p_codigo = 'XL415' or p_motivo ~* '(formato não suportado|não é uma planilha|leitura da planilha foi interrompida)' then
    return query select 'ilegivel'::text,
      case when p_motivo ~ 'memória esgotada' then 'O arquivo é grande ou malformado demais para ser lido.'
           else 'O arquivo não é uma planilha .xlsx legível.' end,
      'Abra o arquivo no Excel ou no LibreOffice, salve de novo como .xlsx (Pasta de Trabalho do Excel) e envie outra vez.'::text;
    return;
  end if;

  -- content the type's rules refuse (a period, a position date…): the message says what
  if p_codigo = 'XL422' then
    return query select 'conteudo'::text,
      upper(left(split_part(p_motivo, E'\n', 1), 1)) || substr(split_part(p_motivo, E'\n', 1), 2),
      'Corrija a planilha conforme o motivo acima e envie o arquivo de novo.'::text;
    return;
  end if;

  return query select 'tecnica'::text, 'Falha técnica no processamento (não é um problema da planilha).'::text,
    'Clique em "Reprocessar este"; se falhar de novo, avise o suporte com o endereço desta página.'::text;
end;
$_$;


--
-- Name: FUNCTION xls_falha_explicar(p_status text, p_motivo text, p_codigo text, p_rejeitadas jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_falha_explicar(p_status text, p_motivo text, p_codigo text, p_rejeitadas jsonb) IS 'How a failed processing is explained to staff (screens): its kind, a one-line summary and the next step in one sentence. Kinds: cadastro (a code the file references is not registered: send the master report that registers it first, or wait when the batch retries by itself), linhas (invalid rows: fix rows 6 and 10 and resend), ilegivel (not a readable .xlsx: save it again from Excel or LibreOffice), conteudo (XL422: the message says what), tecnica (anything else: reprocess, then call support), ignorado (status IGNORADO: type not recognised). No row for other statuses. Arguments: status, erro_mensagem, erro_codigo, linhas_rejeitadas of xls_processamento.';


--
-- Name: xls_falhar(uuid, text, text, text, jsonb, jsonb, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text DEFAULT NULL::text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb, p_execucao integer DEFAULT NULL::integer) RETURNS SETOF app.xls_desfecho
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_fk boolean := coalesce(p_sqlstate in ('XL424', '23503'), false);
  v_transitoria boolean := coalesce(p_sqlstate = 'XL503', false);
  v_transitorias integer;
  v_retentar timestamptz;
  v_avisos jsonb := app.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := app.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_codigo text := nullif(btrim(p_sqlstate), '');
  v_conjunto uuid;
  v_falhas integer;
  v_fechado_em timestamptz;
  v_alarmar boolean := true;
  v_motivo text := p_motivo;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
  v_mais uuid[];
  v_status text;
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  -- the refused rows stay on the processing (the failed transaction took the merge's with it):
  -- the caller's (the reader's invalid rows) and those the message names (a missing registration)
  v_rejeitadas := app.xls_rejeitadas_normalizar(v_rejeitadas || app.xls_falha_linhas(p_motivo, v_codigo));
  update public.xls_processamento p
     set status = 'ERRO', finalizado_em = now(), erro_mensagem = p_motivo, erro_codigo = v_codigo, alarmar = true, fk_retentar = false,
         exclusao_retida = coalesce(p_sqlstate = 'XL428', false),
         fk_falhas = p.fk_falhas + case when v_fk then 1 else 0 end,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
     and (p_execucao is null or p.execucoes = p_execucao)
  returning p.conjunto_id, p.fk_falhas into v_conjunto, v_falhas;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'ERRO', p_execucao);
  end if;

  -- Transient failure (XL503: the object store or the database unreachable): silent, and retried by
  -- itself after 15 s x 2^(n-1) (at most 10 min; xls_recuperar requeues it when due), up
  -- to 5 times in a row; the sixth alarms.
  if v_transitoria then
    update public.xls_processamento p set falhas_transitorias = p.falhas_transitorias + 1
     where p.id = p_id returning p.falhas_transitorias into v_transitorias;
    if v_transitorias <= 5 then
      v_alarmar := false;
      v_retentar := now() + least(interval '15 seconds' * power(2, v_transitorias - 1), interval '10 minutes');
      v_motivo := format('%s (falha transitória %s de 5: nova tentativa automática em %s s)', p_motivo, v_transitorias,
                         ceil(extract(epoch from v_retentar - now()))::int);
    else
      v_motivo := format('%s (falha transitória repetida %s vezes: sem nova tentativa automática; use Reprocessar)', p_motivo, v_transitorias);
    end if;
    update public.xls_processamento p set alarmar = v_alarmar, retentar_em = v_retentar, erro_mensagem = v_motivo where p.id = p_id;
  end if;

  -- Transient FK policy: inside a batch, the first failure is silent and retried once
  -- (when the batch closes, or now if it is closed already); the second alarms. A loose
  -- file alarms at once.
  if v_fk and v_conjunto is not null and v_falhas = 1 then
    v_alarmar := false;
    select l.fechado_em into v_fechado_em from public.xls_conjunto l where l.id = v_conjunto for update;
    if v_fechado_em is null then
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática quando o relatório mestre do conjunto for concluído)';
      update public.xls_processamento p set alarmar = false, fk_retentar = true, erro_mensagem = v_motivo where p.id = p_id;
    else
      update public.xls_processamento p set alarmar = false where p.id = p_id;
      perform app.xls_requeue(p_id);
      v_ids := array[p_id];
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática agora)';
    end if;
  end if;

  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_mais from public.xls_conjunto_avaliar(v_conjunto) a;
    v_ids := v_ids || v_mais;
  end if;
  select p.status into v_status from public.xls_processamento p where p.id = p_id;
  return query select p_id, v_status, v_alarmar, v_motivo, v_fechado, v_ids;
end;
$$;


--
-- Name: FUNCTION xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text, p_linhas_rejeitadas jsonb, p_avisos jsonb, p_execucao integer); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text, p_linhas_rejeitadas jsonb, p_avisos jsonb, p_execucao integer) IS 'Transition PROCESSANDO -> ERRO by the worker that holds it, in its own transaction after the failed one rolled back. p_sqlstate: the SQLSTATE of the failure, if any; XL503 is a transient failure (the object store unreachable while reading the original, or the database during the processing): silent (alarmar false), erro_mensagem says so, and the processing is requeued by xls_recuperar after 15 s x 2^(n-1) (at most 10 min; retentar_em), up to 5 in a row, the sixth alarms. XL424 (or 23503) is a transient foreign-key failure: inside a batch the first one is silent (alarmar false) and the item is reprocessed once when the batch closes, or at once (status PENDENTE in the result) when it is closed already; the second alarms; a loose file alarms at once. Every other failure alarms. The refused rows are kept: p_linhas_rejeitadas (the reader''s invalid rows) and the rows a missing-registration message names (app.xls_falha_linhas); p_sqlstate is kept in erro_codigo (the edge passes XL415 for a file that is not a readable spreadsheet); XL428 (the mass-deletion guard) marks exclusao_retida. XL400 without motivo or malformed lists, XL404 unknown id, XL409 not PROCESSANDO by this worker or p_execucao (the fencing token: execucoes returned by xls_iniciar) not the current run.';


--
-- Name: xls_fluxo_resumo(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_fluxo_resumo(p_processamento_id uuid) RETURNS TABLE(tipo text, posicao date, atual boolean, titulos integer, total numeric, titulos_vencidos integer, vencido numeric)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_tipo text;
  v_pos date;
begin
  select p.tipo, (p.metricas #>> '{fluxo,posicao}')::date into v_tipo, v_pos
    from public.xls_processamento p where p.id = p_processamento_id;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_tipo is distinct from 'FLUXO_PAGAR_RECEBER' then
    raise exception 'processamento % não é um FLUXO_PAGAR_RECEBER (tipo %)', p_processamento_id, coalesce(v_tipo, 'nenhum') using errcode = 'XL422';
  end if;
  if v_pos is null then
    return; -- not imported (refused, or not processed yet)
  end if;
  return query
  select k.tipo::text, v_pos,
         coalesce(bool_or(t.atual), false),
         count(t.id)::integer,
         coalesce(sum(t.saldo), 0),
         (count(t.id) filter (where t.vencimento < v_pos and t.saldo > 0))::integer,
         coalesce(sum(t.saldo) filter (where t.vencimento < v_pos and t.saldo > 0), 0)
    from (values ('PAGAR'), ('RECEBER')) k (tipo)
    left join public.bi_titulo t on t.posicao = v_pos and t.tipo = k.tipo
   group by k.tipo
   order by k.tipo;
end;
$$;


--
-- Name: FUNCTION xls_fluxo_resumo(p_processamento_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_fluxo_resumo(p_processamento_id uuid) IS 'For the import page: payable and receivable totals of the position a FLUXO_PAGAR_RECEBER processing imported, one row per tipo (PAGAR, RECEBER): titles, total = sum of saldo, and the overdue part (vencimento before the position date and saldo > 0: titulos_vencidos, vencido); atual says whether that position is still the current one. No rows when the processing wrote nothing (refused or not processed). XL404 unknown processing, XL422 not a FLUXO_PAGAR_RECEBER.';


--
-- Name: xls_ignorar(uuid, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_ignorar(p_id uuid, p_worker text, p_motivo text) RETURNS SETOF app.xls_desfecho
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  update public.xls_processamento p
     set status = 'IGNORADO', finalizado_em = now(), erro_mensagem = p_motivo, alarmar = false, fk_retentar = false
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'IGNORADO');
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'IGNORADO'::text, false, p_motivo, v_fechado, v_ids;
end;
$$;


--
-- Name: FUNCTION xls_ignorar(p_id uuid, p_worker text, p_motivo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_ignorar(p_id uuid, p_worker text, p_motivo text) IS 'Transition PROCESSANDO -> IGNORADO (a valid xlsx of no known type; motivo ''tipo não reconhecido''). A resend of the same file reprocesses it. XL400 without motivo, XL404 unknown id, XL409 not PROCESSANDO by this worker.';


--
-- Name: xls_iniciar(uuid, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_iniciar(p_id uuid, p_worker text) RETURNS TABLE(id uuid, tipo text, arquivo text, checksum text, recebido_em timestamp with time zone, conjunto_id uuid, objeto_bucket text, objeto_chave text, objeto_tamanho_bytes bigint, tem_arquivo_bytes boolean, log_arquivo text, execucoes integer)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
begin
  if nullif(btrim(p_worker), '') is null then
    raise exception 'worker ausente' using errcode = 'XL400';
  end if;
  return query
    with claimed as (
      update public.xls_processamento p
         set status = 'PROCESSANDO', worker = p_worker, iniciado_em = now(), finalizado_em = null,
             execucoes = p.execucoes + 1, alarmar = false
       where p.id = p_id and p.status = 'PENDENTE'
      returning p.id, p.tipo, p.arquivo, p.checksum, p.recebido_em, p.conjunto_id, p.objeto_bucket, p.objeto_chave,
                p.objeto_tamanho_bytes, p.arquivo_bytes is not null, p.log_arquivo, p.execucoes)
    select * from claimed;
  if not found and not exists (select from public.xls_processamento p where p.id = p_id) then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
end;
$$;


--
-- Name: FUNCTION xls_iniciar(p_id uuid, p_worker text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_iniciar(p_id uuid, p_worker text) IS 'Transition PENDENTE -> PROCESSANDO, called by the job handler with its worker id (app.worker). Returns the processing (without bytes: read arquivo_bytes apart when tem_arquivo_bytes and the storage mode reads the database), or no row when it is not PENDENTE (a stale or duplicate job: nothing to do). XL404 unknown id.';


--
-- Name: xls_linhagem(text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_linhagem(p_tabela text, p_chave jsonb) RETURNS TABLE(seq bigint, processamento_id uuid, arquivo text, tipo text, operacao text, finalizado_em timestamp with time zone, desfeito_em timestamp with time zone, antes jsonb, depois jsonb)
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
-- The changes and removals of a key are found by the key index. The insertions are one row per
-- statement holding ids only: each id the key had (the stored row's, and those of the rows
-- changed or removed) is looked for in the insertions of the processings that were running when
-- the row was inserted (its atualizado_em as inserted), else in every earlier insertion; an
-- insertion the undo took back is found in the values it stored. Read-only (a standby answers it).
#variable_conflict use_column
declare
  v_rel regclass := format('public.%I', p_tabela)::regclass;
  v_on text := app.xls_chave_igual_sql(v_rel, 't', 'r');
  v_itens jsonb;
  v_atual jsonb;
  i record;
  v_ins record;
begin
  -- the changes and removals of the key, and the insertions the undo took back (their rows are
  -- gone, their values stored in the change set)
  select coalesce(jsonb_agg(x), '[]') into v_itens
    from (select a.seq, a.processamento_id, a.operacao, a.linha_id, a.antes, a.depois
            from app.xls_alteracao a
           where jsonb_hash_extended(a.chave, 0) = jsonb_hash_extended(p_chave, 0) and a.tabela = p_tabela and a.chave = p_chave
          union all
          select a.seq, a.processamento_id, 'INSERIDA', a.linha_ids[e.n], null, e.v
            from app.xls_alteracao a
           cross join lateral jsonb_array_elements(a.depois) with ordinality e (v, n)
           where a.operacao = 'INSERIDA' and a.tabela = p_tabela and a.depois is not null
             and a.depois @> jsonb_build_array(p_chave) and e.v @> p_chave) x;

  -- the row stored now under this key (the natural-key index)
  if v_on is not null then
    execute format('select to_jsonb(t) from public.%I t, jsonb_populate_record(null::public.%I, $1) r where %s', p_tabela, p_tabela, v_on)
      into v_atual using p_chave;
  end if;

  -- each id: its first known version (the earliest antes, else the stored row) and where it was inserted
  for i in
    select x.linha_id,
           coalesce((select y ->> 'antes' from jsonb_array_elements(v_itens) y where (y ->> 'linha_id')::uuid = x.linha_id
                      order by (y ->> 'seq')::bigint limit 1)::jsonb, v_atual) as primeira,
           coalesce((select min((y ->> 'seq')::bigint) from jsonb_array_elements(v_itens) y where (y ->> 'linha_id')::uuid = x.linha_id),
                    9223372036854775807) as antes_de
      from (select distinct (y ->> 'linha_id')::uuid as linha_id from jsonb_array_elements(v_itens) y
            union select (v_atual ->> 'id')::uuid where v_atual is not null) x
     where not exists (select from jsonb_array_elements(v_itens) y
                        where (y ->> 'linha_id')::uuid = x.linha_id and y ->> 'operacao' = 'INSERIDA')
  loop
    select a.seq, a.processamento_id, u.n into v_ins
      from (select p.id from public.xls_processamento p
             where p.recebido_em between (i.primeira ->> 'atualizado_em')::timestamptz - interval '2 days' and (i.primeira ->> 'atualizado_em')::timestamptz
               and p.iniciado_em <= (i.primeira ->> 'atualizado_em')::timestamptz
               and coalesce(p.finalizado_em, 'infinity') >= (i.primeira ->> 'atualizado_em')::timestamptz) c
      join app.xls_alteracao a on a.processamento_id = c.id and a.operacao = 'INSERIDA' and a.tabela = p_tabela and a.seq < i.antes_de
      cross join lateral (select u.n from unnest(a.linha_ids) with ordinality u (id, n) where u.id = i.linha_id) u
     limit 1;
    if v_ins.seq is null then
      select a.seq, a.processamento_id, u.n into v_ins
        from app.xls_alteracao a
        cross join lateral (select u.n from unnest(a.linha_ids) with ordinality u (id, n) where u.id = i.linha_id) u
       where a.tabela = p_tabela and a.operacao = 'INSERIDA' and a.seq < i.antes_de
       order by a.seq desc
       limit 1;
    end if;
    if v_ins.seq is not null then
      v_itens := v_itens || jsonb_build_array(jsonb_build_object(
        'seq', v_ins.seq, 'processamento_id', v_ins.processamento_id, 'operacao', 'INSERIDA', 'linha_id', i.linha_id, 'antes', null,
        'depois', coalesce((select a.depois -> (v_ins.n::integer - 1) from app.xls_alteracao a
                             where a.processamento_id = v_ins.processamento_id and a.seq = v_ins.seq), i.primeira)));
    end if;
  end loop;

  return query
    select a.seq, a.processamento_id, p.arquivo, p.tipo, a.operacao, p.finalizado_em, p.desfeito_em, a.antes, a.depois
      from jsonb_to_recordset(v_itens) as a (seq bigint, processamento_id uuid, operacao text, linha_id uuid, antes jsonb, depois jsonb)
      join public.xls_processamento p on p.id = a.processamento_id
     order by a.seq desc;
end;
$_$;


--
-- Name: FUNCTION xls_linhagem(p_tabela text, p_chave jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_linhagem(p_tabela text, p_chave jsonb) IS 'Row history for DBAs: which spreadsheet processings inserted (INSERIDA), changed (ALTERADA) or removed (REMOVIDA) the row of p_tabela whose natural key is p_chave (a JSON object of the key columns, e.g. ''{"codigo": "V001"}''), newest first, with the file, its type, when it finished, whether it was undone, and the row before / after. Example: select * from xls_linhagem(''bi_vendedor'', ''{"codigo": "V001"}''). Only what the change sets still hold (xls_alteracoes_retencao_dias).';


--
-- Name: xls_log_arquivo(uuid, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_log_arquivo(p_id uuid, p_em timestamp with time zone) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || p_id::text || '.log';
$$;


--
-- Name: FUNCTION xls_log_arquivo(p_id uuid, p_em timestamp with time zone); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_log_arquivo(p_id uuid, p_em timestamp with time zone) IS 'Execution-log path of a processing relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log, month of its receipt in America/Sao_Paulo.';


--
-- Name: xls_merge(uuid, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_merge(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_tipo text;
  v_res jsonb;
begin
  v_tipo := app.xls_merge_tipo(p_processamento_id, p_meta);
  -- the type is described in app.xls_alvo: the declarative merge applies its description
  v_res := app.xls_merge_fim(v_tipo, coalesce(p_meta, '{}'));
  update public.xls_processamento p
     set linhas_enviadas = (v_res ->> 'linhas_enviadas')::integer,
         linhas_efetivas = (v_res ->> 'linhas_efetivas')::integer,
         linhas_removidas = (v_res ->> 'linhas_removidas')::integer,
         metricas = v_res -> 'tabelas',
         avisos = v_res -> 'avisos',
         linhas_rejeitadas = v_res -> 'linhas_rejeitadas'
   where p.id = p_processamento_id;
  return v_res;
end;
$$;


--
-- Name: FUNCTION xls_merge(p_processamento_id uuid, p_meta jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_merge(p_processamento_id uuid, p_meta jsonb) IS 'Merge of a PROCESSANDO processing, dispatched by looking its tipo up in app.xls_alvo (the declarative merge: app.xls_merge_chunk / app.xls_merge_fim), from the staging tables filled in this transaction. Records linhas_enviadas, linhas_efetivas, linhas_removidas, metricas, avisos and linhas_rejeitadas on the processing and returns {linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas}. Pass the reader''s row errors in p_meta.linhas_rejeitadas. Errors: XL404, XL409 (not PROCESSANDO / no tipo), XL422 (type without import, invalid period), XL424 (seller missing: transient FK), XL500 (staging not prepared).';


--
-- Name: xls_merge_chunk(uuid, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_merge_chunk(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_tipo text;
begin
  v_tipo := app.xls_merge_tipo(p_processamento_id, p_meta);
  return app.xls_merge_chunk(v_tipo, coalesce(p_meta, '{}'));
end;
$$;


--
-- Name: FUNCTION xls_merge_chunk(p_processamento_id uuid, p_meta jsonb); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_merge_chunk(p_processamento_id uuid, p_meta jsonb) IS 'Optional, while the staging tables are being filled: merges the rows staged so far as one chunk and empties the staging, so the database writes one chunk while the edge reads the next (same transaction, before xls_merge). The type is looked up in app.xls_alvo (the declarative merge, docs/xls-merge.md); p_meta as for xls_merge (RELATORIO18 needs its period; every chunk the same parameters). The end result is the same as one xls_merge of every row; xls_merge then finishes (keys repeated across chunks, the type''s hook, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';


--
-- Name: xls_objeto_chave(text, timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_objeto_chave(p_checksum text, p_em timestamp with time zone DEFAULT now(), p_extensao text DEFAULT 'xlsx'::text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || lower(p_checksum) || '.'
      || case when lower(p_extensao) in ('xlsx', 'xls', 'ods', 'xlsb') then lower(p_extensao) else 'xlsx' end;
$$;


--
-- Name: FUNCTION xls_objeto_chave(p_checksum text, p_em timestamp with time zone, p_extensao text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_objeto_chave(p_checksum text, p_em timestamp with time zone, p_extensao text) IS 'Object-store key of a file: <yyyy>/<mm>/<checksum>.<extensao> (xlsx, xls, ods or xlsb: the format read from its content at receipt; anything else xlsx), month of p_em in America/Sao_Paulo (content-addressed: the same file always gets the same key within a month).';


--
-- Name: xls_progresso(uuid, text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_progresso(p_id uuid, p_worker text, p_linhas integer) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_execucao integer;
begin
  if p_linhas is null or p_linhas < 0 then
    raise exception 'linhas lidas inválidas: %', p_linhas using errcode = 'XL400';
  end if;
  -- no lock on the processing: the merge transaction holds it until its end
  select p.execucoes into v_execucao from public.xls_processamento p
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker;
  if not found then
    return false;
  end if;
  insert into public.xls_processamento_progresso as g (processamento_id, execucao, linhas_lidas, atualizado_em)
  values (p_id, v_execucao, p_linhas, now())
  on conflict (processamento_id) do update
     set linhas_lidas = case when g.execucao = excluded.execucao then greatest(g.linhas_lidas, excluded.linhas_lidas) else excluded.linhas_lidas end,
         execucao = excluded.execucao, atualizado_em = now();
  return true;
end;
$$;


--
-- Name: FUNCTION xls_progresso(p_id uuid, p_worker text, p_linhas integer); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_progresso(p_id uuid, p_worker text, p_linhas integer) IS 'Progress of a running processing: the job reports the rows read so far after each chunk, on its own autocommit connection (the merge transaction is invisible until it commits). Kept per execution; a count never goes back within one. False (nothing recorded) when the processing is not PROCESSANDO by this worker (a late report). XL400 for a negative or null count.';


--
-- Name: xls_receber(text, text, bigint, text, bytea, uuid, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_receber(p_arquivo text, p_checksum text, p_tamanho_bytes bigint, p_objeto_bucket text DEFAULT NULL::text, p_arquivo_bytes bytea DEFAULT NULL::bytea, p_conjunto_id uuid DEFAULT NULL::uuid, p_uploader_id text DEFAULT NULL::text, p_uploader_nome text DEFAULT NULL::text, p_extensao text DEFAULT 'xlsx'::text) RETURNS TABLE(arquivo text, processamento_id uuid, status text, motivo text, objeto_chave text, armazenar_objeto boolean)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  v_checksum text := lower(btrim(p_checksum));
  v_arquivo text := nullif(btrim(p_arquivo), '');
  v_agora timestamptz := now();
  v_id uuid := app.uuid_v7();
  v_existente record;
  v_status text;
  v_motivo text;
  v_chave text;
  v_armazenar boolean := false;
  v_proc uuid;
begin
  if v_arquivo is null then
    raise exception 'nome do arquivo ausente' using errcode = 'XL400';
  end if;
  if v_checksum is null or v_checksum !~ '^[0-9a-f]{64}$' then
    raise exception 'checksum inválido: esperado SHA-256 em hexadecimal (64 dígitos), recebido %', coalesce(p_checksum, 'null')
      using errcode = 'XL400';
  end if;
  if p_tamanho_bytes is null or p_tamanho_bytes < 0 then
    raise exception 'tamanho do arquivo inválido: %', coalesce(p_tamanho_bytes::text, 'null') using errcode = 'XL400';
  end if;
  if p_objeto_bucket is null and p_arquivo_bytes is null then
    raise exception 'o arquivo precisa ser guardado no object store (bucket) ou no banco (arquivo_bytes)' using errcode = 'XL400';
  end if;

  if p_conjunto_id is not null then
    perform 1 from public.xls_conjunto l where l.id = p_conjunto_id;
    if not found then
      raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
    end if;
    if exists (select from public.xls_conjunto l where l.id = p_conjunto_id and l.fechado_em is not null) then
      raise exception 'conjunto % já foi fechado; envie os arquivos num novo conjunto (zip)', p_conjunto_id using errcode = 'XL409';
    end if;
  end if;

  -- Race-free dedup: a concurrent receipt of the same checksum waits on the unique
  -- index until the first transaction ends, then finds its row below.
  insert into public.xls_processamento as p (id, status, arquivo, checksum, recebido_em, conjunto_id,
      objeto_bucket, objeto_chave, objeto_tamanho_bytes, arquivo_bytes, log_arquivo, uploader_id, uploader_nome)
  values (v_id, 'PENDENTE', v_arquivo, v_checksum, v_agora, p_conjunto_id,
      p_objeto_bucket, case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_agora, p_extensao) end,
      p_tamanho_bytes, p_arquivo_bytes, public.xls_log_arquivo(v_id, v_agora), p_uploader_id, p_uploader_nome)
  on conflict (checksum) do nothing
  returning p.id, p.objeto_chave into v_proc, v_chave;

  if v_proc is not null then
    v_status := 'ENFILEIRADO';
    v_armazenar := v_chave is not null;
    perform app.xls_enfileirar(v_proc);
  else
    select p.id, p.status, p.objeto_chave, p.recebido_em into v_existente
      from public.xls_processamento p where p.checksum = v_checksum for update;
    if v_existente.status = 'ERRO' and app.xls_fk_aguardando(v_existente.id) is not null then
      -- it waits for its batch's master report (first transient FK failure): running it now
      -- would fail again and use up its one retry; the batch close reprocesses it
      v_proc := v_existente.id;
      v_chave := v_existente.objeto_chave;
      update public.xls_processamento p
         set arquivo = v_arquivo, uploader_id = p_uploader_id, uploader_nome = p_uploader_nome,
             arquivo_bytes = case when p.arquivo_bytes is null and p.objeto_chave is null then p_arquivo_bytes else p.arquivo_bytes end
       where p.id = v_proc;
      v_status := 'REPROCESSANDO';
      v_motivo := format('mesmo arquivo do processamento %s, que aguarda o relatório mestre do conjunto %s (falha transitória de chave estrangeira): será reprocessado quando ele concluir',
                         v_proc, app.xls_fk_aguardando(v_proc));
    elsif v_existente.status in ('ERRO', 'IGNORADO') then
      v_proc := v_existente.id;
      v_chave := coalesce(v_existente.objeto_chave,
        case when p_objeto_bucket is not null then public.xls_objeto_chave(v_checksum, v_existente.recebido_em, p_extensao) end);
      v_armazenar := v_existente.objeto_chave is null and v_chave is not null;
      update public.xls_processamento p
         set arquivo = v_arquivo, conjunto_id = p_conjunto_id,
             uploader_id = p_uploader_id, uploader_nome = p_uploader_nome,
             fk_falhas = 0,
             objeto_bucket = case when v_armazenar then p_objeto_bucket else p.objeto_bucket end,
             objeto_chave = v_chave,
             objeto_tamanho_bytes = coalesce(p.objeto_tamanho_bytes, p_tamanho_bytes),
             arquivo_bytes = case when p.arquivo_bytes is null then p_arquivo_bytes else p.arquivo_bytes end
       where p.id = v_proc;
      perform app.xls_requeue(v_proc, array['ERRO', 'IGNORADO']);
      v_status := 'REPROCESSANDO';
      v_motivo := format('mesmo arquivo do processamento %s, que estava em %s: reprocessado', v_proc, v_existente.status);
    else
      v_status := 'DUPLICADO';
      v_motivo := format('arquivo já recebido: processamento %s (%s)', v_existente.id, v_existente.status);
      v_chave := null;
      v_proc := null;
    end if;
  end if;

  if p_conjunto_id is not null then
    perform app.xls_conjunto_item_registrar(p_conjunto_id, v_arquivo, v_status, v_proc, v_motivo);
  end if;

  return query select v_arquivo, v_proc, v_status, v_motivo, v_chave, v_armazenar;
end;
$_$;


--
-- Name: FUNCTION xls_receber(p_arquivo text, p_checksum text, p_tamanho_bytes bigint, p_objeto_bucket text, p_arquivo_bytes bytea, p_conjunto_id uuid, p_uploader_id text, p_uploader_nome text, p_extensao text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_receber(p_arquivo text, p_checksum text, p_tamanho_bytes bigint, p_objeto_bucket text, p_arquivo_bytes bytea, p_conjunto_id uuid, p_uploader_id text, p_uploader_nome text, p_extensao text) IS 'Receives one spreadsheet (loose, or an entry of batch p_conjunto_id; p_extensao: its format read from its content, xlsx, xls or ods, the extension of its object key) and decides by checksum: new file -> ENFILEIRADO (processing created, job queued); same checksum in ERRO or IGNORADO -> REPROCESSANDO (that record back to PENDENTE, job queued; but a record in ERRO waiting for its open batch after a first transient FK failure keeps waiting and is reprocessed when the batch closes, app.xls_fk_aguardando); in SUCESSO, PENDENTE or PROCESSANDO -> DUPLICADO (nothing stored, processamento_id null, motivo names the existing id). p_objeto_bucket: the bucket when the storage mode uses the object store (else null); p_arquivo_bytes: the bytes when it uses the database column (else null). Returns objeto_chave and armazenar_objeto: when true, the caller must put the bytes at objeto_chave before committing (rollback on failure: nothing stays). Errors: XL400 bad arguments, XL404 unknown batch, XL409 batch closed.';


--
-- Name: xls_receber_ignorado(uuid, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_receber_ignorado(p_conjunto_id uuid, p_arquivo text, p_motivo text) RETURNS TABLE(arquivo text, processamento_id uuid, status text, motivo text)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_conjunto_id is null then
    raise exception 'entrada ignorada fora de um conjunto: recuse o arquivo avulso na borda' using errcode = 'XL400';
  end if;
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente para a entrada ignorada %', p_arquivo using errcode = 'XL400';
  end if;
  perform app.xls_conjunto_item_registrar(p_conjunto_id, coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), 'IGNORADO', null, p_motivo);
  return query select coalesce(nullif(btrim(p_arquivo), ''), '(sem nome)'), null::uuid, 'IGNORADO'::text, p_motivo;
end;
$$;


--
-- Name: FUNCTION xls_receber_ignorado(p_conjunto_id uuid, p_arquivo text, p_motivo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_receber_ignorado(p_conjunto_id uuid, p_arquivo text, p_motivo text) IS 'Records an entry of a batch that is not an .xlsx (PDF, __MACOSX/, ~$ lock file...) with status IGNORADO and its reason; no processing. XL400 without batch or reason, XL404 unknown batch.';


--
-- Name: xls_recuperar(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_recuperar() RETURNS TABLE(orfaos uuid[], reenfileirados uuid[], conjuntos_fechados uuid[])
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_orfaos uuid[] := '{}';
  v_reenf uuid[] := '{}';
  v_conjuntos uuid[] := '{}';
  v record;
  v_fechado boolean;
  v_ids uuid[];
begin
  -- PROCESSANDO whose worker is dead (or holds no job for it) -> ERRO. Processings of live
  -- replicas are left alone, so one replica's restart never fails another's work.
  for v in
    select p.id, p.worker, p.conjunto_id from public.xls_processamento p
     where p.status = 'PROCESSANDO' and app.xls_orfao(p.id, p.worker)
     order by p.id for update skip locked
  loop
    update public.xls_processamento p
       set status = 'ERRO', finalizado_em = now(), alarmar = true, fk_retentar = false,
           erro_mensagem = format('processamento interrompido: o worker %s parou (queda ou reinício da aplicação); use Reprocessar', v.worker)
     where p.id = v.id;
    v_orfaos := v_orfaos || v.id;
    if v.conjunto_id is not null then
      select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.conjunto_id) a;
      if v_fechado then v_conjuntos := v_conjuntos || v.conjunto_id; end if;
      v_reenf := v_reenf || v_ids;
    end if;
  end loop;

  -- PENDENTE without a queued or running job -> queued again.
  for v in
    select p.id from public.xls_processamento p
     where p.status = 'PENDENTE'
       and not exists (select from app.job j
                        where j.kind = 'xls_processar' and j.status in ('pending', 'running')
                          and j.payload ->> 'id' = p.id::text)
     order by p.recebido_em, p.id for update skip locked
  loop
    perform app.xls_enfileirar(v.id);
    v_reenf := v_reenf || v.id;
  end loop;

  -- ERRO by a transient failure whose automatic retry is due -> queued again
  for v in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO' and p.retentar_em <= now()
     order by p.retentar_em, p.id for update skip locked
  loop
    if app.xls_requeue(v.id) then
      v_reenf := v_reenf || v.id;
    end if;
  end loop;

  -- open batches that can close (a safety net: transitions normally close them)
  for v in
    select l.id from public.xls_conjunto l where l.fechado_em is null order by l.recebido_em for update skip locked
  loop
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.id) a;
    if v_fechado then v_conjuntos := v_conjuntos || v.id; end if;
    v_reenf := v_reenf || v_ids;
  end loop;

  return query select v_orfaos, v_reenf, v_conjuntos;
end;
$$;


--
-- Name: FUNCTION xls_recuperar(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_recuperar() IS 'Orphan recovery, at application startup (after the workers of previous processes of the host are forgotten: app.worker_esquecer) every minute (pg_cron job xls_recuperar) and every 10 s by each live replica (JOBS_SWEEP_MS): PROCESSANDO held by a dead worker (app.worker heartbeat older than app.worker_timeout(), or no running job of its own) -> ERRO (alarmar); PENDENTE without a queued job -> queued again; ERRO by a transient failure whose retry is due (retentar_em, set by xls_falhar with XL503) -> queued again; open batches that can close are closed (with their FK retry). With several replicas only dead workers'' processings are touched. Returns what it did.';


--
-- Name: xls_reprocessar(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_reprocessar(p_id uuid) RETURNS uuid[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_status text;
begin
  select p.status into v_status from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_status <> 'ERRO' then
    raise exception 'processamento % está em %: só um processamento em ERRO pode ser reprocessado', p_id, v_status
      using errcode = 'XL409';
  end if;
  -- waiting for its batch's master report (first transient FK failure): the batch close
  -- reprocesses it; running it now would fail again and use up its one retry
  if app.xls_fk_aguardando(p_id) is null then
    perform app.xls_requeue(p_id);
  end if;
  return array[p_id];
end;
$$;


--
-- Name: FUNCTION xls_reprocessar(p_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_reprocessar(p_id uuid) IS 'Reprocess button, one processing: ERRO -> PENDENTE from the stored file (no resend), job queued. Returns {id}. A processing waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting: the batch close reprocesses it. XL404 unknown id; XL409 when not in ERRO (SUCESSO, PENDENTE, PROCESSANDO, IGNORADO), so a double click changes nothing.';


--
-- Name: xls_reprocessar_conjunto(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_reprocessar_conjunto(p_conjunto_id uuid) RETURNS uuid[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if not exists (select from public.xls_conjunto l where l.id = p_conjunto_id) then
    raise exception 'conjunto % não existe', p_conjunto_id using errcode = 'XL404';
  end if;
  return app.xls_reprocessar_em_erro(p_conjunto_id, null);
end;
$$;


--
-- Name: FUNCTION xls_reprocessar_conjunto(p_conjunto_id uuid); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_reprocessar_conjunto(p_conjunto_id uuid) IS 'Reprocess button, the errors of a batch: every processing of the batch in ERRO -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL404 unknown batch.';


--
-- Name: xls_reprocessar_erros(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_reprocessar_erros(p_tipo text DEFAULT NULL::text) RETURNS uuid[]
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
begin
  if p_tipo is not null and not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', p_tipo using errcode = 'XL400';
  end if;
  return app.xls_reprocessar_em_erro(null, p_tipo);
end;
$$;


--
-- Name: FUNCTION xls_reprocessar_erros(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_reprocessar_erros(p_tipo text) IS 'Reprocess button of the list filtered by ERRO: every processing in ERRO (of type p_tipo when given) -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL400 unknown type.';


--
-- Name: xls_simular_abrir(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_simular_abrir(p_arquivo text, p_checksum text, p_tipo text) RETURNS uuid
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
declare
  v_id uuid := app.uuid_v7();
  v_checksum text := p_checksum;
begin
  if not exists (select from app.xls_alvo a where a.tipo = p_tipo) then
    raise exception 'o tipo % ainda não tem importação', p_tipo using errcode = 'XL422';
  end if;
  -- the file may already be stored (a send in ERRO or IGNORADO is reprocessed, and previewed),
  -- or come twice in one batch: the preview's processing then takes a checksum of its own
  insert into public.xls_processamento (id, status, tipo, arquivo, checksum, arquivo_bytes, log_arquivo, worker, iniciado_em, execucoes)
  values (v_id, 'PROCESSANDO', p_tipo, left(p_arquivo, 255), v_checksum, ''::bytea, 'simulacao', 'simulacao', now(), 1)
  on conflict (checksum) do nothing;
  if not found then
    v_checksum := encode(sha256(convert_to('simulacao:' || v_id::text, 'UTF8')), 'hex');
    insert into public.xls_processamento (id, status, tipo, arquivo, checksum, arquivo_bytes, log_arquivo, worker, iniciado_em, execucoes)
    values (v_id, 'PROCESSANDO', p_tipo, left(p_arquivo, 255), v_checksum, ''::bytea, 'simulacao', 'simulacao', now(), 1);
  end if;
  return v_id;
end;
$$;


--
-- Name: FUNCTION xls_simular_abrir(p_arquivo text, p_checksum text, p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_simular_abrir(p_arquivo text, p_checksum text, p_tipo text) IS 'Preview (POST /api/xls/simular): opens a processing in PROCESSANDO, inside the caller''s transaction, so that the staging, xls_merge_chunk and xls_merge (with p_meta.simular = true: the mass-deletion guard reports instead of refusing) run exactly as for a real send; public.xls_simular_resumo then reads what it would change, and the caller ROLLS BACK: nothing of it is kept (only sequences advance). A checksum already stored (a file in ERRO or IGNORADO, which a send would reprocess) gives the preview''s processing a checksum of its own; a file a send would call DUPLICADO is not previewed (public.xls_simular_duplicado). Never commit after it.';


--
-- Name: xls_simular_duplicado(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_simular_duplicado(p_checksum text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select format('arquivo já recebido: processamento %s (%s)', p.id, p.status)
    from public.xls_processamento p
   where p.checksum = lower(btrim(p_checksum))
     and p.status in ('SUCESSO', 'PENDENTE', 'PROCESSANDO')
$$;


--
-- Name: FUNCTION xls_simular_duplicado(p_checksum text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_simular_duplicado(p_checksum text) IS 'Preview (POST /api/xls/simular): the reason a send of a file with this checksum would be DUPLICADO now (the same rule and words as public.xls_receber: a processing of that checksum in SUCESSO, PENDENTE or PROCESSANDO), or null when a send would process it (new, or reprocessed from ERRO or IGNORADO). Reads only.';


--
-- Name: xls_simular_resumo(uuid, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_simular_resumo(p_id uuid, p_exemplos integer DEFAULT 20) RETURNS jsonb
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  select coalesce(jsonb_object_agg(t.tabela, t.resumo), '{}')
    from (select c.tabela,
                 jsonb_build_object(
                   'inseridas', coalesce(sum(c.n) filter (where c.operacao = 'INSERIDA'), 0),
                   'alteradas', coalesce(sum(c.n) filter (where c.operacao = 'ALTERADA'), 0),
                   'removidas', coalesce(sum(c.n) filter (where c.operacao = 'REMOVIDA'), 0),
                   'exemplos', jsonb_build_object(
                     'INSERIDA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'INSERIDA') -> 0, '[]'),
                     'ALTERADA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'ALTERADA') -> 0, '[]'),
                     'REMOVIDA', coalesce(jsonb_agg(c.exemplos) filter (where c.operacao = 'REMOVIDA') -> 0, '[]'))) as resumo
            from (select x.tabela, x.operacao, x.n,
                         (select jsonb_agg(case x.operacao when 'INSERIDA' then jsonb_build_object('chave', i.chave, 'depois', i.depois)
                                                           when 'ALTERADA' then jsonb_build_object('chave', i.chave, 'antes', i.antes, 'depois', i.depois)
                                                           else jsonb_build_object('chave', i.chave, 'antes', i.antes) end order by i.o)
                            from app.xls_alteracao_itens(p_id, x.tabela, x.operacao, p_exemplos)
                                 with ordinality i (seq, tabela, operacao, linha_id, chave, antes, depois, o)) as exemplos
                    from (select a.tabela, a.operacao, sum(coalesce(cardinality(a.linha_ids), 1)) as n
                            from app.xls_alteracao a where a.processamento_id = p_id group by a.tabela, a.operacao) x) c
           group by c.tabela) t;
$$;


--
-- Name: FUNCTION xls_simular_resumo(p_id uuid, p_exemplos integer); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_simular_resumo(p_id uuid, p_exemplos integer) IS 'Preview: what the processing p_id changed so far in this transaction, per table: {tabela: {inseridas, alteradas, removidas, exemplos: {INSERIDA: [{chave, depois}], ALTERADA: [{chave, antes, depois}], REMOVIDA: [{chave, antes}]}}}, at most p_exemplos examples of each, in the order written. Read from its change set (app.xls_alteracao), so the counts are those a real send records.';


--
-- Name: xls_staging_definicao(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_staging_definicao(p_tipo text) RETURNS TABLE(staging text, ordem integer, coluna text, tipo_sql text)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select c.staging, c.ordem, c.coluna, c.tipo_sql
    from app.xls_staging_coluna c
   where c.tipo = p_tipo
   order by c.staging, c.ordem;
$$;


--
-- Name: FUNCTION xls_staging_definicao(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_staging_definicao(p_tipo text) IS 'The staging tables of a spreadsheet type and their typed columns, in COPY order, as described in app.xls_staging_coluna (the contract between the reader and the merges; field names = normalised headers). Every table starts with linha, the sheet''s own 1-based row number.';


--
-- Name: xls_staging_preparar(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_staging_preparar(p_tipo text) RETURNS TABLE(staging text, tabela text, colunas text[])
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
#variable_conflict use_column
declare
  v record;
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  if not exists (select from public.xls_staging_definicao(p_tipo)) then
    raise exception 'o tipo % ainda não tem importação' , p_tipo using errcode = 'XL422';
  end if;
  -- a new merge in this transaction: drop the work tables of an earlier one (lots, state)
  for v in select c.relname from pg_catalog.pg_class c
            where c.relnamespace = pg_catalog.pg_my_temp_schema() and c.relkind = 'r' and c.relname like 'xls\_%'
  loop
    execute format('drop table pg_temp.%I', v.relname);
  end loop;
  for v in
    select d.staging,
           array_agg(d.coluna order by d.ordem) as colunas,
           string_agg(format('%I %s%s', d.coluna, d.tipo_sql, case when d.coluna = 'linha' then ' not null' else '' end),
                      ', ' order by d.ordem) as ddl
      from public.xls_staging_definicao(p_tipo) d
     group by d.staging
     order by d.staging
  loop
    execute format('drop table if exists pg_temp.%I', 'xls_stg_' || v.staging);
    execute format('create temp table %I (%s) on commit drop', 'xls_stg_' || v.staging, v.ddl);
    staging := v.staging;
    tabela := 'pg_temp.xls_stg_' || v.staging;
    colunas := v.colunas;
    return next;
  end loop;
end;
$$;


--
-- Name: FUNCTION xls_staging_preparar(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_staging_preparar(p_tipo text) IS 'Starts a merge in this transaction: drops the xls_* work tables of an earlier one, creates the staging temp tables of a type (ON COMMIT DROP: call it inside the merge transaction) and returns, per staging name (faturamento, movimento, meta), the table to COPY into and its columns in COPY order. Values: COPY text format, codes as text, numbers with ''.'', dates YYYY-MM-DD, NULL for empty. XL400 unknown type, XL422 type without import yet.';


--
-- Name: xls_tipo_mestre(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_tipo_mestre(p_tipo text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ select coalesce((select t.mestre from app.xls_tipo t where t.tipo = p_tipo), false) $$;


--
-- Name: FUNCTION xls_tipo_mestre(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_tipo_mestre(p_tipo text) IS 'True for the master report type (app.xls_tipo.mestre: RELATORIO18): the one that creates branches, sellers, customers, products and vehicles that the other types reference; its success closes its batch.';


--
-- Name: xls_tipo_nome(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_tipo_nome(p_tipo text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$ select case when p_tipo is null then null else coalesce((select t.nome from app.xls_tipo t where t.tipo = p_tipo), p_tipo) end $$;


--
-- Name: FUNCTION xls_tipo_nome(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_tipo_nome(p_tipo text) IS 'The name staff read for a spreadsheet type (app.xls_tipo.nome, e.g. FLUXO_PAGAR_RECEBER -> "Contas a pagar e receber"); the code itself when the type has no name; null for null.';


--
-- Name: xls_tipo_valido(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_tipo_valido(p_tipo text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select exists (select from app.xls_tipo t where t.tipo = p_tipo);
$$;


--
-- Name: FUNCTION xls_tipo_valido(p_tipo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_tipo_valido(p_tipo text) IS 'True when p_tipo is a spreadsheet type: a row of app.xls_tipo, the one list of types (xls_processamento.tipo references it).';


--
-- Name: xls_upload_recusar(text, text, bigint, text, text, text, integer, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.xls_upload_recusar(p_origem text, p_arquivo text, p_tamanho_bytes bigint, p_uploader_id text, p_uploader_nome text, p_cliente_ip text, p_status_http integer, p_codigo text, p_motivo text) RETURNS uuid
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
  insert into public.xls_upload_recusa (origem, arquivo, tamanho_bytes, uploader_id, uploader_nome, cliente_ip, status_http, codigo, motivo)
  values (p_origem, left(nullif(btrim(p_arquivo), ''), 300), p_tamanho_bytes, left(nullif(btrim(p_uploader_id), ''), 200),
          left(nullif(btrim(p_uploader_nome), ''), 200), left(p_cliente_ip, 100), p_status_http, left(p_codigo, 20),
          left(coalesce(nullif(btrim(p_motivo), ''), 'recusado'), 2000))
  returning id
$$;


--
-- Name: FUNCTION xls_upload_recusar(p_origem text, p_arquivo text, p_tamanho_bytes bigint, p_uploader_id text, p_uploader_nome text, p_cliente_ip text, p_status_http integer, p_codigo text, p_motivo text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.xls_upload_recusar(p_origem text, p_arquivo text, p_tamanho_bytes bigint, p_uploader_id text, p_uploader_nome text, p_cliente_ip text, p_status_http integer, p_codigo text, p_motivo text) IS 'Records an upload refused before anything was stored (origem api or importar; who, file name, size, HTTP status, code and reason; never the bytes). Names and reason are trimmed and cut to the column sizes. Returns the id.';


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
-- Name: repeatable_file; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.repeatable_file (
    arquivo text NOT NULL,
    sha256 text NOT NULL,
    aplicado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT repeatable_file_sha256_check CHECK ((sha256 ~ '^[0-9a-f]{64}$'::text))
);


--
-- Name: TABLE repeatable_file; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.repeatable_file IS 'Functions and views applied from db/functions/*.sql and db/views/*.sql: the file (relative to db/), the SHA-256 of the text applied and when. A file whose text differs (or is absent here) is applied again at the next migrate; every file is applied again after any dbmate migration. Delete a row to force one file to be re-applied.';


--
-- Name: replicacao_consulta; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.replicacao_consulta (
    tabela text NOT NULL,
    bucket text NOT NULL,
    filtro text,
    consulta text NOT NULL,
    definido_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT replicacao_consulta_tabela_check CHECK ((tabela ~ '^bi_[a-z0-9_]+$'::text))
);


--
-- Name: TABLE replicacao_consulta; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.replicacao_consulta IS 'The sync configuration''s data queries (one per synced bi_* table): the bucket, the query as the configuration writes it and its WHERE filter (null: the whole table). Replaced as a whole by replicacao_consultas_definir (the service calls it at start with its sync configuration); read by replicacao_paridade_postgres.';


--
-- Name: COLUMN replicacao_consulta.filtro; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.replicacao_consulta.filtro IS 'The WHERE clause of the data query (SQL of the sync configuration, which Postgres evaluates the same way), or null for the whole table.';


--
-- Name: replicacao_publicacao; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.replicacao_publicacao (
    nome text NOT NULL,
    registrada_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT replicacao_publicacao_nome_formato CHECK ((nome ~ '^[a-z_][a-z0-9_]{0,62}$'::text))
);


--
-- Name: TABLE replicacao_publicacao; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.replicacao_publicacao IS 'Publications of the sync engine that the service keeps covering exactly the bi_* tables of public (event trigger _200_bi_publicar, and the reset step RECRIAR_PUBLICACAO, which registers REPLICATOR_PUBLICATION here). Default: powersync.';


--
-- Name: replicacao_slot_visto; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.replicacao_slot_visto (
    slot text NOT NULL,
    observado_desde timestamp with time zone NOT NULL,
    visto_em timestamp with time zone NOT NULL,
    ativo_visto_em timestamp with time zone
);


--
-- Name: TABLE replicacao_slot_visto; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.replicacao_slot_visto IS 'What the pg_cron job replicacao_slots_observar saw of each replication slot of this database, one row per existing slot (a dropped slot''s row goes at the next look). Written only by app.replicacao_slots_observar; read by public.replicacao_saude (inactive_since).';


--
-- Name: COLUMN replicacao_slot_visto.slot; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.replicacao_slot_visto.slot IS 'The slot''s name (pg_replication_slots.slot_name).';


--
-- Name: COLUMN replicacao_slot_visto.observado_desde; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.replicacao_slot_visto.observado_desde IS 'Since when the slot has been looked at without a gap (first look, or the first look after the job stopped for more than 5 minutes).';


--
-- Name: COLUMN replicacao_slot_visto.visto_em; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.replicacao_slot_visto.visto_em IS 'The last look at the slot.';


--
-- Name: COLUMN replicacao_slot_visto.ativo_visto_em; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.replicacao_slot_visto.ativo_visto_em IS 'The last look that found the slot active (a client holding it) since observado_desde; null when it was never seen active in that span.';


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
-- Name: xls_alteracao; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.xls_alteracao (
    seq bigint NOT NULL,
    processamento_id uuid NOT NULL,
    tabela text NOT NULL,
    operacao text NOT NULL,
    linha_id uuid,
    chave jsonb,
    antes jsonb,
    depois jsonb,
    linha_ids uuid[],
    CONSTRAINT xls_alteracao_check CHECK (((operacao = 'INSERIDA'::text) = (antes IS NULL))),
    CONSTRAINT xls_alteracao_depois CHECK (((operacao = 'INSERIDA'::text) OR ((operacao = 'REMOVIDA'::text) = (depois IS NULL)))),
    CONSTRAINT xls_alteracao_forma CHECK (
CASE
    WHEN (operacao = 'INSERIDA'::text) THEN ((linha_ids IS NOT NULL) AND (linha_id IS NULL) AND (chave IS NULL) AND ((depois IS NULL) OR (jsonb_array_length(depois) = cardinality(linha_ids))))
    ELSE ((linha_ids IS NULL) AND (linha_id IS NOT NULL) AND (chave IS NOT NULL))
END),
    CONSTRAINT xls_alteracao_operacao_check CHECK ((operacao = ANY (ARRAY['INSERIDA'::text, 'ALTERADA'::text, 'REMOVIDA'::text])))
);
ALTER TABLE ONLY app.xls_alteracao ALTER COLUMN linha_ids SET STORAGE EXTERNAL;


--
-- Name: TABLE xls_alteracao; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.xls_alteracao IS 'Change set of every spreadsheet processing, in the order written (seq): INSERIDA, one row per statement, with the ids of the rows it inserted (linha_ids); ALTERADA, one row per rewritten row (antes = the stored row before the rewrite, depois = after); REMOVIDA, one row per removed row (antes = the stored row before the removal). chave = the natural key (the table''s UNIQUE constraint) as JSON and linha_id = the row''s id, for ALTERADA and REMOVIDA. Written only by the trigger app.tg__xls_alteracao during a merge; read through public.xls_alteracoes, public.xls_linhagem and public.xls_desfazer (app.xls_alteracao_itens expands an INSERIDA into its rows); purged after xls_alteracoes_retencao_dias by app.xls_alteracoes_expurgar.';


--
-- Name: COLUMN xls_alteracao.seq; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.seq IS 'Order of the writes (a later processing has a larger seq): the undo restores the earliest antes of each row and refuses when a later processing touched the same key.';


--
-- Name: COLUMN xls_alteracao.processamento_id; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.processamento_id IS 'The processing that wrote this change (public.xls_processamento.id). Not a foreign key (one referential check per row cost more than the rest of the capture): the change-set trigger checks the processing once per statement, and deleting a processing deletes its change set (trigger _100_xls_alteracao_apagar).';


--
-- Name: COLUMN xls_alteracao.linha_id; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.linha_id IS 'ALTERADA, REMOVIDA: the id of the row changed. Null for INSERIDA (linha_ids).';


--
-- Name: COLUMN xls_alteracao.chave; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.chave IS 'ALTERADA, REMOVIDA: the natural key of the row (the table''s UNIQUE constraint) as JSON. Null for INSERIDA.';


--
-- Name: COLUMN xls_alteracao.depois; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.depois IS 'ALTERADA: the row after the rewrite. REMOVIDA: null. INSERIDA: null while the rows are as recorded elsewhere (app.xls_alteracao_depois reads each: the next change''s antes, else the stored row); public.xls_desfazer fills it in (a JSON array aligned with linha_ids) before removing the rows.';


--
-- Name: COLUMN xls_alteracao.linha_ids; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alteracao.linha_ids IS 'INSERIDA: the ids of the rows the statement inserted, in the order inserted (their key and values are read from the row, or from the antes of its next change: app.xls_alteracao_depois). Null for ALTERADA and REMOVIDA. Stored uncompressed (ids do not compress).';


--
-- Name: xls_alteracao_seq_seq; Type: SEQUENCE; Schema: app; Owner: -
--

ALTER TABLE app.xls_alteracao ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.xls_alteracao_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: xls_alvo; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.xls_alvo (
    tipo text NOT NULL,
    staging text NOT NULL,
    tabela text NOT NULL,
    ordem integer DEFAULT 1 NOT NULL,
    aba text,
    escopo text NOT NULL,
    escopo_coluna text,
    comparar text[],
    expressoes jsonb DEFAULT '{}'::jsonb NOT NULL,
    reter text[] DEFAULT '{}'::text[] NOT NULL,
    fonte text,
    manter text[] DEFAULT '{}'::text[] NOT NULL,
    CONSTRAINT xls_alvo_check CHECK (((escopo = ANY (ARRAY['tudo'::text, 'nenhum'::text])) = (escopo_coluna IS NULL))),
    CONSTRAINT xls_alvo_escopo_check CHECK ((escopo = ANY (ARRAY['periodo'::text, 'valores'::text, 'meses'::text, 'tudo'::text, 'nenhum'::text]))),
    CONSTRAINT xls_alvo_escopo_coluna_check CHECK ((escopo_coluna ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_alvo_expressoes_check CHECK ((jsonb_typeof(expressoes) = 'object'::text)),
    CONSTRAINT xls_alvo_fonte_check CHECK (((fonte IS NULL) OR (escopo = 'nenhum'::text))),
    CONSTRAINT xls_alvo_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_alvo_staging_check CHECK ((staging ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_alvo_tabela_check CHECK ((tabela ~ '^bi_[a-z0-9_]+$'::text))
);


--
-- Name: TABLE xls_alvo; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.xls_alvo IS 'One row per target table of a spreadsheet type: staging table pg_temp.xls_stg_<staging> feeds public.<tabela>. The natural key is the target''s UNIQUE constraint, string lengths its varchar(n). escopo: which stored rows one file may delete — periodo (escopo_coluna between p_meta periodo_inicio and periodo_fim), valores (the values of escopo_coluna present in the file), meses (the calendar months the dates of escopo_coluna cover), tudo (the whole table). comparar: the columns whose change rewrites a row (null: every written non-key column). expressoes: target or extra column -> SQL expression over the normalised staging columns (trimmed, empty -> NULL), applied before the cut to the column length. reter: extra columns of accepted rows kept until the end of the merge for the type''s hook. aba: the tab named in messages and matched by rejected rows. Applied by app.xls_merge_chunk / app.xls_merge_fim; see docs/xls-merge.md.';


--
-- Name: COLUMN xls_alvo.ordem; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alvo.ordem IS 'Order of the targets of one type: chunks, deletes and metrics follow it (a target another one references comes first).';


--
-- Name: COLUMN xls_alvo.fonte; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alvo.fonte IS 'A reference table: the staging of the target whose accepted rows feed it (one row per key; rows without key name nothing). Written chunk by chunk when that target''s table has a foreign key to it, else at the end from the surviving rows (pg_temp.xls_aceitas_<fonte>, where the merge keeps for it the columns its expressions name and the columns named like its own). Requires escopo nenhum.';


--
-- Name: COLUMN xls_alvo.manter; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_alvo.manter IS 'Columns that keep the stored value when the sheet''s is empty (a new key gets NULL). For a reference table (fonte), each takes the last row of the file that has a value, not only the key''s last row.';


--
-- Name: xls_staging_coluna; Type: VIEW; Schema: app; Owner: -
--

CREATE VIEW app.xls_staging_coluna AS
 SELECT v.tipo,
    v.staging,
    v.ordem,
    v.coluna,
    v.tipo_sql
   FROM ( VALUES ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,1,'linha'::text,'integer'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,2,'tipo'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,3,'documento'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,4,'parcela'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,5,'pessoa'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,6,'cnpj_cpf'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,7,'emissao'::text,'date'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,8,'vencimento'::text,'date'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,9,'valor'::text,'numeric'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,10,'saldo'::text,'numeric'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,11,'centro_custo'::text,'text'::text), ('FLUXO_PAGAR_RECEBER'::text,'titulo'::text,12,'descricao_centro_custo'::text,'text'::text), ('COMPRAS'::text,'compra'::text,1,'linha'::text,'integer'::text), ('COMPRAS'::text,'compra'::text,2,'data'::text,'date'::text), ('COMPRAS'::text,'compra'::text,3,'cnpj_fornecedor'::text,'text'::text), ('COMPRAS'::text,'compra'::text,4,'fornecedor'::text,'text'::text), ('COMPRAS'::text,'compra'::text,5,'nota_fiscal'::text,'text'::text), ('COMPRAS'::text,'compra'::text,6,'produto'::text,'text'::text), ('COMPRAS'::text,'compra'::text,7,'codigo_onu'::text,'text'::text), ('COMPRAS'::text,'compra'::text,8,'quantidade'::text,'numeric'::text), ('COMPRAS'::text,'compra'::text,9,'valor_total'::text,'numeric'::text), ('RELATORIO18'::text,'faturamento'::text,1,'linha'::text,'integer'::text), ('RELATORIO18'::text,'faturamento'::text,2,'filial'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,3,'nota_fiscal'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,4,'serie'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,5,'item'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,6,'emissao'::text,'date'::text), ('RELATORIO18'::text,'faturamento'::text,7,'cliente'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,8,'nome_cliente'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,9,'vendedor'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,10,'nome_vendedor'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,11,'produto'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,12,'descricao_produto'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,13,'quantidade'::text,'numeric'::text), ('RELATORIO18'::text,'faturamento'::text,14,'valor_unitario'::text,'numeric'::text), ('RELATORIO18'::text,'faturamento'::text,15,'valor_total'::text,'numeric'::text), ('RELATORIO18'::text,'faturamento'::text,16,'placa'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,17,'ano_veiculo'::text,'text'::text), ('RELATORIO18'::text,'faturamento'::text,18,'modelo_veiculo'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,1,'linha'::text,'integer'::text), ('RELATORIO18'::text,'movimento'::text,2,'filial'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,3,'data'::text,'date'::text), ('RELATORIO18'::text,'movimento'::text,4,'lancamento'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,5,'conta'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,6,'descricao_conta'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,7,'historico'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,8,'debito'::text,'numeric'::text), ('RELATORIO18'::text,'movimento'::text,9,'credito'::text,'numeric'::text), ('RELATORIO18'::text,'movimento'::text,10,'placa'::text,'text'::text), ('RELATORIO18'::text,'movimento'::text,11,'ano_veiculo'::text,'text'::text), ('COTA_FORNECEDOR'::text,'cota'::text,1,'linha'::text,'integer'::text), ('COTA_FORNECEDOR'::text,'cota'::text,2,'aba'::text,'text'::text), ('COTA_FORNECEDOR'::text,'cota'::text,3,'polo'::text,'text'::text), ('COTA_FORNECEDOR'::text,'cota'::text,4,'produto'::text,'text'::text), ('COTA_FORNECEDOR'::text,'cota'::text,5,'mes'::text,'integer'::text), ('COTA_FORNECEDOR'::text,'cota'::text,6,'quantidade'::text,'numeric'::text), ('POSTOS'::text,'posto'::text,1,'linha'::text,'integer'::text), ('POSTOS'::text,'posto'::text,2,'cnpj'::text,'text'::text), ('POSTOS'::text,'posto'::text,3,'razao_social'::text,'text'::text), ('POSTOS'::text,'posto'::text,4,'nome_fantasia'::text,'text'::text), ('POSTOS'::text,'posto'::text,5,'bandeira'::text,'text'::text), ('POSTOS'::text,'posto'::text,6,'endereco'::text,'text'::text), ('POSTOS'::text,'posto'::text,7,'bairro'::text,'text'::text), ('POSTOS'::text,'posto'::text,8,'municipio'::text,'text'::text), ('POSTOS'::text,'posto'::text,9,'uf'::text,'text'::text), ('POSTOS'::text,'posto'::text,10,'cep'::text,'text'::text), ('POSTOS'::text,'posto'::text,11,'tipo_instalacao'::text,'text'::text), ('TRR'::text,'trr'::text,1,'linha'::text,'integer'::text), ('TRR'::text,'trr'::text,2,'cnpj'::text,'text'::text), ('TRR'::text,'trr'::text,3,'razao_social'::text,'text'::text), ('TRR'::text,'trr'::text,4,'municipio'::text,'text'::text), ('TRR'::text,'trr'::text,5,'uf'::text,'text'::text), ('TRR'::text,'trr'::text,6,'tipo_instalacao'::text,'text'::text), ('TRR'::text,'trr'::text,7,'qualificacao_empresa'::text,'text'::text), ('TRR'::text,'trr'::text,8,'capacidade_m3'::text,'numeric'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,1,'linha'::text,'integer'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,2,'competencia'::text,'date'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,3,'filial'::text,'text'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,4,'produto'::text,'text'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,5,'volume'::text,'numeric'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,6,'receita_liquida'::text,'numeric'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,7,'cmv'::text,'numeric'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,8,'margem_total'::text,'numeric'::text), ('MARGEM_CONSOLIDADA'::text,'margem_consolidada'::text,9,'margem_por_litro'::text,'numeric'::text), ('META_CARTEIRA'::text,'meta_carteira'::text,1,'linha'::text,'integer'::text), ('META_CARTEIRA'::text,'meta_carteira'::text,2,'competencia'::text,'date'::text), ('META_CARTEIRA'::text,'meta_carteira'::text,3,'cliente'::text,'text'::text), ('META_CARTEIRA'::text,'meta_carteira'::text,4,'produto'::text,'text'::text), ('META_CARTEIRA'::text,'meta_carteira'::text,5,'meta_volume'::text,'numeric'::text), ('META'::text,'meta'::text,1,'linha'::text,'integer'::text), ('META'::text,'meta'::text,2,'competencia'::text,'date'::text), ('META'::text,'meta'::text,3,'vendedor'::text,'text'::text), ('META'::text,'meta'::text,4,'produto'::text,'text'::text), ('META'::text,'meta'::text,5,'meta_volume'::text,'numeric'::text), ('META'::text,'meta'::text,6,'meta_margem'::text,'numeric'::text), ('MARGEM_DIA'::text,'margem_dia'::text,1,'linha'::text,'integer'::text), ('MARGEM_DIA'::text,'margem_dia'::text,2,'data'::text,'date'::text), ('MARGEM_DIA'::text,'margem_dia'::text,3,'filial'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,4,'cliente'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,5,'nome_cliente'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,6,'vendedor'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,7,'produto'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,8,'volume'::text,'numeric'::text), ('MARGEM_DIA'::text,'margem_dia'::text,9,'preco_medio'::text,'numeric'::text), ('MARGEM_DIA'::text,'margem_dia'::text,10,'custo_medio'::text,'numeric'::text), ('MARGEM_DIA'::text,'margem_dia'::text,11,'margem'::text,'numeric'::text), ('MARGEM_DIA'::text,'margem_dia'::text,12,'cnpj_cpf'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,13,'classe'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,14,'municipio'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,15,'uf'::text,'text'::text), ('MARGEM_DIA'::text,'margem_dia'::text,16,'prazo'::text,'numeric'::text)) v(tipo, staging, ordem, coluna, tipo_sql);


--
-- Name: VIEW xls_staging_coluna; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON VIEW app.xls_staging_coluna IS 'The staging tables of each spreadsheet type and their typed columns, in COPY order: the contract between the reader and the merge, generated from the readers (src/xlsx/readers: field = column, its parser gives tipo_sql; scripts/staging-view.ts). Column 1 is always linha, the sheet''s own 1-based row number. xls_staging_preparar creates pg_temp.xls_stg_<staging> from these rows; app.xls_merge_preparar reads them.';


--
-- Name: xls_tipo; Type: TABLE; Schema: app; Owner: -
--

CREATE TABLE app.xls_tipo (
    tipo text NOT NULL,
    ordem integer NOT NULL,
    mestre boolean DEFAULT false NOT NULL,
    hook text,
    descricao text NOT NULL,
    recusa_total boolean DEFAULT false NOT NULL,
    nome text,
    CONSTRAINT xls_tipo_hook_check CHECK ((hook ~ '^app\.[a-z_][a-z0-9_]*$'::text)),
    CONSTRAINT xls_tipo_nome_check CHECK (((nome IS NULL) OR (btrim(nome) <> ''::text))),
    CONSTRAINT xls_tipo_ordem_check CHECK ((ordem > 0))
);


--
-- Name: TABLE xls_tipo; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON TABLE app.xls_tipo IS 'The spreadsheet types (docs/formatos.md), in detection order (ordem): the one list of types; xls_processamento.tipo references it and public.xls_tipo_valido reads it. mestre: the batch''s master report (its success closes the batch). hook: optional function app.<name>(p_fase text, p_staging text, p_meta jsonb) returns jsonb, called by the generic merge at its phases (docs/xls-merge.md) for what belongs to one type only. Checked once against TIPOS_PLANILHA (TypeScript) by the tests.';


--
-- Name: COLUMN xls_tipo.recusa_total; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_tipo.recusa_total IS 'Any invalid row (the reader''s or SQL''s) refuses the whole file: XL422 ''<tipo> recusado, nada gravado: <n> linha(s) inválida(s): <every message>'', nothing written.';


--
-- Name: COLUMN xls_tipo.nome; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON COLUMN app.xls_tipo.nome IS 'The name staff read for the type on every screen (pt-BR, e.g. "Contas a pagar e receber"); null shows the code. Read through public.xls_tipo_nome.';


--
-- Name: bi_centro_custo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_centro_custo (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    codigo character varying(20) NOT NULL,
    descricao character varying(120),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_centro_custo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_centro_custo IS 'Cost centres. NK codigo. Upserted by FLUXO_PAGAR_RECEBER (descricao; an empty one keeps the stored value); never deleted by a spreadsheet.';


--
-- Name: bi_cliente; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_cliente (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    codigo character varying(20) NOT NULL,
    nome character varying(150),
    cnpj_cpf character varying(14),
    classe character varying(40),
    municipio character varying(100),
    uf character varying(2),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_cliente; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_cliente IS 'Customers. NK codigo. RELATORIO18 upserts codigo and nome only and keeps the other columns; MARGEM_DIA (later) fills cnpj_cpf, classe, municipio, uf and keeps the stored value when its sheet lacks the field.';


--
-- Name: COLUMN bi_cliente.cnpj_cpf; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_cliente.cnpj_cpf IS 'Digits only.';


--
-- Name: bi_compra; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_compra (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    data date NOT NULL,
    cnpj_fornecedor character varying(14) NOT NULL,
    nota_fiscal character varying(20) NOT NULL,
    produto character varying(60) NOT NULL,
    codigo_onu smallint NOT NULL,
    quantidade numeric,
    valor_total numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_compra_combustivel CHECK ((codigo_onu = ANY (ARRAY[1170, 1202, 1203, 1223, 1863, 3475])))
);


--
-- Name: TABLE bi_compra; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_compra IS 'Fuel purchases (COMPRAS). NK (cnpj_fornecedor, nota_fiscal, produto). Only fuels: codigo_onu in {1170, 1202, 1203, 1223, 1863, 3475}. Quantity and value raw (the client derives the average cost). Scope of one file: the calendar months its dates cover.';


--
-- Name: bi_cota_fornecedor; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_cota_fornecedor (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    ano smallint NOT NULL,
    polo character varying(60) NOT NULL,
    produto character varying(60) NOT NULL,
    mes smallint NOT NULL,
    quantidade numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_cota_fornecedor_ano CHECK (((ano >= 1900) AND (ano <= 9999))),
    CONSTRAINT bi_cota_fornecedor_mes CHECK (((mes >= 1) AND (mes <= 12)))
);


--
-- Name: TABLE bi_cota_fornecedor; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_cota_fornecedor IS 'Supplier quota matrix (COTA_FORNECEDOR), unpivoted: one row per (ano, polo, produto, mes). ano = the tab''s name, mes 1..12. Scope: the whole table (each send replaces the whole matrix; a send without data rows deletes nothing).';


--
-- Name: bi_faturamento; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_faturamento (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    filial character varying(20) NOT NULL,
    nota_fiscal character varying(20) NOT NULL,
    serie character varying(5) NOT NULL,
    item character varying(10) NOT NULL,
    emissao date NOT NULL,
    cliente character varying(20),
    vendedor character varying(20),
    produto character varying(20),
    quantidade numeric,
    valor_unitario numeric,
    valor_total numeric,
    placa character varying(10),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_faturamento; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_faturamento IS 'Billing rows of RELATORIO18 tab 20. NK (filial, nota_fiscal, serie, item); an empty serie or item is stored as ''''. Scope of one report: emissao within its period (rows of the period absent from the file are deleted).';


--
-- Name: COLUMN bi_faturamento.placa; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_faturamento.placa IS 'Plate as sent, normalised (uppercase, no dash or space) even when invalid; the registry is bi_veiculo.';


--
-- Name: bi_filial; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_filial (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    codigo character varying(20) NOT NULL,
    municipio character varying(100),
    uf character varying(2),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_filial; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_filial IS 'Branches. NK codigo. Spreadsheets only insert new codes (RELATORIO18, MARGEM_CONSOLIDADA); municipio and uf are manual registry data that no spreadsheet writes (a new branch gets them NULL).';


--
-- Name: bi_fornecedor; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_fornecedor (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    cnpj character varying(14) NOT NULL,
    nome character varying(150),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_fornecedor; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_fornecedor IS 'Suppliers. NK cnpj (digits only). Upserted by COMPRAS (nome; an empty name keeps the stored one); never deleted by a spreadsheet.';


--
-- Name: bi_margem_consolidada; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_margem_consolidada (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    competencia date NOT NULL,
    filial character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    volume numeric,
    receita_liquida numeric,
    cmv numeric,
    margem_total numeric,
    margem_por_litro numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_margem_consolidada_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);


--
-- Name: TABLE bi_margem_consolidada; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_margem_consolidada IS 'Consolidated margin per month, branch and product (MARGEM_CONSOLIDADA). NK (competencia, filial, produto); competencia is the first day of the month. Scope of one file: the competências present in it. New branch codes go to bi_filial (code only).';


--
-- Name: bi_margem_dia; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_margem_dia (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    data date NOT NULL,
    filial character varying(20) NOT NULL,
    cliente character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    vendedor character varying(20),
    volume numeric,
    preco_medio numeric,
    custo_medio numeric,
    margem numeric,
    prazo numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_margem_dia; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_margem_dia IS 'Daily margin per branch, customer and product (MARGEM_DIA). NK (data, filial, cliente, produto). Scope of one file: the dates present in it. The customer''s name, CNPJ/CPF, classe, município and UF go to bi_cliente (a missing or empty field keeps the stored value).';


--
-- Name: COLUMN bi_margem_dia.prazo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_margem_dia.prazo IS 'Payment term in days as sent; an empty cell (or an absent column) is NULL, never 0.';


--
-- Name: bi_meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_meta (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    competencia date NOT NULL,
    vendedor character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    meta_volume numeric,
    meta_margem numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_meta_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);


--
-- Name: TABLE bi_meta; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_meta IS 'Goals per seller and product (META). NK (competencia, vendedor, produto); competencia is the first day of the month. Scope of one file: the competências present in it. vendedor must exist in bi_vendedor: a missing seller fails the file with XL424 (transient inside a batch: retried once after the master report).';


--
-- Name: bi_meta_carteira; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_meta_carteira (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    competencia date NOT NULL,
    cliente character varying(20) NOT NULL,
    produto character varying(20) NOT NULL,
    meta_volume numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_meta_carteira_competencia_mes CHECK ((competencia = (date_trunc('month'::text, (competencia)::timestamp with time zone))::date))
);


--
-- Name: TABLE bi_meta_carteira; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_meta_carteira IS 'Goals per customer and product (META_CARTEIRA). NK (competencia, cliente, produto). Scope of one file: the competências present in it. cliente must exist in bi_cliente: a missing customer fails the file with XL424 (transient inside a batch: retried once after the master report), as META.';


--
-- Name: bi_movimento; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_movimento (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    filial character varying(20) NOT NULL,
    data date NOT NULL,
    lancamento character varying(20) NOT NULL,
    conta character varying(40) NOT NULL,
    descricao_conta character varying(120),
    historico character varying(250),
    debito numeric,
    credito numeric,
    placa character varying(10),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_movimento; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_movimento IS 'Accounting movement rows of RELATORIO18 tab 30. NK (filial, lancamento, conta). Scope of one report: data within its period.';


--
-- Name: bi_posto; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_posto (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    cnpj character varying(14) NOT NULL,
    razao_social character varying(150),
    nome_fantasia character varying(150),
    bandeira character varying(60),
    endereco character varying(200),
    bairro character varying(100),
    municipio character varying(100),
    uf character varying(2),
    cep character varying(8),
    tipo_instalacao character varying(60),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_posto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_posto IS 'Fuel stations registry (POSTOS). NK cnpj (digits only). Scope: the whole table, the file is the full registry.';


--
-- Name: COLUMN bi_posto.cep; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_posto.cep IS 'Digits only.';


--
-- Name: bi_produto; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_produto (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    codigo character varying(20) NOT NULL,
    descricao character varying(150),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_produto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_produto IS 'Products. NK codigo. Upserted by RELATORIO18 (descricao); never deleted by a spreadsheet.';


--
-- Name: bi_titulo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_titulo (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    posicao date NOT NULL,
    tipo character varying(7) NOT NULL,
    documento character varying(30) NOT NULL,
    parcela character varying(10) NOT NULL,
    pessoa character varying(150),
    cnpj_cpf character varying(14),
    emissao date,
    vencimento date NOT NULL,
    valor numeric,
    saldo numeric NOT NULL,
    centro_custo character varying(20),
    atual boolean DEFAULT false NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_titulo_tipo CHECK (((tipo)::text = ANY ((ARRAY['PAGAR'::character varying, 'RECEBER'::character varying])::text[])))
);


--
-- Name: TABLE bi_titulo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_titulo IS 'Open payables and receivables (FLUXO_PAGAR_RECEBER, tab SemQuebras), with history per position (the report date). NK (posicao, tipo, documento, parcela); an empty parcela is ''''. Scope of one file: its position (a re-import replaces it). Only the rows of the newest position carry atual = true; the sync engine publishes only those (where atual).';


--
-- Name: COLUMN bi_titulo.tipo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_titulo.tipo IS 'PAGAR or RECEBER (the sheet may say Pagar/Receber or P/R).';


--
-- Name: COLUMN bi_titulo.atual; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_titulo.atual IS 'True on the rows of the newest position only (xls_merge_fluxo keeps it so under a lock). Indexed partially: a sync stream selects `where atual`.';


--
-- Name: bi_trr; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_trr (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    cnpj character varying(14) NOT NULL,
    razao_social character varying(150),
    municipio character varying(100),
    uf character varying(2),
    tipo_instalacao character varying(60),
    qualificacao_empresa character varying(100),
    capacidade_m3 numeric,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_trr; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_trr IS 'Retail-wholesale resellers (TRR) registry. NK cnpj (digits only). Scope: the whole table, the file is the full registry.';


--
-- Name: bi_veiculo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_veiculo (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    placa character varying(7) NOT NULL,
    ano_fabricacao smallint,
    ano_modelo smallint,
    modelo character varying(80),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT bi_veiculo_placa_formato CHECK (((placa)::text ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$'::text))
);


--
-- Name: TABLE bi_veiculo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_veiculo IS 'Vehicle registry. NK placa (normalised: uppercase, no dash or space; AAA9999 or Mercosul AAA9A99). Upserted by RELATORIO18 from billing and movement rows with a valid plate; a missing or invalid year or model keeps the stored value. Never deleted by a spreadsheet.';


--
-- Name: COLUMN bi_veiculo.ano_fabricacao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_veiculo.ano_fabricacao IS 'Construction year: left of the slash in ''YYYY/YYYY''.';


--
-- Name: COLUMN bi_veiculo.ano_modelo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.bi_veiculo.ano_modelo IS 'Model year: right of the slash in ''YYYY/YYYY''.';


--
-- Name: bi_vendedor; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bi_vendedor (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    codigo character varying(20) NOT NULL,
    nome character varying(120),
    filial character varying(20),
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE bi_vendedor; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.bi_vendedor IS 'Sellers. NK codigo. Upserted by RELATORIO18 (nome, filial of its latest billing row); never deleted by a spreadsheet. Referenced by bi_meta.';


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
    request_sha256 text,
    idempotency_key text,
    replay_of bigint,
    application_name text DEFAULT NULLIF(current_setting('application_name'::text, true), ''::text),
    response jsonb,
    recusa_status smallint,
    recusa_detalhe text,
    CONSTRAINT erp_sync_audit_recusa_check CHECK (((recusa_status IS NULL) OR ((recusa_status = ANY (ARRAY[400, 413, 422])) AND (replay_of IS NULL)))),
    CONSTRAINT erp_sync_audit_response_check CHECK ((((replay_of IS NULL) AND (recusa_status IS NULL)) = (response IS NOT NULL))),
    CONSTRAINT erp_sync_audit_sha256_check CHECK ((request_sha256 ~ '^[0-9a-f]{64}$'::text))
);


--
-- Name: TABLE erp_sync_audit; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.erp_sync_audit IS 'One row per call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). A call refused with 400, 413 or 422 is a row with recusa_status and recusa_detalhe (erp_sync_recusa_registrar), counts 0 and response null; a 401 leaves no row. Rows are kept until a DBA deletes them (changes cascade).';


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

COMMENT ON COLUMN public.erp_sync_audit.request_sha256 IS 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter); null for a refused call whose body had no readable items.';


--
-- Name: COLUMN erp_sync_audit.application_name; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.application_name IS 'application_name of the calling session: bi-comercial for the HTTP endpoint, psql for a DBA.';


--
-- Name: COLUMN erp_sync_audit.recusa_status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.recusa_status IS 'HTTP status of a refused call (400 envelope or body invalid, 413 more than 200 items or a body over 1 MiB, 422 Idempotency-Key reused with another body or mode); null for an answered call. A refused call applies nothing; its counts are 0 but recebidos (the items it carried, when they could be read).';


--
-- Name: COLUMN erp_sync_audit.recusa_detalhe; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.erp_sync_audit.recusa_detalhe IS 'The detail of the refusal, as the caller received it (problem+json detail).';


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

COMMENT ON TABLE public.feriado IS 'Days that are not business days even when they fall Monday to Friday, besides the national holidays (public.feriado_nacional derives those for any year: fixed dates and Good Friday). DBAs add state, municipal or company days (e.g. Carnaval, Corpus Christi) with a plain INSERT and remove them with DELETE; public.dia_util and public.minutos_comerciais honour every row.';


--
-- Name: COLUMN feriado.abrangencia; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.feriado.abrangencia IS 'estadual, municipal, empresa or nacional (a national day the derivation lacks): informative only, every row counts.';


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
    CONSTRAINT partner_aviso_tipo_check CHECK ((tipo = ANY (ARRAY['webhook_parado'::text, 'webhook_voltou'::text, 'contingencia_ligada'::text, 'contingencia_desligada'::text, 'conciliacao_incompleta'::text])))
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
-- Name: partner_conciliacao; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_conciliacao (
    dia date NOT NULL,
    status text DEFAULT 'PENDENTE'::text NOT NULL,
    motivo text DEFAULT 'manual'::text NOT NULL,
    solicitada_em timestamp with time zone NOT NULL,
    job_id bigint,
    tentativas integer DEFAULT 0 NOT NULL,
    iniciada_em timestamp with time zone,
    conciliada_em timestamp with time zone,
    na_plataforma integer,
    aqui integer,
    por_webhook integer,
    recuperados integer,
    faltando integer,
    preenchidos integer,
    faltando_apos integer,
    divergentes integer,
    ilegiveis integer,
    erro text,
    avisado text,
    CONSTRAINT partner_conciliacao_avisado_check CHECK ((avisado = ANY (ARRAY['INCOMPLETO'::text, 'INACESSIVEL'::text]))),
    CONSTRAINT partner_conciliacao_motivo_check CHECK ((motivo = ANY (ARRAY['agendada'::text, 'manual'::text]))),
    CONSTRAINT partner_conciliacao_status_check CHECK ((status = ANY (ARRAY['PENDENTE'::text, 'EM_ANDAMENTO'::text, 'CONCILIADO'::text, 'INCOMPLETO'::text, 'INACESSIVEL'::text])))
);


--
-- Name: TABLE partner_conciliacao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_conciliacao IS 'Reconciliation ledger of area B: one row per day (America/Sao_Paulo) whose orders were compared, by code and status, with the platform''s REST list of that day (public.partner_conciliar). Counts: na_plataforma (distinct codes the platform listed), aqui (of those, stored here after the backfill), por_webhook (stored and delivered by the webhook), recuperados (stored only through the poll, the contingency or by hand), faltando (on the platform, not stored: backfilled through the same normalisation), preenchidos (of those, backfilled), faltando_apos (still missing after the backfill: unreadable), divergentes (platform status differs from ours, listed, never changed), ilegiveis (list entries without a code). status: PENDENTE/EM_ANDAMENTO (the job), CONCILIADO (nothing missing), INCOMPLETO (missing orders after the backfill, or unreadable entries), INACESSIVEL (the platform could not be reached for the whole window of the job''s attempts). avisado: the status last alerted (one alert per day and status).';


--
-- Name: COLUMN partner_conciliacao.erro; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.partner_conciliacao.erro IS 'The last failure of the job (platform unreachable, an HTTP status, a page out of shape).';


--
-- Name: partner_conciliacao_item; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_conciliacao_item (
    dia date NOT NULL,
    code text NOT NULL,
    tipo text NOT NULL,
    status_plataforma text,
    atualizado_plataforma timestamp with time zone,
    status_aqui text,
    estado_aqui text,
    atualizado_aqui timestamp with time zone,
    preenchido boolean,
    erro text,
    CONSTRAINT partner_conciliacao_item_tipo_check CHECK ((tipo = ANY (ARRAY['recuperado'::text, 'faltando'::text, 'divergente'::text])))
);


--
-- Name: TABLE partner_conciliacao_item; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_conciliacao_item IS 'The orders behind a day''s verdict in public.partner_conciliacao: recuperado (stored only by the poll, the contingency or by hand: no webhook delivery of the code), faltando (not stored when the day was first reconciled; preenchido = backfilled, else erro says why), divergente (the platform''s status differs from the stored one: listed, never changed here; the gate''s rules stay). Rewritten whole by each run of the day.';


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
    CONSTRAINT partner_episodio_motivo_check CHECK ((motivo = ANY (ARRAY['limite_min_comercial'::text, 'limite_horas'::text, 'ritmo_aprendido'::text])))
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
-- Name: partner_ritmo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_ritmo (
    tipo_dia smallint NOT NULL,
    hora smallint NOT NULL,
    pedidos integer NOT NULL,
    dias integer NOT NULL,
    semanas integer NOT NULL,
    aprendido_para timestamp with time zone NOT NULL,
    CONSTRAINT partner_ritmo_hora_check CHECK (((hora >= 0) AND (hora <= 23))),
    CONSTRAINT partner_ritmo_tipo_dia_check CHECK (((tipo_dia >= 0) AND (tipo_dia <= 7)))
);


--
-- Name: TABLE partner_ritmo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.partner_ritmo IS 'The learned order rhythm of the learned silence alarm: per day type (1-7 = ISO weekday, 0 = holiday: public.feriado_nacional or public.feriado, whatever the weekday) and local hour (America/Sao_Paulo), the orders first delivered by the webhook in that slot over the last semanas weeks before aprendido_para (pedidos) and the days of that type observed (dias); the expected rate is pedidos / dias orders an hour, used only when dias >= 3. Rebuilt by public.partner_ritmo_aprender (partner_tick, at most hourly).';


--
-- Name: partner_webhook; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partner_webhook (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
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
-- Name: xls_conjunto; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_conjunto (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    arquivo text,
    total integer DEFAULT 0 NOT NULL,
    recebido_em timestamp with time zone DEFAULT now() NOT NULL,
    fechado_em timestamp with time zone,
    fechamento_motivo text,
    uploader_id text,
    uploader_nome text,
    CONSTRAINT xls_conjunto_fechamento CHECK (((fechado_em IS NULL) = (fechamento_motivo IS NULL))),
    CONSTRAINT xls_conjunto_total_check CHECK ((total >= 0))
);


--
-- Name: TABLE xls_conjunto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_conjunto IS 'A batch: the files sent together in one .zip. It closes (fechado_em) when its master report (RELATORIO18) commits, or when every processing of the batch has ended; on closing, items that failed by a transient foreign-key violation are reprocessed once (see xls_conjunto_avaliar).';


--
-- Name: COLUMN xls_conjunto.arquivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_conjunto.arquivo IS 'Name of the .zip as uploaded.';


--
-- Name: COLUMN xls_conjunto.total; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_conjunto.total IS 'Number of entries of the zip (every entry: .xlsx or ignored), kept by the receipt functions.';


--
-- Name: COLUMN xls_conjunto.fechado_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_conjunto.fechado_em IS 'When the batch closed; null while open.';


--
-- Name: COLUMN xls_conjunto.fechamento_motivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_conjunto.fechamento_motivo IS 'Why it closed: master report committed, or every processing ended.';


--
-- Name: xls_conjunto_item; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_conjunto_item (
    conjunto_id uuid NOT NULL,
    ordem integer NOT NULL,
    arquivo text NOT NULL,
    status text NOT NULL,
    processamento_id uuid,
    motivo text,
    CONSTRAINT xls_conjunto_item_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_conjunto_item_sem_processamento CHECK (((status = ANY (ARRAY['ENFILEIRADO'::text, 'REPROCESSANDO'::text])) OR (processamento_id IS NULL))),
    CONSTRAINT xls_conjunto_item_status_valido CHECK ((status = ANY (ARRAY['ENFILEIRADO'::text, 'REPROCESSANDO'::text, 'DUPLICADO'::text, 'IGNORADO'::text])))
);


--
-- Name: TABLE xls_conjunto_item; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_conjunto_item IS 'One row per entry of a batch''s zip, in zip order, with its receipt status: ENFILEIRADO (new processing), REPROCESSANDO (same checksum found in ERRO or IGNORADO: that record is reprocessed), DUPLICADO (same checksum in SUCESSO, PENDENTE or PROCESSANDO) or IGNORADO (not an .xlsx). processamento_id is null when the entry generated no processing.';


--
-- Name: COLUMN xls_conjunto_item.motivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_conjunto_item.motivo IS 'Why the entry was DUPLICADO (names the existing processing id), IGNORADO or REPROCESSANDO.';


--
-- Name: xls_conjunto_lote; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.xls_conjunto_lote AS
 SELECT xls_conjunto.id,
    xls_conjunto.arquivo,
    xls_conjunto.uploader_id,
    xls_conjunto.uploader_nome,
    xls_conjunto.total,
    xls_conjunto.recebido_em,
    xls_conjunto.fechado_em,
    xls_conjunto.fechamento_motivo
   FROM public.xls_conjunto;


--
-- Name: VIEW xls_conjunto_lote; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.xls_conjunto_lote IS 'Former name of public.xls_conjunto (the zip batch), a simple view so that callers written before the rename still read and write it; new code uses xls_conjunto.';


--
-- Name: xls_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.xls_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    MAXVALUE 1152921504606846975
    CACHE 1000
    CYCLE;


--
-- Name: SEQUENCE xls_id_seq; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON SEQUENCE public.xls_id_seq IS 'Low 60 bits of the time-ordered ids (UUID version 7 layout: 48-bit Unix milliseconds, version 7, variant 10, then this counter) that the RELATORIO18 lots give new bi_faturamento / bi_movimento rows: ids that grow in insertion order go to the right edge of the primary-key index instead of a random leaf (measured: inserting 200 000 rows in 8 lots, 1.35-1.41 s with random ids, 1.15 s with these). Other writers keep the column default.';


--
-- Name: xls_processamento; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_processamento (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    status text DEFAULT 'PENDENTE'::text NOT NULL,
    tipo text,
    arquivo text NOT NULL,
    checksum text NOT NULL,
    recebido_em timestamp with time zone DEFAULT now() NOT NULL,
    iniciado_em timestamp with time zone,
    finalizado_em timestamp with time zone,
    conjunto_id uuid,
    objeto_bucket text,
    objeto_chave text,
    objeto_tamanho_bytes bigint,
    arquivo_bytes bytea,
    linhas_enviadas integer,
    linhas_efetivas integer,
    linhas_removidas integer,
    metricas jsonb,
    log_arquivo text NOT NULL,
    erro_mensagem text,
    avisos jsonb DEFAULT '[]'::jsonb NOT NULL,
    linhas_rejeitadas jsonb DEFAULT '[]'::jsonb NOT NULL,
    uploader_id text,
    uploader_nome text,
    worker text,
    execucoes integer DEFAULT 0 NOT NULL,
    fk_falhas integer DEFAULT 0 NOT NULL,
    fk_retentar boolean DEFAULT false NOT NULL,
    alarmar boolean DEFAULT false NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    erro_codigo text,
    erro_anterior text,
    retentar_em timestamp with time zone,
    falhas_transitorias integer DEFAULT 0 NOT NULL,
    desfeito_em timestamp with time zone,
    desfeito_por text,
    exclusoes_aprovadas_em timestamp with time zone,
    exclusoes_aprovadas_por text,
    alteracoes_expiradas_em timestamp with time zone,
    exclusao_retida boolean DEFAULT false NOT NULL,
    CONSTRAINT xls_processamento_aprovado CHECK (((exclusoes_aprovadas_em IS NULL) = (exclusoes_aprovadas_por IS NULL))),
    CONSTRAINT xls_processamento_arquivo_guardado CHECK (((objeto_chave IS NOT NULL) OR (arquivo_bytes IS NOT NULL))),
    CONSTRAINT xls_processamento_avisos_lista CHECK ((jsonb_typeof(avisos) = 'array'::text)),
    CONSTRAINT xls_processamento_checksum_formato CHECK ((checksum ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT xls_processamento_desfeito CHECK (((desfeito_em IS NULL) = (desfeito_por IS NULL))),
    CONSTRAINT xls_processamento_execucoes_check CHECK ((execucoes >= 0)),
    CONSTRAINT xls_processamento_finalizado CHECK (((status = ANY (ARRAY['SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])) = (finalizado_em IS NOT NULL))),
    CONSTRAINT xls_processamento_fk_falhas_check CHECK ((fk_falhas >= 0)),
    CONSTRAINT xls_processamento_fk_retentar CHECK (((NOT fk_retentar) OR (status = 'ERRO'::text))),
    CONSTRAINT xls_processamento_objeto CHECK (((objeto_bucket IS NULL) = (objeto_chave IS NULL))),
    CONSTRAINT xls_processamento_objeto_tamanho_bytes_check CHECK ((objeto_tamanho_bytes >= 0)),
    CONSTRAINT xls_processamento_processando CHECK (((status <> 'PROCESSANDO'::text) OR ((worker IS NOT NULL) AND (iniciado_em IS NOT NULL)))),
    CONSTRAINT xls_processamento_rejeitadas_lista CHECK ((jsonb_typeof(linhas_rejeitadas) = 'array'::text)),
    CONSTRAINT xls_processamento_status_valido CHECK ((status = ANY (ARRAY['PENDENTE'::text, 'PROCESSANDO'::text, 'SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])))
);
ALTER TABLE ONLY public.xls_processamento ALTER COLUMN arquivo_bytes SET STORAGE EXTERNAL;


--
-- Name: TABLE xls_processamento; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_processamento IS 'One processing per distinct file (checksum): its status (PENDENTE, PROCESSANDO, SUCESSO, ERRO, IGNORADO), where the original is stored, the idempotency metrics and the audit trail. Change the status only through the xls_* functions (xls_iniciar, xls_concluir, xls_ignorar, xls_falhar, xls_reprocessar*, xls_recuperar). Never select arquivo_bytes in a listing.';


--
-- Name: COLUMN xls_processamento.status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.status IS 'PENDENTE (queued), PROCESSANDO (held by a worker), SUCESSO, ERRO, IGNORADO (not a known type).';


--
-- Name: COLUMN xls_processamento.tipo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.tipo IS 'Detected spreadsheet type (null until detection); kept across reprocessing.';


--
-- Name: COLUMN xls_processamento.arquivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.arquivo IS 'File name as uploaded (the entry name inside the zip), of the latest send.';


--
-- Name: COLUMN xls_processamento.checksum; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.checksum IS 'SHA-256 of the file, lowercase hex. Unique: the same file always maps to the same record.';


--
-- Name: COLUMN xls_processamento.recebido_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.recebido_em IS 'First receipt of this file; the list order key. A resend reprocesses the record in place and keeps it.';


--
-- Name: COLUMN xls_processamento.iniciado_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.iniciado_em IS 'Start of the latest run (PENDENTE -> PROCESSANDO).';


--
-- Name: COLUMN xls_processamento.finalizado_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.finalizado_em IS 'End of the latest run; null while PENDENTE or PROCESSANDO.';


--
-- Name: COLUMN xls_processamento.conjunto_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.conjunto_id IS 'Batch (zip) of the latest send; null for a loose file.';


--
-- Name: COLUMN xls_processamento.objeto_bucket; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.objeto_bucket IS 'Object-store bucket of the original; null when stored only in arquivo_bytes.';


--
-- Name: COLUMN xls_processamento.objeto_chave; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.objeto_chave IS 'Object key, content-addressed: <yyyy>/<mm>/<checksum>.xlsx (month of the first receipt, America/Sao_Paulo).';


--
-- Name: COLUMN xls_processamento.objeto_tamanho_bytes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.objeto_tamanho_bytes IS 'Size of the original file in bytes.';


--
-- Name: COLUMN xls_processamento.arquivo_bytes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.arquivo_bytes IS 'Legacy: the original file kept in the database (storage modes PSQL and PSQL_OBJSTORE). Never returned by the API.';


--
-- Name: COLUMN xls_processamento.linhas_enviadas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.linhas_enviadas IS 'Rows sent, counted in the same scope as linhas_efetivas (the rows of the type''s data tables, not the reference tables). Null before the first successful merge.';


--
-- Name: COLUMN xls_processamento.linhas_efetivas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.linhas_efetivas IS 'Rows really written (inserted or changed); an identical re-import writes 0.';


--
-- Name: COLUMN xls_processamento.linhas_removidas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.linhas_removidas IS 'Rows deleted because they are within the type''s scope and absent from the file.';


--
-- Name: COLUMN xls_processamento.metricas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.metricas IS 'Per-table detail of the latest merge: {"<tabela>": {"enviadas", "efetivas", "removidas"}}.';


--
-- Name: COLUMN xls_processamento.log_arquivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.log_arquivo IS 'Execution log, relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log (month of the first receipt, America/Sao_Paulo).';


--
-- Name: COLUMN xls_processamento.erro_mensagem; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.erro_mensagem IS 'Reason of ERRO (or IGNORADO), in pt-BR for staff.';


--
-- Name: COLUMN xls_processamento.avisos; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.avisos IS 'Warnings of the latest run: [{categoria, motivo, quantidade, linhas: [{aba, linha, valor}]}] (vehicle-registry defence, repeated keys, suspended deletions...).';


--
-- Name: COLUMN xls_processamento.linhas_rejeitadas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.linhas_rejeitadas IS 'Rows skipped as invalid: [{aba, linha, campo, valor, mensagem}], mensagem = linha <n>: <campo> ''<valor>'' inválido.';


--
-- Name: COLUMN xls_processamento.uploader_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.uploader_id IS 'Identity of who sent the file (manual import page); null through the API.';


--
-- Name: COLUMN xls_processamento.worker; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.worker IS 'app.worker id of the replica that holds (PROCESSANDO) or last ran the processing.';


--
-- Name: COLUMN xls_processamento.execucoes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.execucoes IS 'How many times the processing was started.';


--
-- Name: COLUMN xls_processamento.fk_falhas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.fk_falhas IS 'Transient foreign-key failures since the latest send (the first one in a batch is silent and retried once).';


--
-- Name: COLUMN xls_processamento.fk_retentar; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.fk_retentar IS 'ERRO by a first transient FK failure, waiting for its batch to close to be reprocessed once.';


--
-- Name: COLUMN xls_processamento.alarmar; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.alarmar IS 'The latest outcome must raise an alarm (decided by SQL; the edge sends it): every ERRO except a first transient FK failure inside a batch.';


--
-- Name: COLUMN xls_processamento.erro_codigo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.erro_codigo IS 'Code of the failure that ended the processing in ERRO (the SQLSTATE given to xls_falhar: XL424 missing registration, XL422 refused content, XL415 unreadable file, …); null otherwise. Read by public.xls_falha_explicar.';


--
-- Name: COLUMN xls_processamento.erro_anterior; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.erro_anterior IS 'The error message the processing had when it was last sent back to the queue from ERRO (reprocess, batch retry); null when it was never resent from ERRO. While it is PENDENTE or PROCESSANDO again the list shows it among the errors ("reenviado — aguardando").';


--
-- Name: COLUMN xls_processamento.retentar_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.retentar_em IS 'When an ERRO by a transient failure (the object store or the database unreachable: xls_falhar with XL503) is requeued automatically by xls_recuperar; null when no automatic retry is due.';


--
-- Name: COLUMN xls_processamento.falhas_transitorias; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.falhas_transitorias IS 'Consecutive transient failures (XL503) of this processing; the retry waits 15 s x 2^(n-1) (at most 10 min) and stops after 5, alarming. Back to 0 on SUCESSO.';


--
-- Name: COLUMN xls_processamento.desfeito_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.desfeito_em IS 'When this processing was undone (public.xls_desfazer): every row it changed is back as it was; the status stays.';


--
-- Name: COLUMN xls_processamento.desfeito_por; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.desfeito_por IS 'Who undid it: the staff member''s e-mail, "api" (Bearer) or the DBA''s text.';


--
-- Name: COLUMN xls_processamento.exclusoes_aprovadas_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.exclusoes_aprovadas_em IS 'When a person approved the removals the mass-deletion guard held (reprocess with aprovarExclusoes / "Aplicar mesmo assim"); the next run of this processing is not held.';


--
-- Name: COLUMN xls_processamento.exclusoes_aprovadas_por; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.exclusoes_aprovadas_por IS 'Who approved the held removals: e-mail, "api" or the DBA''s text.';


--
-- Name: COLUMN xls_processamento.alteracoes_expiradas_em; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.alteracoes_expiradas_em IS 'When the change set of this processing was purged by the retention (xls_alteracoes_retencao_dias): it can no longer be undone.';


--
-- Name: COLUMN xls_processamento.exclusao_retida; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento.exclusao_retida IS 'The last run ended ERRO because the mass-deletion guard held it (XL428): it would remove more than xls_exclusao_limite_percentual % (and at least xls_exclusao_limite_linhas rows) of a table''s scope. public.xls_aprovar_exclusoes reprocesses it with the guard lifted.';


--
-- Name: xls_processamento_progresso; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_processamento_progresso (
    processamento_id uuid NOT NULL,
    execucao integer NOT NULL,
    linhas_lidas integer NOT NULL,
    atualizado_em timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT xls_processamento_progresso_execucao_check CHECK ((execucao > 0)),
    CONSTRAINT xls_processamento_progresso_linhas_lidas_check CHECK ((linhas_lidas >= 0))
);


--
-- Name: TABLE xls_processamento_progresso; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_processamento_progresso IS 'Progress of a running processing, reported by the job after each chunk (xls_progresso) on its own autocommit connection: the merge transaction holds the processing row and commits only at the end. Meaningful while the processing is PROCESSANDO in the same execucao; kept afterwards (one row per processing). No foreign key to xls_processamento: checking it would wait for the merge''s lock on the processing row, so a report would land only after the commit.';


--
-- Name: COLUMN xls_processamento_progresso.execucao; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento_progresso.execucao IS 'The execution (xls_processamento.execucoes) the count belongs to: a rerun starts again from zero.';


--
-- Name: COLUMN xls_processamento_progresso.linhas_lidas; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_processamento_progresso.linhas_lidas IS 'Rows read and sent to the database so far in this execution.';


--
-- Name: xls_resetar_replicator_passo_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.xls_resetar_replicator_passo ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.xls_resetar_replicator_passo_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: xls_upload_recusa; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.xls_upload_recusa (
    id uuid DEFAULT app.uuid_v7() NOT NULL,
    recusado_em timestamp with time zone DEFAULT now() NOT NULL,
    origem text NOT NULL,
    arquivo text,
    tamanho_bytes bigint,
    uploader_id text,
    uploader_nome text,
    cliente_ip text,
    status_http integer NOT NULL,
    codigo text,
    motivo text NOT NULL,
    CONSTRAINT xls_upload_recusa_motivo_check CHECK ((btrim(motivo) <> ''::text)),
    CONSTRAINT xls_upload_recusa_origem_check CHECK ((origem = ANY (ARRAY['api'::text, 'importar'::text]))),
    CONSTRAINT xls_upload_recusa_status_http_check CHECK (((status_http >= 400) AND (status_http <= 599))),
    CONSTRAINT xls_upload_recusa_tamanho_bytes_check CHECK ((tamanho_bytes >= 0))
);


--
-- Name: TABLE xls_upload_recusa; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.xls_upload_recusa IS 'Uploads refused before anything was stored (POST /api/xls/processar, the manual import page): who, when, the file name and why. Never the refused bytes. Written by xls_upload_recusar, listed on /processamentos/recusas.';


--
-- Name: COLUMN xls_upload_recusa.origem; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_upload_recusa.origem IS 'api: POST /api/xls/processar; importar: the manual import page.';


--
-- Name: COLUMN xls_upload_recusa.uploader_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_upload_recusa.uploader_id IS 'Who sent it: the identity typed on the import page; null for the API (an integration token, no person).';


--
-- Name: COLUMN xls_upload_recusa.cliente_ip; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_upload_recusa.cliente_ip IS 'Address the request came from, as the service saw it.';


--
-- Name: COLUMN xls_upload_recusa.codigo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_upload_recusa.codigo IS 'Error code of the refusal (XL400, XL413, …), when there is one.';


--
-- Name: COLUMN xls_upload_recusa.motivo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.xls_upload_recusa.motivo IS 'The refusal as the sender got it (pt-BR).';


--
-- Name: xls_v_conjunto; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.xls_v_conjunto AS
 SELECT l.id,
    l.arquivo,
    l.recebido_em,
    l.fechado_em,
    l.fechamento_motivo,
    l.total,
    COALESCE(i.enfileirados, (0)::bigint) AS enfileirados,
    COALESCE(i.reprocessando, (0)::bigint) AS reprocessando,
    COALESCE(i.duplicados, (0)::bigint) AS duplicados,
    COALESCE(i.ignorados, (0)::bigint) AS ignorados,
    COALESCE(p.pendentes, (0)::bigint) AS pendentes,
    COALESCE(p.processando, (0)::bigint) AS processando,
    COALESCE(p.sucesso, (0)::bigint) AS sucesso,
    COALESCE(p.erro, (0)::bigint) AS erro,
    COALESCE(p.ignorado, (0)::bigint) AS ignorado,
    COALESCE(p.aguardando_fk, (0)::bigint) AS aguardando_fk,
    COALESCE(p.mestre_concluido, false) AS mestre_concluido,
    l.uploader_nome
   FROM ((public.xls_conjunto l
     LEFT JOIN LATERAL ( SELECT count(*) FILTER (WHERE (x.status = 'ENFILEIRADO'::text)) AS enfileirados,
            count(*) FILTER (WHERE (x.status = 'REPROCESSANDO'::text)) AS reprocessando,
            count(*) FILTER (WHERE (x.status = 'DUPLICADO'::text)) AS duplicados,
            count(*) FILTER (WHERE (x.status = 'IGNORADO'::text)) AS ignorados
           FROM public.xls_conjunto_item x
          WHERE (x.conjunto_id = l.id)) i ON (true))
     LEFT JOIN LATERAL ( SELECT count(*) FILTER (WHERE (y.status = 'PENDENTE'::text)) AS pendentes,
            count(*) FILTER (WHERE (y.status = 'PROCESSANDO'::text)) AS processando,
            count(*) FILTER (WHERE (y.status = 'SUCESSO'::text)) AS sucesso,
            count(*) FILTER (WHERE (y.status = 'ERRO'::text)) AS erro,
            count(*) FILTER (WHERE (y.status = 'IGNORADO'::text)) AS ignorado,
            count(*) FILTER (WHERE y.fk_retentar) AS aguardando_fk,
            bool_or(((y.status = 'SUCESSO'::text) AND public.xls_tipo_mestre(y.tipo))) AS mestre_concluido
           FROM public.xls_processamento y
          WHERE (y.conjunto_id = l.id)) p ON (true));


--
-- Name: VIEW xls_v_conjunto; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.xls_v_conjunto IS 'One row per batch (zip), for DBAs: entries by receipt status (enfileirados, reprocessando, duplicados, ignorados), its processings by current status, how many wait for the batch to close to retry a transient FK failure (aguardando_fk), whether the master report committed, and when/why it closed. Example: select * from xls_v_conjunto where fechado_em is null;';


--
-- Name: xls_v_processamento; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.xls_v_processamento AS
 SELECT p.id,
    p.status,
    p.tipo,
    p.arquivo,
    p.checksum,
    p.recebido_em,
    p.iniciado_em,
    p.finalizado_em,
    (COALESCE(p.finalizado_em,
        CASE
            WHEN (p.status = 'PROCESSANDO'::text) THEN now()
            ELSE NULL::timestamp with time zone
        END) - p.iniciado_em) AS duracao,
    p.conjunto_id,
    p.worker,
        CASE
            WHEN (p.status = 'PROCESSANDO'::text) THEN app.xls_worker_vivo(p.worker)
            ELSE NULL::boolean
        END AS worker_vivo,
    p.execucoes,
    p.linhas_enviadas,
    p.linhas_efetivas,
    p.linhas_removidas,
    jsonb_array_length(p.avisos) AS avisos,
    jsonb_array_length(p.linhas_rejeitadas) AS linhas_rejeitadas,
    p.erro_mensagem,
    p.alarmar,
    p.fk_falhas,
    p.fk_retentar,
        CASE
            WHEN ((p.objeto_chave IS NOT NULL) AND (p.arquivo_bytes IS NOT NULL)) THEN 'PSQL_OBJSTORE'::text
            WHEN (p.objeto_chave IS NOT NULL) THEN 'OBJSTORE'::text
            ELSE 'PSQL'::text
        END AS armazenamento,
    p.objeto_tamanho_bytes,
    p.log_arquivo,
    p.uploader_nome
   FROM public.xls_processamento p;


--
-- Name: VIEW xls_v_processamento; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.xls_v_processamento IS 'One row per processing, for DBAs: status, type, timings (duracao runs while PROCESSANDO), whether the holding worker is alive, metrics, counts of warnings and rejected rows, error, alarm and FK-retry state, where the original is stored. Example: select * from xls_v_processamento where status = ''ERRO'' order by recebido_em desc limit 20;';


--
-- Name: xls_v_resumo_diario; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.xls_v_resumo_diario AS
 SELECT ((p.recebido_em AT TIME ZONE 'America/Sao_Paulo'::text))::date AS dia,
    COALESCE(p.tipo, '(não detectado)'::text) AS tipo,
    p.status,
    count(*) AS processamentos,
    sum(p.linhas_enviadas) AS linhas_enviadas,
    sum(p.linhas_efetivas) AS linhas_efetivas,
    sum(p.linhas_removidas) AS linhas_removidas,
    avg((p.finalizado_em - p.iniciado_em)) AS duracao_media,
    max((p.finalizado_em - p.iniciado_em)) AS duracao_maxima
   FROM public.xls_processamento p
  GROUP BY (((p.recebido_em AT TIME ZONE 'America/Sao_Paulo'::text))::date), COALESCE(p.tipo, '(não detectado)'::text), p.status;


--
-- Name: VIEW xls_v_resumo_diario; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.xls_v_resumo_diario IS 'Processings per day of receipt (America/Sao_Paulo), type and status, with summed metrics and durations. Example: select * from xls_v_resumo_diario where dia >= current_date - 7 order by dia desc, tipo, status;';


--
-- Name: job job_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.job
    ADD CONSTRAINT job_pkey PRIMARY KEY (id);


--
-- Name: login_tentativa login_tentativa_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.login_tentativa
    ADD CONSTRAINT login_tentativa_pkey PRIMARY KEY (state);


--
-- Name: repeatable_file repeatable_file_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.repeatable_file
    ADD CONSTRAINT repeatable_file_pkey PRIMARY KEY (arquivo);


--
-- Name: replicacao_consulta replicacao_consulta_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.replicacao_consulta
    ADD CONSTRAINT replicacao_consulta_pkey PRIMARY KEY (tabela);


--
-- Name: replicacao_publicacao replicacao_publicacao_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.replicacao_publicacao
    ADD CONSTRAINT replicacao_publicacao_pkey PRIMARY KEY (nome);


--
-- Name: replicacao_slot_visto replicacao_slot_visto_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.replicacao_slot_visto
    ADD CONSTRAINT replicacao_slot_visto_pkey PRIMARY KEY (slot);


--
-- Name: sessao sessao_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.sessao
    ADD CONSTRAINT sessao_pkey PRIMARY KEY (id);


--
-- Name: worker worker_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.worker
    ADD CONSTRAINT worker_pkey PRIMARY KEY (id);


--
-- Name: xls_alteracao xls_alteracao_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_alteracao
    ADD CONSTRAINT xls_alteracao_pkey PRIMARY KEY (processamento_id, seq);


--
-- Name: xls_alvo xls_alvo_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_alvo
    ADD CONSTRAINT xls_alvo_pkey PRIMARY KEY (tipo, staging);


--
-- Name: xls_alvo xls_alvo_tipo_ordem_key; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_alvo
    ADD CONSTRAINT xls_alvo_tipo_ordem_key UNIQUE (tipo, ordem);


--
-- Name: xls_tipo xls_tipo_ordem_key; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_tipo
    ADD CONSTRAINT xls_tipo_ordem_key UNIQUE (ordem);


--
-- Name: xls_tipo xls_tipo_pkey; Type: CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_tipo
    ADD CONSTRAINT xls_tipo_pkey PRIMARY KEY (tipo);


--
-- Name: bi_centro_custo bi_centro_custo_codigo_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_centro_custo
    ADD CONSTRAINT bi_centro_custo_codigo_key UNIQUE (codigo);


--
-- Name: bi_centro_custo bi_centro_custo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_centro_custo
    ADD CONSTRAINT bi_centro_custo_pkey PRIMARY KEY (id);


--
-- Name: bi_cliente bi_cliente_codigo_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_cliente
    ADD CONSTRAINT bi_cliente_codigo_key UNIQUE (codigo);


--
-- Name: bi_cliente bi_cliente_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_cliente
    ADD CONSTRAINT bi_cliente_pkey PRIMARY KEY (id);


--
-- Name: bi_compra bi_compra_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_compra
    ADD CONSTRAINT bi_compra_nk UNIQUE (cnpj_fornecedor, nota_fiscal, produto);


--
-- Name: bi_compra bi_compra_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_compra
    ADD CONSTRAINT bi_compra_pkey PRIMARY KEY (id);


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
-- Name: bi_cota_fornecedor bi_cota_fornecedor_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_cota_fornecedor
    ADD CONSTRAINT bi_cota_fornecedor_nk UNIQUE (ano, polo, produto, mes);


--
-- Name: bi_cota_fornecedor bi_cota_fornecedor_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_cota_fornecedor
    ADD CONSTRAINT bi_cota_fornecedor_pkey PRIMARY KEY (id);


--
-- Name: bi_faturamento bi_faturamento_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_faturamento
    ADD CONSTRAINT bi_faturamento_nk UNIQUE (filial, nota_fiscal, serie, item);


--
-- Name: bi_faturamento bi_faturamento_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_faturamento
    ADD CONSTRAINT bi_faturamento_pkey PRIMARY KEY (id);


--
-- Name: bi_filial bi_filial_codigo_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_filial
    ADD CONSTRAINT bi_filial_codigo_key UNIQUE (codigo);


--
-- Name: bi_filial bi_filial_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_filial
    ADD CONSTRAINT bi_filial_pkey PRIMARY KEY (id);


--
-- Name: bi_fornecedor bi_fornecedor_cnpj_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_fornecedor
    ADD CONSTRAINT bi_fornecedor_cnpj_key UNIQUE (cnpj);


--
-- Name: bi_fornecedor bi_fornecedor_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_fornecedor
    ADD CONSTRAINT bi_fornecedor_pkey PRIMARY KEY (id);


--
-- Name: bi_margem_consolidada bi_margem_consolidada_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_margem_consolidada
    ADD CONSTRAINT bi_margem_consolidada_nk UNIQUE (competencia, filial, produto);


--
-- Name: bi_margem_consolidada bi_margem_consolidada_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_margem_consolidada
    ADD CONSTRAINT bi_margem_consolidada_pkey PRIMARY KEY (id);


--
-- Name: bi_margem_dia bi_margem_dia_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_margem_dia
    ADD CONSTRAINT bi_margem_dia_nk UNIQUE (data, filial, cliente, produto);


--
-- Name: bi_margem_dia bi_margem_dia_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_margem_dia
    ADD CONSTRAINT bi_margem_dia_pkey PRIMARY KEY (id);


--
-- Name: bi_meta_carteira bi_meta_carteira_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta_carteira
    ADD CONSTRAINT bi_meta_carteira_nk UNIQUE (competencia, cliente, produto);


--
-- Name: bi_meta_carteira bi_meta_carteira_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta_carteira
    ADD CONSTRAINT bi_meta_carteira_pkey PRIMARY KEY (id);


--
-- Name: bi_meta bi_meta_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta
    ADD CONSTRAINT bi_meta_nk UNIQUE (competencia, vendedor, produto);


--
-- Name: bi_meta bi_meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta
    ADD CONSTRAINT bi_meta_pkey PRIMARY KEY (id);


--
-- Name: bi_movimento bi_movimento_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_movimento
    ADD CONSTRAINT bi_movimento_nk UNIQUE (filial, lancamento, conta);


--
-- Name: bi_movimento bi_movimento_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_movimento
    ADD CONSTRAINT bi_movimento_pkey PRIMARY KEY (id);


--
-- Name: bi_posto bi_posto_cnpj_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_posto
    ADD CONSTRAINT bi_posto_cnpj_key UNIQUE (cnpj);


--
-- Name: bi_posto bi_posto_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_posto
    ADD CONSTRAINT bi_posto_pkey PRIMARY KEY (id);


--
-- Name: bi_produto bi_produto_codigo_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_produto
    ADD CONSTRAINT bi_produto_codigo_key UNIQUE (codigo);


--
-- Name: bi_produto bi_produto_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_produto
    ADD CONSTRAINT bi_produto_pkey PRIMARY KEY (id);


--
-- Name: bi_titulo bi_titulo_nk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_titulo
    ADD CONSTRAINT bi_titulo_nk UNIQUE (posicao, tipo, documento, parcela);


--
-- Name: bi_titulo bi_titulo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_titulo
    ADD CONSTRAINT bi_titulo_pkey PRIMARY KEY (id);


--
-- Name: bi_trr bi_trr_cnpj_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_trr
    ADD CONSTRAINT bi_trr_cnpj_key UNIQUE (cnpj);


--
-- Name: bi_trr bi_trr_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_trr
    ADD CONSTRAINT bi_trr_pkey PRIMARY KEY (id);


--
-- Name: bi_veiculo bi_veiculo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_veiculo
    ADD CONSTRAINT bi_veiculo_pkey PRIMARY KEY (id);


--
-- Name: bi_veiculo bi_veiculo_placa_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_veiculo
    ADD CONSTRAINT bi_veiculo_placa_key UNIQUE (placa);


--
-- Name: bi_vendedor bi_vendedor_codigo_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_vendedor
    ADD CONSTRAINT bi_vendedor_codigo_key UNIQUE (codigo);


--
-- Name: bi_vendedor bi_vendedor_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_vendedor
    ADD CONSTRAINT bi_vendedor_pkey PRIMARY KEY (id);


--
-- Name: destinatario destinatario_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.destinatario
    ADD CONSTRAINT destinatario_pkey PRIMARY KEY (id);


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
-- Name: partner_conciliacao_item partner_conciliacao_item_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_conciliacao_item
    ADD CONSTRAINT partner_conciliacao_item_pkey PRIMARY KEY (dia, tipo, code);


--
-- Name: partner_conciliacao partner_conciliacao_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_conciliacao
    ADD CONSTRAINT partner_conciliacao_pkey PRIMARY KEY (dia);


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
-- Name: partner_ritmo partner_ritmo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_ritmo
    ADD CONSTRAINT partner_ritmo_pkey PRIMARY KEY (tipo_dia, hora);


--
-- Name: partner_webhook partner_webhook_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_webhook
    ADD CONSTRAINT partner_webhook_pkey PRIMARY KEY (id);


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
-- Name: xls_conjunto_item xls_conjunto_item_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_conjunto_item
    ADD CONSTRAINT xls_conjunto_item_pkey PRIMARY KEY (conjunto_id, ordem);


--
-- Name: xls_conjunto xls_conjunto_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_conjunto
    ADD CONSTRAINT xls_conjunto_pkey PRIMARY KEY (id);


--
-- Name: xls_processamento xls_processamento_checksum_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_processamento
    ADD CONSTRAINT xls_processamento_checksum_key UNIQUE (checksum);


--
-- Name: xls_processamento xls_processamento_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_processamento
    ADD CONSTRAINT xls_processamento_pkey PRIMARY KEY (id);


--
-- Name: xls_processamento_progresso xls_processamento_progresso_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_processamento_progresso
    ADD CONSTRAINT xls_processamento_progresso_pkey PRIMARY KEY (processamento_id);


--
-- Name: xls_resetar_replicator_passo xls_resetar_replicator_passo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_resetar_replicator_passo
    ADD CONSTRAINT xls_resetar_replicator_passo_pkey PRIMARY KEY (id);


--
-- Name: xls_resetar_replicator_passo xls_resetar_replicator_passo_unico; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_resetar_replicator_passo
    ADD CONSTRAINT xls_resetar_replicator_passo_unico UNIQUE (execucao_id, step);


--
-- Name: xls_resetar_replicator xls_resetar_replicator_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_resetar_replicator
    ADD CONSTRAINT xls_resetar_replicator_pkey PRIMARY KEY (id);


--
-- Name: xls_upload_recusa xls_upload_recusa_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_upload_recusa
    ADD CONSTRAINT xls_upload_recusa_pkey PRIMARY KEY (id);


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
-- Name: login_tentativa_expira_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX login_tentativa_expira_idx ON app.login_tentativa USING btree (expira_em);


--
-- Name: sessao_email_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX sessao_email_idx ON app.sessao USING btree (email, criada_em DESC);


--
-- Name: sessao_expira_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX sessao_expira_idx ON app.sessao USING btree (expira_em);


--
-- Name: sessao_token_hash_key; Type: INDEX; Schema: app; Owner: -
--

CREATE UNIQUE INDEX sessao_token_hash_key ON app.sessao USING btree (token_hash);


--
-- Name: xls_alteracao_chave_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX xls_alteracao_chave_idx ON app.xls_alteracao USING btree (jsonb_hash_extended(chave, (0)::bigint), tabela) WHERE (chave IS NOT NULL);


--
-- Name: INDEX xls_alteracao_chave_idx; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON INDEX app.xls_alteracao_chave_idx IS 'Finds the ALTERADA / REMOVIDA rows of one natural key (the undo''s conflict check, xls_linhagem): 64-bit hash of chave, then tabela; the queries compare chave itself after the probe.';


--
-- Name: xls_alteracao_linha_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX xls_alteracao_linha_idx ON app.xls_alteracao USING btree (linha_id) WHERE (linha_id IS NOT NULL);


--
-- Name: INDEX xls_alteracao_linha_idx; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON INDEX app.xls_alteracao_linha_idx IS 'Finds the ALTERADA / REMOVIDA rows of one row id: the later changes of an inserted row (its values as inserted, the undo''s conflict check, xls_linhagem).';


--
-- Name: INDEX xls_alteracao_pkey; Type: COMMENT; Schema: app; Owner: -
--

COMMENT ON INDEX app.xls_alteracao_pkey IS 'One processing''s change set in the order written (public.xls_alteracoes, xls_simular_resumo, xls_desfazer, app.xls_alteracoes_expurgar); seq alone is unique too (identity).';


--
-- Name: xls_job_processamento_idx; Type: INDEX; Schema: app; Owner: -
--

CREATE INDEX xls_job_processamento_idx ON app.job USING btree (((payload ->> 'id'::text))) WHERE (kind = 'xls_processar'::text);


--
-- Name: xls_tipo_um_mestre; Type: INDEX; Schema: app; Owner: -
--

CREATE UNIQUE INDEX xls_tipo_um_mestre ON app.xls_tipo USING btree (mestre) WHERE mestre;


--
-- Name: bi_compra_data_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_compra_data_idx ON public.bi_compra USING btree (data);


--
-- Name: bi_faturamento_emissao_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_faturamento_emissao_idx ON public.bi_faturamento USING btree (emissao);


--
-- Name: bi_meta_carteira_cliente_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_meta_carteira_cliente_idx ON public.bi_meta_carteira USING btree (cliente);


--
-- Name: bi_meta_vendedor_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_meta_vendedor_idx ON public.bi_meta USING btree (vendedor);


--
-- Name: bi_movimento_data_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_movimento_data_idx ON public.bi_movimento USING btree (data);


--
-- Name: bi_titulo_atual_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bi_titulo_atual_idx ON public.bi_titulo USING btree (tipo, vencimento) WHERE atual;


--
-- Name: destinatario_email_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX destinatario_email_key ON public.destinatario USING btree (lower(email));


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
-- Name: variante_ean_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX variante_ean_idx ON public.variante USING btree (ean) WHERE (ean IS NOT NULL);


--
-- Name: variante_produto_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX variante_produto_idx ON public.variante USING btree (produto_id);


--
-- Name: xls_conjunto_item_processamento_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_conjunto_item_processamento_idx ON public.xls_conjunto_item USING btree (processamento_id) WHERE (processamento_id IS NOT NULL);


--
-- Name: xls_processamento_conjunto_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_conjunto_idx ON public.xls_processamento USING btree (conjunto_id) WHERE (conjunto_id IS NOT NULL);


--
-- Name: xls_processamento_erros_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_erros_idx ON public.xls_processamento USING btree (recebido_em DESC, id DESC) WHERE ((status = 'ERRO'::text) OR ((status = ANY (ARRAY['PENDENTE'::text, 'PROCESSANDO'::text])) AND (erro_anterior IS NOT NULL)));


--
-- Name: xls_processamento_erros_tipo_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_erros_tipo_idx ON public.xls_processamento USING btree (tipo, recebido_em DESC, id DESC) WHERE ((status = 'ERRO'::text) OR ((status = ANY (ARRAY['PENDENTE'::text, 'PROCESSANDO'::text])) AND (erro_anterior IS NOT NULL)));


--
-- Name: xls_processamento_recebido_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_recebido_idx ON public.xls_processamento USING btree (recebido_em DESC, id DESC);


--
-- Name: xls_processamento_retentar_em; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_retentar_em ON public.xls_processamento USING btree (retentar_em) WHERE (retentar_em IS NOT NULL);


--
-- Name: xls_processamento_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_status_idx ON public.xls_processamento USING btree (status, recebido_em DESC, id DESC);


--
-- Name: xls_processamento_status_tipo_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_status_tipo_idx ON public.xls_processamento USING btree (status, tipo, recebido_em DESC, id DESC);


--
-- Name: xls_processamento_tipo_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_processamento_tipo_idx ON public.xls_processamento USING btree (tipo, recebido_em DESC, id DESC);


--
-- Name: xls_resetar_replicator_iniciado_em_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_resetar_replicator_iniciado_em_idx ON public.xls_resetar_replicator USING btree (iniciado_em DESC, id DESC);


--
-- Name: xls_resetar_replicator_um_em_andamento; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX xls_resetar_replicator_um_em_andamento ON public.xls_resetar_replicator USING btree ((true)) WHERE (status = 'EM_ANDAMENTO'::text);


--
-- Name: xls_upload_recusa_recusado_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX xls_upload_recusa_recusado_idx ON public.xls_upload_recusa USING btree (recusado_em DESC, id DESC);


--
-- Name: bi_centro_custo _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_centro_custo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_cliente _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_cliente FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_compra _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_compra FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_cota_fornecedor _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_cota_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_faturamento _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_faturamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_filial _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_filial FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_fornecedor _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_fornecedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_margem_consolidada _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_margem_consolidada FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_margem_dia _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_margem_dia FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_meta _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_meta FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_meta_carteira _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_meta_carteira FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_movimento _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_movimento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_posto _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_posto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_produto _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_titulo _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_titulo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_trr _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_trr FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_veiculo _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_veiculo FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: bi_vendedor _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.bi_vendedor FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: destinatario _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.destinatario FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: partner_configuracao _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: partner_pedido _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.partner_pedido FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: produto _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.produto FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: variante _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.variante FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: xls_processamento _100_touch; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_touch BEFORE UPDATE ON public.xls_processamento FOR EACH ROW EXECUTE FUNCTION app.tg__touch_atualizado_em();


--
-- Name: xls_processamento _100_xls_alteracao_apagar; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _100_xls_alteracao_apagar AFTER DELETE ON public.xls_processamento REFERENCING OLD TABLE AS velhos FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_processamento__alteracoes_apagar();


--
-- Name: xls_processamento _900_notificar_bot; Type: TRIGGER; Schema: public; Owner: -
--

CREATE CONSTRAINT TRIGGER _900_notificar_bot AFTER UPDATE OF status ON public.xls_processamento DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) AND (new.status = ANY (ARRAY['SUCESSO'::text, 'ERRO'::text, 'IGNORADO'::text])))) EXECUTE FUNCTION app.tg_xls_processamento__notificar_bot();


--
-- Name: bi_configuracao _900_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_notify AFTER INSERT OR DELETE OR UPDATE ON public.bi_configuracao FOR EACH ROW EXECUTE FUNCTION app.tg_bi_configuracao__notify();


--
-- Name: bi_centro_custo _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_centro_custo REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cliente _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_cliente REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_compra _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_compra REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cota_fornecedor _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_cota_fornecedor REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_faturamento _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_faturamento REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_filial _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_filial REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_fornecedor _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_fornecedor REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_consolidada _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_margem_consolidada REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_dia _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_margem_dia REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_meta REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta_carteira _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_meta_carteira REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_movimento _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_movimento REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_posto _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_posto REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_produto _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_produto REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_titulo _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_titulo REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_trr _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_trr REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_veiculo _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_veiculo REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_vendedor _900_xls_alteracao_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_del AFTER DELETE ON public.bi_vendedor REFERENCING OLD TABLE AS velhas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_centro_custo _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_centro_custo REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cliente _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_cliente REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_compra _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_compra REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cota_fornecedor _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_cota_fornecedor REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_faturamento _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_faturamento REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_filial _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_filial REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_fornecedor _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_fornecedor REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_consolidada _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_margem_consolidada REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_dia _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_margem_dia REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_meta REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta_carteira _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_meta_carteira REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_movimento _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_movimento REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_posto _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_posto REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_produto _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_produto REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_titulo _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_titulo REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_trr _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_trr REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_veiculo _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_veiculo REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_vendedor _900_xls_alteracao_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_ins AFTER INSERT ON public.bi_vendedor REFERENCING NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_centro_custo _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_centro_custo REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cliente _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_cliente REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_compra _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_compra REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_cota_fornecedor _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_cota_fornecedor REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_faturamento _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_faturamento REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_filial _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_filial REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_fornecedor _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_fornecedor REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_consolidada _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_margem_consolidada REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_margem_dia _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_margem_dia REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_meta REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_meta_carteira _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_meta_carteira REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_movimento _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_movimento REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_posto _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_posto REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_produto _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_produto REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_titulo _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_titulo REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_trr _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_trr REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_veiculo _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_veiculo REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: bi_vendedor _900_xls_alteracao_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER _900_xls_alteracao_upd AFTER UPDATE ON public.bi_vendedor REFERENCING OLD TABLE AS velhas NEW TABLE AS novas FOR EACH STATEMENT EXECUTE FUNCTION app.tg__xls_alteracao();


--
-- Name: xls_alvo xls_alvo_fonte_fkey; Type: FK CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_alvo
    ADD CONSTRAINT xls_alvo_fonte_fkey FOREIGN KEY (tipo, fonte) REFERENCES app.xls_alvo(tipo, staging);


--
-- Name: xls_alvo xls_alvo_tipo_fkey; Type: FK CONSTRAINT; Schema: app; Owner: -
--

ALTER TABLE ONLY app.xls_alvo
    ADD CONSTRAINT xls_alvo_tipo_fkey FOREIGN KEY (tipo) REFERENCES app.xls_tipo(tipo);


--
-- Name: bi_compra bi_compra_cnpj_fornecedor_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_compra
    ADD CONSTRAINT bi_compra_cnpj_fornecedor_fkey FOREIGN KEY (cnpj_fornecedor) REFERENCES public.bi_fornecedor(cnpj);


--
-- Name: bi_meta_carteira bi_meta_carteira_cliente_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta_carteira
    ADD CONSTRAINT bi_meta_carteira_cliente_fkey FOREIGN KEY (cliente) REFERENCES public.bi_cliente(codigo);


--
-- Name: bi_meta bi_meta_vendedor_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bi_meta
    ADD CONSTRAINT bi_meta_vendedor_fkey FOREIGN KEY (vendedor) REFERENCES public.bi_vendedor(codigo);


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
-- Name: partner_conciliacao_item partner_conciliacao_item_dia_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_conciliacao_item
    ADD CONSTRAINT partner_conciliacao_item_dia_fkey FOREIGN KEY (dia) REFERENCES public.partner_conciliacao(dia) ON DELETE CASCADE;


--
-- Name: partner_pedido_transicao partner_pedido_transicao_pedido_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partner_pedido_transicao
    ADD CONSTRAINT partner_pedido_transicao_pedido_id_fkey FOREIGN KEY (pedido_id) REFERENCES public.partner_pedido(id) ON DELETE CASCADE;


--
-- Name: variante variante_produto_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.variante
    ADD CONSTRAINT variante_produto_id_fkey FOREIGN KEY (produto_id) REFERENCES public.produto(id) ON DELETE CASCADE;


--
-- Name: xls_conjunto_item xls_conjunto_item_conjunto_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_conjunto_item
    ADD CONSTRAINT xls_conjunto_item_conjunto_id_fkey FOREIGN KEY (conjunto_id) REFERENCES public.xls_conjunto(id) ON DELETE CASCADE;


--
-- Name: xls_conjunto_item xls_conjunto_item_processamento_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_conjunto_item
    ADD CONSTRAINT xls_conjunto_item_processamento_id_fkey FOREIGN KEY (processamento_id) REFERENCES public.xls_processamento(id) ON DELETE SET NULL;


--
-- Name: xls_processamento xls_processamento_conjunto_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_processamento
    ADD CONSTRAINT xls_processamento_conjunto_id_fkey FOREIGN KEY (conjunto_id) REFERENCES public.xls_conjunto(id) ON DELETE SET NULL;


--
-- Name: xls_processamento xls_processamento_tipo_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_processamento
    ADD CONSTRAINT xls_processamento_tipo_fkey FOREIGN KEY (tipo) REFERENCES app.xls_tipo(tipo);


--
-- Name: xls_resetar_replicator_passo xls_resetar_replicator_passo_execucao_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.xls_resetar_replicator_passo
    ADD CONSTRAINT xls_resetar_replicator_passo_execucao_id_fkey FOREIGN KEY (execucao_id) REFERENCES public.xls_resetar_replicator(id) ON DELETE CASCADE;


--
-- Name: powersync; Type: PUBLICATION; Schema: -; Owner: -
--

CREATE PUBLICATION powersync WITH (publish = 'insert, update, delete, truncate');


--
-- Name: PUBLICATION powersync; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON PUBLICATION powersync IS 'Publication of the sync engine: every bi_* table of public, also those created later (event trigger _200_bi_publicar), and nothing else.';


--
-- Name: powersync bi_centro_custo; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_centro_custo;


--
-- Name: powersync bi_cliente; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_cliente;


--
-- Name: powersync bi_compra; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_compra;


--
-- Name: powersync bi_configuracao; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_configuracao;


--
-- Name: powersync bi_cota_fornecedor; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_cota_fornecedor;


--
-- Name: powersync bi_faturamento; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_faturamento;


--
-- Name: powersync bi_filial; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_filial;


--
-- Name: powersync bi_fornecedor; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_fornecedor;


--
-- Name: powersync bi_margem_consolidada; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_margem_consolidada;


--
-- Name: powersync bi_margem_dia; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_margem_dia;


--
-- Name: powersync bi_meta; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_meta;


--
-- Name: powersync bi_meta_carteira; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_meta_carteira;


--
-- Name: powersync bi_movimento; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_movimento;


--
-- Name: powersync bi_posto; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_posto;


--
-- Name: powersync bi_produto; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_produto;


--
-- Name: powersync bi_titulo; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_titulo;


--
-- Name: powersync bi_trr; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_trr;


--
-- Name: powersync bi_veiculo; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_veiculo;


--
-- Name: powersync bi_vendedor; Type: PUBLICATION TABLE; Schema: public; Owner: -
--

ALTER PUBLICATION powersync ADD TABLE ONLY public.bi_vendedor;


--
-- Name: _100_bi_grant_sync_reader; Type: EVENT TRIGGER; Schema: -; Owner: -
--

CREATE EVENT TRIGGER _100_bi_grant_sync_reader ON ddl_command_end
         WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE')
   EXECUTE FUNCTION app.tg__grant_bi_select();


--
-- Name: _200_bi_publicar; Type: EVENT TRIGGER; Schema: -; Owner: -
--

CREATE EVENT TRIGGER _200_bi_publicar ON ddl_command_end
         WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE')
   EXECUTE FUNCTION app.tg__publicar_bi();


--
-- Name: _300_bi_alteracoes; Type: EVENT TRIGGER; Schema: -; Owner: -
--

CREATE EVENT TRIGGER _300_bi_alteracoes ON ddl_command_end
         WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
   EXECUTE FUNCTION app.tg__bi_alteracoes_evento();


--
-- PostgreSQL database dump complete
--

\unrestrict dbmate


--
-- Dbmate schema migrations
--

INSERT INTO public.schema_migrations (version) VALUES
    ('20261124200000'),
    ('20261125100000'),
    ('20261125110000'),
    ('20261125110100'),
    ('20261125110200'),
    ('20261125300000'),
    ('20261125500000'),
    ('20261125500100'),
    ('20261125700000'),
    ('20261125700100'),
    ('20261125800000'),
    ('20261125800100'),
    ('20261125800200'),
    ('20261125800300'),
    ('20261125900000'),
    ('20261125900100'),
    ('20261126000000'),
    ('20261127000000'),
    ('20261128000000'),
    ('20261129000000'),
    ('20261129360000'),
    ('20261129360100'),
    ('20261129360200'),
    ('20261201100000'),
    ('20261202100000'),
    ('20261202100100');
