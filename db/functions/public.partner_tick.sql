CREATE OR REPLACE FUNCTION public.partner_tick(p_agora timestamp with time zone DEFAULT now())
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.partner_tick(timestamp with time zone) is 'The minute decision of area B, as of p_agora (pg_cron runs select partner_tick(now()) every minute; tests pass another clock). 0. Rebuilds the learned rhythm (partner_ritmo_aprender) when older than an hour. 1. Watchdog (when enabled): opens one silence episode with a ''Webhook parado'' notice when the silence reaches limite_min_comercial business minutes or limite_horas elapsed hours, or earlier when the learned alarm says so (partner_silencio_aprendido: the silence has become improbable under the shop''s learned rhythm; motivo ritmo_aprendido); closes it when max(recebido_em) advances, with ''Webhook voltou a funcionar'' only when the return is at most aviso_retorno_max old. 2. Contingency (when the REST API is configured): on after contingencia_apos_min_comercial business minutes of silence (or earlier, when the learned alarm fires), a pull every contingencia_intervalo_min minutes, off when the webhook returns; each change is a notice (log line). 3. Requests the REST poll every poll_intervalo_horas. 4. Enqueues the normalisation job when due PENDENTE events have none (retries, or a job that gave up). Serialised by an advisory lock; returns what it did.';
