CREATE OR REPLACE FUNCTION public.partner_conciliacao_resumo(p_desde date DEFAULT (((now() AT TIME ZONE 'America/Sao_Paulo'::text))::date - 30), p_ate date DEFAULT NULL::date)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select coalesce(jsonb_agg(public.partner_conciliacao_dia(c.dia) order by c.dia desc), '[]')
    from public.partner_conciliacao c
   where c.dia >= p_desde and (p_ate is null or c.dia <= p_ate);
$function$
;

comment on function public.partner_conciliacao_resumo(date,date) is 'The reconciliation ledger from p_desde (default: the last 30 days) to p_ate (default: every later day), newest first: one partner_conciliacao_dia per day (what /pedidos and GET /api/partner/conciliacao show).';
