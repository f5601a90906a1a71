-- migrate:up
set local lock_timeout = '5s';

-- Area B: watchdog (silence episodes and their alerts), contingency, REST poll.
-- Every decision is a SQL function of the current time (p_agora), run every minute by
-- pg_cron through partner_tick; the edge only does the network part of the jobs it is
-- given (partner_aviso: log, error tracker, e-mail; partner_puxar: the platform's REST API).

create table public.partner_episodio (
  id bigint generated always as identity primary key,
  silencio_desde timestamptz not null,
  aberto_em timestamptz not null,
  motivo text not null check (motivo in ('limite_min_comercial', 'limite_horas')),
  minutos_comerciais numeric not null,
  fechado_em timestamptz,
  retorno_em timestamptz,
  aviso_retorno boolean,
  constraint partner_episodio_fechado check ((fechado_em is null) = (retorno_em is null))
);
comment on table public.partner_episodio is 'Silence episodes of the webhook: opened (one alert ''Webhook parado'') when the silence since max(partner_webhook.recebido_em) reaches the business-minute limit or the hour net; closed by itself when max(recebido_em) advances. At most one open.';
comment on column public.partner_episodio.retorno_em is 'recebido_em of the first event after the silence.';
comment on column public.partner_episodio.aviso_retorno is 'Whether ''Webhook voltou a funcionar'' was sent: only when the return was at most partner_configuracao.aviso_retorno_max old when the episode closed.';
create unique index partner_episodio_aberto_key on public.partner_episodio ((true)) where fechado_em is null;

create table public.partner_contingencia (
  id bigint generated always as identity primary key,
  silencio_desde timestamptz not null,
  ligada_em timestamptz not null,
  desligada_em timestamptz,
  retorno_em timestamptz
);
comment on table public.partner_contingencia is 'Contingency periods: switched on after contingencia_apos_min_comercial business minutes of silence (orders pulled by REST every contingencia_intervalo_min minutes), off when the webhook returns. At most one on.';
create unique index partner_contingencia_ligada_key on public.partner_contingencia ((true)) where desligada_em is null;

create table public.partner_aviso (
  id bigint generated always as identity primary key,
  tipo text not null check (tipo in ('webhook_parado', 'webhook_voltou', 'contingencia_ligada', 'contingencia_desligada')),
  episodio_id bigint references public.partner_episodio (id) on delete cascade,
  contingencia_id bigint references public.partner_contingencia (id) on delete cascade,
  criado_em timestamptz not null,
  dados jsonb not null default '{}',
  registrado_em timestamptz,
  rastreador_em timestamptz,
  concluido_em timestamptz
);
comment on table public.partner_aviso is 'Outbox of the watchdog: each row is one notice decided by SQL, carried out once by the job partner_aviso (one job per notice, claimed once across replicas): the log line, the error-tracker event (webhook_parado) and the e-mails (partner_aviso_envio).';
create index partner_aviso_episodio_idx on public.partner_aviso (episodio_id);

create table public.partner_aviso_envio (
  aviso_id bigint not null references public.partner_aviso (id) on delete cascade,
  email text not null,
  enviado_em timestamptz,
  tentativas integer not null default 0,
  erro text,
  primary key (aviso_id, email)
);
comment on table public.partner_aviso_envio is 'One e-mail of a notice per recipient (the active public.destinatario rows when the notice was decided). enviado_em null = not delivered yet; a retry of the job sends only these.';

create table public.partner_puxada (
  id bigint generated always as identity primary key,
  motivo text not null check (motivo in ('poll', 'contingencia', 'manual')),
  solicitada_em timestamptz not null,
  job_id bigint,
  status text not null default 'PENDENTE' check (status in ('PENDENTE', 'EM_ANDAMENTO', 'CONCLUIDA', 'ERRO')),
  atualizado_desde timestamptz,
  iniciada_em timestamptz,
  concluida_em timestamptz,
  tentativas integer not null default 0,
  paginas integer not null default 0,
  pedidos integer not null default 0,
  criados integer not null default 0,
  atualizados integer not null default 0,
  obsoletos integer not null default 0,
  repetidos integer not null default 0,
  invalidos integer not null default 0,
  erro text
);
comment on table public.partner_puxada is 'Pulls of orders from the platform''s REST API (GET /orders?updated_since=&page=): the 6-hourly poll, the contingency pulls and manual ones. Orders go through partner_pedido_observar, like the webhook''s. erro: the last failure (a failing pull is retried by its job; ERRO when it gave up).';
create index partner_puxada_motivo_idx on public.partner_puxada (motivo, solicitada_em);

------------------------------------------------------------------------------------------
-- Notices
------------------------------------------------------------------------------------------
create function app.partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamptz)
returns bigint
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function app.partner_aviso_criar(text, bigint, bigint, jsonb, timestamptz) is 'Records a notice, its e-mails (one per active recipient, for webhook_parado and webhook_voltou) and enqueues the job that carries it out.';

create function public.partner_aviso_carregar(p_id bigint) returns jsonb
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  select jsonb_build_object(
    'id', a.id, 'tipo', a.tipo, 'criado_em', a.criado_em, 'dados', a.dados,
    'registrado_em', a.registrado_em, 'rastreador_em', a.rastreador_em, 'concluido_em', a.concluido_em,
    'episodio', (select to_jsonb(e) from public.partner_episodio e where e.id = a.episodio_id),
    'contingencia', (select to_jsonb(c) from public.partner_contingencia c where c.id = a.contingencia_id),
    'pendentes', coalesce((select jsonb_agg(v.email order by v.email) from public.partner_aviso_envio v
                            where v.aviso_id = a.id and v.enviado_em is null), '[]'))
  from public.partner_aviso a where a.id = p_id;
$$;
comment on function public.partner_aviso_carregar(bigint) is 'What the partner_aviso job needs to carry out a notice: the notice, its episode or contingency period, and the recipients still to be mailed. Null for an unknown id.';

create function public.partner_aviso_marcar(p_id bigint, p_etapa text, p_agora timestamptz default now()) returns void
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_aviso_marcar(bigint, text, timestamptz) is 'Records that a step of a notice is done (registrado: log line; rastreador: error-tracker event; concluido: every step), so a retried job does not repeat it.';

create function public.partner_aviso_envio_resultado(p_id bigint, p_email text, p_erro text default null,
  p_agora timestamptz default now()) returns void
language sql volatile
set search_path to pg_catalog, public, pg_temp
as $$
  update public.partner_aviso_envio set
    enviado_em = case when p_erro is null then p_agora else enviado_em end,
    tentativas = tentativas + 1,
    erro = left(p_erro, 1000)
  where aviso_id = p_id and email = p_email and enviado_em is null;
$$;
comment on function public.partner_aviso_envio_resultado(bigint, text, text, timestamptz) is 'Records the outcome of one e-mail of a notice: delivered (p_erro null) or the error of this attempt.';

------------------------------------------------------------------------------------------
-- Pulls (REST poll and contingency)
------------------------------------------------------------------------------------------
create function public.partner_puxada_solicitar(p_motivo text, p_agora timestamptz default now()) returns bigint
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_puxada_solicitar(text, timestamptz) is 'Requests a pull of orders (poll, contingencia or manual — a DBA may call select partner_puxada_solicitar(''manual'')). Returns its id, or null when a pull of the same kind is already queued or running.';

create function public.partner_puxada_iniciar(p_id bigint, p_agora timestamptz default clock_timestamp())
returns table (atualizado_desde timestamptz, motivo text, status text)
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_puxada_iniciar(bigint, timestamptz) is 'Starts (or restarts, after a failed attempt) a pull and decides its updated_since: the start of the last completed pull minus 10 minutes of overlap, or partner_configuracao.puxada_janela_inicial ago for the first one. A pull already CONCLUIDA is returned as is (the job then does nothing).';

create function public.partner_puxada_pagina(p_id bigint, p_pedidos jsonb, p_agora timestamptz default clock_timestamp())
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_puxada_pagina(bigint, jsonb, timestamptz) is 'Normalises one page of orders of a pull through partner_pedido_observar (origem = the pull''s motivo). An order it cannot read is counted as invalido (its reason kept in erro) and does not stop the page. Returns the counts of the page.';

create function public.partner_puxada_concluir(p_id bigint, p_agora timestamptz default clock_timestamp()) returns void
language sql volatile
set search_path to pg_catalog, public, pg_temp
as $$
  update public.partner_puxada set status = 'CONCLUIDA', concluida_em = p_agora where id = p_id;
$$;
comment on function public.partner_puxada_concluir(bigint, timestamptz) is 'Marks a pull done.';

create function public.partner_puxada_falhar(p_id bigint, p_erro text, p_definitiva boolean, p_agora timestamptz default clock_timestamp())
returns void
language sql volatile
set search_path to pg_catalog, public, pg_temp
as $$
  update public.partner_puxada set status = case when p_definitiva then 'ERRO' else 'PENDENTE' end,
         erro = left(p_erro, 2000), concluida_em = case when p_definitiva then p_agora end
   where id = p_id and status <> 'CONCLUIDA';
$$;
comment on function public.partner_puxada_falhar(bigint, text, boolean, timestamptz) is 'Records a failed attempt of a pull: back to PENDENTE (the job retries with backoff) or ERRO when the job gave up.';

------------------------------------------------------------------------------------------
-- The minute tick
------------------------------------------------------------------------------------------
create function public.partner_silencio(p_agora timestamptz default now())
returns table (desde timestamptz, ultimo_evento timestamptz, minutos_comerciais numeric, horas numeric)
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
  with u as (select max(recebido_em) as ultimo from public.partner_webhook where recebido_em <= p_agora),
       r as (select coalesce(u.ultimo, c.monitorando_desde) as desde, u.ultimo
               from u cross join public.partner_configuracao c)
  select r.desde, r.ultimo,
         case when r.desde is null then null else public.minutos_comerciais(r.desde, p_agora) end,
         case when r.desde is null then null else round((extract(epoch from p_agora - r.desde) / 3600)::numeric, 3) end
    from r;
$$;
comment on function public.partner_silencio(timestamptz) is 'Silence of the webhook at p_agora: since the last event received (or partner_configuracao.monitorando_desde when none ever arrived), in business minutes and in elapsed hours.';

create function public.partner_tick(p_agora timestamptz default now()) returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_tick(timestamptz) is 'The minute decision of area B, as of p_agora (pg_cron runs select partner_tick(now()) every minute; tests pass another clock). 1. Watchdog (when enabled): opens one silence episode with a ''Webhook parado'' notice when the silence reaches limite_min_comercial business minutes or limite_horas elapsed hours; closes it when max(recebido_em) advances, with ''Webhook voltou a funcionar'' only when the return is at most aviso_retorno_max old. 2. Contingency (when the REST API is configured): on after contingencia_apos_min_comercial business minutes of silence, a pull every contingencia_intervalo_min minutes, off when the webhook returns; each change is a notice (log line). 3. Requests the REST poll every poll_intervalo_horas. 4. Enqueues the normalisation job when due PENDENTE events have none (retries, or a job that gave up). Serialised by an advisory lock; returns what it did.';

create function public.partner_status(p_agora timestamptz default now()) returns jsonb
language sql stable
set search_path to pg_catalog, public, pg_temp
as $$
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
comment on function public.partner_status(timestamptz) is 'The state of area B at p_agora (GET /api/partner/status): last event, silence (and when the alert will fire), watchdog settings, open and last episode, contingency, last poll and last pull, counts of events to normalise or review and of orders per state.';

select app.schedule('partner_tick', '* * * * *', 'select public.partner_tick(now())');

-- migrate:down
set local lock_timeout = '5s';
select app.unschedule('partner_tick');
drop function public.partner_status(timestamptz);
drop function public.partner_tick(timestamptz);
drop function public.partner_silencio(timestamptz);
drop function public.partner_puxada_falhar(bigint, text, boolean, timestamptz);
drop function public.partner_puxada_concluir(bigint, timestamptz);
drop function public.partner_puxada_pagina(bigint, jsonb, timestamptz);
drop function public.partner_puxada_iniciar(bigint, timestamptz);
drop function public.partner_puxada_solicitar(text, timestamptz);
drop function public.partner_aviso_envio_resultado(bigint, text, text, timestamptz);
drop function public.partner_aviso_marcar(bigint, text, timestamptz);
drop function public.partner_aviso_carregar(bigint);
drop function app.partner_aviso_criar(text, bigint, bigint, jsonb, timestamptz);
drop table public.partner_puxada;
drop table public.partner_aviso_envio;
drop table public.partner_aviso;
drop table public.partner_contingencia;
drop table public.partner_episodio;
