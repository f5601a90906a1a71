CREATE OR REPLACE FUNCTION public.partner_status(p_agora timestamp with time zone DEFAULT now())
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.partner_status(timestamp with time zone) is 'The state of area B at p_agora (GET /api/partner/status): last event, silence (and when the alert will fire: the fixed thresholds or, earlier, the learned alarm; silencio.aprendido is partner_silencio_aprendido), watchdog settings, open and last episode, contingency, last poll and last pull, counts of events to normalise or review and of orders per state.';
