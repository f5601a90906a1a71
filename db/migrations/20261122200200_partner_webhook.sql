-- migrate:up
set local lock_timeout = '5s';

-- Area B: intake of the order platform's webhook, normalisation into orders, and the gate.
-- Data flows one way: partner_webhook_receber (stores, answers) -> job partner_normalizar
-- (one coalescing job: partner_webhook_normalizar_lote until partner_normalizar_concluir)
-- -> partner_webhook_normalizar -> partner_pedido_observar (idempotent by code, newest
-- updated_at wins) -> gate. The REST poll and the contingency feed partner_pedido_observar too.

------------------------------------------------------------------------------------------
-- Settings (written by every replica at boot from its environment; see docs/webhook.md)
------------------------------------------------------------------------------------------
create table public.partner_configuracao (
  id boolean primary key default true check (id),
  watchdog_habilitado boolean not null default false,
  limite_min_comercial integer not null default 45 check (limite_min_comercial > 0),
  limite_horas integer not null default 24 check (limite_horas > 0),
  contingencia_apos_min_comercial integer not null default 15 check (contingencia_apos_min_comercial > 0),
  contingencia_intervalo_min integer not null default 5 check (contingencia_intervalo_min > 0),
  poll_intervalo_horas integer not null default 6 check (poll_intervalo_horas > 0),
  aviso_retorno_max interval not null default interval '1 hour',
  puxada_janela_inicial interval not null default interval '24 hours',
  gate_primeira_captura_desde timestamptz,
  api_configurada boolean not null default false,
  monitorando_desde timestamptz,
  atualizado_em timestamptz not null default now()
);
comment on table public.partner_configuracao is 'One row: the settings of the order-webhook watchdog, contingency, poll and gate, as SQL needs them (pg_cron runs the decisions without the application). Every replica writes it at boot from its environment (partner_configurar); a DBA change lasts until the next boot.';
comment on column public.partner_configuracao.monitorando_desde is 'Start of the watch when no webhook was ever received: silence is measured from here until the first event.';
comment on column public.partner_configuracao.api_configurada is 'PARTNER_API_URL and PARTNER_API_TOKEN are set: the REST poll and the contingency may run.';
comment on column public.partner_configuracao.gate_primeira_captura_desde is 'PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: an order first seen already paid, with paid_at at or after this instant, is released by the gate. Null = rescue off.';
insert into public.partner_configuracao default values;

create trigger _100_touch before update on public.partner_configuracao
  for each row execute function public.tg__touch_atualizado_em();

create function public.partner_configurar(
  p_watchdog_habilitado boolean,
  p_limite_min_comercial integer,
  p_limite_horas integer,
  p_contingencia_apos_min_comercial integer,
  p_contingencia_intervalo_min integer,
  p_poll_intervalo_horas integer,
  p_gate_primeira_captura_desde text,
  p_api_configurada boolean,
  p_agora timestamptz default now())
returns public.partner_configuracao
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
$$;
comment on function public.partner_configurar(boolean, integer, integer, integer, integer, integer, text, boolean, timestamptz) is 'Writes the settings row from the environment of a booting replica. p_gate_primeira_captura_desde: an ISO date (midnight America/Sao_Paulo) or instant, empty/null = off; invalid -> PW400. Sets monitorando_desde on the first call.';

------------------------------------------------------------------------------------------
-- Raw store
------------------------------------------------------------------------------------------
create table public.partner_webhook (
  id uuid primary key default gen_random_uuid(),
  recebido_em timestamptz not null default clock_timestamp(),
  corpo bytea not null,
  content_type text,
  ip text,
  user_agent text,
  situacao text not null default 'PENDENTE' check (situacao in ('PENDENTE', 'NORMALIZADO', 'REVISAR')),
  resultado text,
  detalhe text,
  evento text,
  code text,
  payload jsonb,
  processado_em timestamptz,
  tentativas integer not null default 0,
  proxima_tentativa_em timestamptz,
  constraint partner_webhook_processado check ((situacao = 'PENDENTE') = (processado_em is null))
);
comment on table public.partner_webhook is 'Every delivery of the order platform''s webhook, stored byte for byte before the 200 answer (the platform disables the webhook after one failed delivery and never resends). situacao: PENDENTE (not normalised yet), NORMALIZADO, REVISAR (stored but not understood: see resultado/detalhe). max(recebido_em) is what the watchdog watches.';
comment on column public.partner_webhook.corpo is 'The request body exactly as received (any bytes, even invalid JSON or UTF-8). Read it with convert_from(corpo, ''UTF8'') or the payload column.';
comment on column public.partner_webhook.resultado is 'NORMALIZADO: criado | atualizado | obsoleto (older updated_at, state kept) | repetido (same updated_at and status). REVISAR: json_invalido | formato_desconhecido | evento_desconhecido | pedido_invalido | erro_interno.';
comment on column public.partner_webhook.payload is 'The body parsed as JSON, when it is JSON (filled by the normalisation).';
comment on column public.partner_webhook.tentativas is 'Failed normalisation attempts (unexpected errors, e.g. a lock timeout); retried with backoff at proxima_tentativa_em, REVISAR (resultado erro_interno) after 8.';
create index partner_webhook_recebido_em_idx on public.partner_webhook (recebido_em);
create index partner_webhook_pendente_idx on public.partner_webhook (recebido_em) where situacao = 'PENDENTE';
create index partner_webhook_revisar_idx on public.partner_webhook (recebido_em) where situacao = 'REVISAR';
create index partner_webhook_code_idx on public.partner_webhook (code) where code is not null;

------------------------------------------------------------------------------------------
-- Orders
------------------------------------------------------------------------------------------
create function app.partner_status_ordem(p_status text) returns integer
language sql immutable
set search_path to pg_catalog, pg_temp
as $$
  select case p_status
    when 'waiting_payment' then 1 when 'refused' then 2 when 'received' then 3 when 'invoiced' then 4
    when 'shipped' then 5 when 'delivered' then 6 when 'cancelled' then 7 end;
$$;
comment on function app.partner_status_ordem(text) is 'Lifecycle rank of a platform order status; breaks ties between two observations with the same updated_at (the later stage wins), so the final state never depends on arrival order. Null for an unknown status.';

create function app.partner_status_pago(p_status text) returns boolean
language sql immutable
set search_path to pg_catalog, pg_temp
as $$ select p_status in ('received', 'invoiced', 'shipped', 'delivered') $$;
comment on function app.partner_status_pago(text) is 'The platform status says the order is paid (received or a later stage).';

create table public.partner_pedido (
  id uuid primary key default gen_random_uuid(),
  code text not null,
  estado text not null check (estado in ('CAPTURADO', 'ENFILEIRADO', 'CANCELADO')),
  status text not null check (app.partner_status_ordem(status) is not null),
  total numeric(14, 2),
  pago_em timestamptz,
  atualizado_no_parceiro timestamptz not null,
  cliente_nome text,
  cliente_email text,
  cliente_documento text,
  itens jsonb not null default '[]',
  recurso jsonb not null,
  origem text not null check (origem in ('webhook', 'poll', 'contingencia', 'manual')),
  nao_pago_visto_em timestamptz,
  recebido_visto_em timestamptz,
  enfileirado_em timestamptz,
  enfileirado_por text,
  liberacao text check (liberacao in ('gate_transicao', 'gate_resgate_primeira_captura', 'console')),
  criado_em timestamptz not null default now(),
  atualizado_em timestamptz not null default now(),
  constraint partner_pedido_code_key unique (code),
  constraint partner_pedido_liberacao check ((liberacao is null) = (enfileirado_em is null))
);
comment on table public.partner_pedido is 'Orders of the order platform, one row per code (the idempotency key), holding the newest observation (highest updated_at; ties broken by lifecycle rank). estado is local: CAPTURADO (known, not released), ENFILEIRADO (released to the fulfilment queue), CANCELADO.';
comment on column public.partner_pedido.status is 'Platform status of the newest observation: waiting_payment, refused, received, invoiced, shipped, delivered, cancelled.';
comment on column public.partner_pedido.origem is 'Path of the newest observation: webhook, poll (6-hourly REST), contingencia (REST while the webhook is silent), manual.';
comment on column public.partner_pedido.nao_pago_visto_em is 'Earliest updated_at observed with an unpaid status (waiting_payment, refused). With recebido_visto_em it is the gate''s evidence of the transition to received.';
comment on column public.partner_pedido.recebido_visto_em is 'Latest updated_at observed with status received.';
comment on column public.partner_pedido.liberacao is 'Why the order was released: gate_transicao (transition to received witnessed), gate_resgate_primeira_captura (PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE), console (Enfileirar).';
create index partner_pedido_estado_idx on public.partner_pedido (estado, atualizado_em);

create trigger _100_touch before update on public.partner_pedido
  for each row execute function public.tg__touch_atualizado_em();

create table public.partner_pedido_transicao (
  id bigint generated always as identity primary key,
  pedido_id uuid not null references public.partner_pedido (id) on delete cascade,
  de text,
  para text not null,
  motivo text not null,
  em timestamptz not null default now()
);
comment on table public.partner_pedido_transicao is 'History of the local state of each order (de -> para, with the reason: captura, gate_transicao, gate_resgate_primeira_captura, console, cancelamento).';
create index partner_pedido_transicao_pedido_idx on public.partner_pedido_transicao (pedido_id, id);

create function app.partner_instante(p_valor jsonb, p_campo text) returns timestamptz
language plpgsql stable
set search_path to pg_catalog, pg_temp
as $$
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
comment on function app.partner_instante(jsonb, text) is 'Parses an ISO-8601 instant of a platform payload (without an offset: the session time zone); PW422 naming the field when it is not one. JSON null -> null.';

create function app.partner_numero(p_valor jsonb, p_campo text) returns numeric
language plpgsql immutable
set search_path to pg_catalog, pg_temp
as $$
begin
  if p_valor is null or jsonb_typeof(p_valor) = 'null' then
    return null;
  end if;
  if jsonb_typeof(p_valor) = 'number' or (jsonb_typeof(p_valor) = 'string' and p_valor #>> '{}' ~ '^\s*-?\d+(\.\d+)?\s*$') then
    return (p_valor #>> '{}')::numeric;
  end if;
  raise exception 'campo % não é um número: %', p_campo, left(p_valor::text, 100) using errcode = 'PW422';
end;
$$;
comment on function app.partner_numero(jsonb, text) is 'Parses a number (JSON number or numeric string) of a platform payload; PW422 naming the field otherwise. JSON null -> null.';

create function app.partner_transicao(p_pedido public.partner_pedido, p_para text, p_motivo text, p_agora timestamptz,
  p_por text default null)
returns public.partner_pedido
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function app.partner_transicao(public.partner_pedido, text, text, timestamptz, text) is 'Moves an order to another local state and records it in partner_pedido_transicao; a release sends NOTIFY partner_pedidos (payload: the code) as a wake-up hint for the fulfilment queue.';

create function app.partner_gate(p_pedido public.partner_pedido, p_agora timestamptz)
returns public.partner_pedido
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function app.partner_gate(public.partner_pedido, timestamptz) is 'The release rule. A CAPTURADO order whose newest status is paid is released (ENFILEIRADO) when the transition to received was witnessed: an unpaid observation (waiting_payment/refused) older than a received one, whatever their arrival order; or, when partner_configuracao.gate_primeira_captura_desde is set, when its paid_at is at or after that instant. Otherwise it stays CAPTURADO until Enfileirar.';

create function public.partner_pedido_observar(p_recurso jsonb, p_origem text, p_evento text default null,
  p_tempo_evento jsonb default null, p_agora timestamptz default clock_timestamp())
returns text
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_pedido_observar(jsonb, text, text, jsonb, timestamptz) is 'The one idempotent normalisation path (webhook, poll, contingency): upserts the order by code. The newest observation (updated_at, then lifecycle rank) wins; an older one never overwrites the state but still counts as gate evidence. Returns criado | atualizado | obsoleto | repetido. A payload it cannot read raises PW422 (no code, unknown status, bad date or number). p_evento fills a missing status (order.paid -> received, order.cancelled -> cancelled); p_tempo_evento (the event''s time) stands in for a missing updated_at. A newer cancelled status moves the order to CANCELADO; then the gate decides.';

------------------------------------------------------------------------------------------
-- Intake and normalisation of stored events
------------------------------------------------------------------------------------------
create function public.partner_webhook_receber(p_corpo bytea, p_content_type text default null,
  p_ip text default null, p_user_agent text default null)
returns uuid
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_webhook_receber(bytea, text, text, text) is 'Intake of POST /webhook/partner: stores the raw body (recebido_em = clock time) and makes sure the normalisation job runs (job partner_normalizar with unique key lote: a no-op when one is pending or running; NOTIFY app_jobs), in the caller''s transaction. Returns the event id the edge answers with. Never fails on the content of the body.';

create function public.partner_webhook_normalizar(p_id uuid, p_agora timestamptz default clock_timestamp())
returns text
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_webhook_normalizar(uuid, timestamptz) is 'Normalises one stored event. Idempotent: an event no longer PENDENTE returns its result. A body that is not JSON, not an object, an unknown event or an unreadable order is flagged REVISAR with the reason; unexpected errors propagate (partner_webhook_normalizar_lote retries them). Returns the resultado.';

create function app.partner_normalizar_trava() returns bigint
language sql immutable
set search_path to pg_catalog, pg_temp
as $$ select 7245501::bigint $$;
comment on function app.partner_normalizar_trava() is 'Advisory-lock key between the intake (shared) and the end of the normalisation job (exclusive), so that no stored event is left without a job.';

create function public.partner_webhook_normalizar_lote(p_limite integer default 50, p_agora timestamptz default null)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_webhook_normalizar_lote(integer, timestamptz) is 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work). An unexpected error on one event does not stop the batch: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';

create function public.partner_normalizar_concluir(p_worker text, p_job bigint) returns boolean
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_normalizar_concluir(text, bigint) is 'End of the partner_normalizar job: under the exclusive advisory lock (no intake in flight), either there is still due work (false: the job goes on) or the job is completed in this same transaction (true), so an event stored afterwards always enqueues a new job. Events waiting for a retry are picked up by partner_tick.';

create function public.partner_webhook_reprocessar(p_id uuid) returns uuid
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_webhook_reprocessar(uuid) is 'For DBAs, after fixing what made an event REVISAR (e.g. a corrected corpo): back to PENDENTE and normalised again. PW404 unknown id; PW409 not in REVISAR.';

create function public.partner_pedido_enfileirar(p_code text, p_por text default 'console', p_agora timestamptz default now())
returns public.partner_pedido
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_pedido_enfileirar(text, text, timestamptz) is 'Enfileirar (orders console, POST /api/pedidos/{code}/enfileirar): releases a CAPTURADO order whose platform status is paid. PD404 unknown code; PD409 not CAPTURADO (already ENFILEIRADO or CANCELADO: a second click is refused, nothing changes); PD422 not paid. p_por names who released it.';

-- migrate:down
set local lock_timeout = '5s';
drop function public.partner_pedido_enfileirar(text, text, timestamptz);
drop function public.partner_webhook_reprocessar(uuid);
drop function public.partner_normalizar_concluir(text, bigint);
drop function public.partner_webhook_normalizar_lote(integer, timestamptz);
drop function app.partner_normalizar_trava();
drop function public.partner_webhook_normalizar(uuid, timestamptz);
drop function public.partner_webhook_receber(bytea, text, text, text);
drop function public.partner_pedido_observar(jsonb, text, text, jsonb, timestamptz);
drop function app.partner_gate(public.partner_pedido, timestamptz);
drop function app.partner_transicao(public.partner_pedido, text, text, timestamptz, text);
drop function app.partner_numero(jsonb, text);
drop function app.partner_instante(jsonb, text);
drop table public.partner_pedido_transicao;
drop table public.partner_pedido;
drop function app.partner_status_pago(text);
drop function app.partner_status_ordem(text);
drop table public.partner_webhook;
drop function public.partner_configurar(boolean, integer, integer, integer, integer, integer, text, boolean, timestamptz);
drop table public.partner_configuracao;
