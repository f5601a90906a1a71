CREATE OR REPLACE FUNCTION public.partner_silencio_aprendido(p_agora timestamp with time zone DEFAULT now())
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET jit TO 'off'
AS $function$
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
$function$
;

comment on function public.partner_silencio_aprendido(timestamp with time zone) is 'The learned silence alarm at p_agora (partner_tick decides with it; read-only, callable from psql): the orders expected since the silence began (esperados, from public.partner_ritmo: per day type and hour, slots with fewer than 3 days of history count 0), the probability of receiving none, exp(-esperados), and dispara_em, the instant at which that probability falls below partner_configuracao.aprendido_limiar — only when that comes before the fixed alert (fixo_em: limite_min_comercial business minutes or limite_horas hours), so the learned alarm may fire earlier, never later, and never while fewer than ln(1/limiar) orders were expected (expected quiet). base = aprendido, or fixo with motivo_fixo = desligado (aprendido_semanas = 0) or historico_insuficiente (no slot of the silence has history). faixa_atual: the current slot''s learned rate (orders an hour, null without history).';
