CREATE OR REPLACE FUNCTION public.partner_aviso_carregar(p_id bigint)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select jsonb_build_object(
    'id', a.id, 'tipo', a.tipo, 'criado_em', a.criado_em, 'dados', a.dados,
    'registrado_em', a.registrado_em, 'rastreador_em', a.rastreador_em, 'concluido_em', a.concluido_em,
    'episodio', (select to_jsonb(e) from public.partner_episodio e where e.id = a.episodio_id),
    'contingencia', (select to_jsonb(c) from public.partner_contingencia c where c.id = a.contingencia_id),
    'conciliacao', case when a.tipo = 'conciliacao_incompleta' then public.partner_conciliacao_dia((a.dados ->> 'dia')::date) end,
    'pendentes', coalesce((select jsonb_agg(v.email order by v.email) from public.partner_aviso_envio v
                            where v.aviso_id = a.id and v.enviado_em is null), '[]'))
  from public.partner_aviso a where a.id = p_id;
$function$
;

comment on function public.partner_aviso_carregar(bigint) is 'What the partner_aviso job needs to carry out a notice: the notice, its episode or contingency period (or, for conciliacao_incompleta, the day''s reconciliation: partner_conciliacao_dia), and the recipients still to be mailed. Null for an unknown id.';
