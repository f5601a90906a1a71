CREATE OR REPLACE FUNCTION public.minutos_comerciais(p_de timestamp with time zone, p_ate timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.minutos_comerciais(timestamp with time zone,timestamp with time zone) is 'Business minutes between two instants: the part of [p_de, p_ate] that falls Monday to Friday, 08:00-18:00 America/Sao_Paulo, on business days (public.dia_util: no national holiday, no day of public.feriado). Fractional (3 decimals); 0 when p_ate <= p_de.';
