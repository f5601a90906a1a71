CREATE OR REPLACE FUNCTION public.partner_conciliacao_dia(p_dia date)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.partner_conciliacao_dia(date) is 'One day of the reconciliation ledger as jsonb: the verdict (status and counts: na_plataforma, aqui, por_webhook, recuperados, faltando, preenchidos, faltando_apos, divergentes, ilegiveis) and its items (recovered, missing with whether they were backfilled, status differences with both sides). Null for a day never reconciled.';
