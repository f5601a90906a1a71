CREATE OR REPLACE FUNCTION public.partner_conciliacao_agendar(p_agora timestamp with time zone DEFAULT now())
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.partner_conciliacao_agendar(timestamp with time zone) is 'The daily request of the reconciliation (pg_cron ''partner_conciliacao'', 09:30 UTC = 06:30 in Brasília): on a business day (dia_util) with the REST API configured, requests partner_conciliacao_solicitar(dia, ''agendada'') for each whole day since the previous ones, up to 7 days back and not before the first whole day watched (monitorando_desde), that has no verdict yet or was left INACESSIVEL. On Monday that is Friday, Saturday and Sunday. Returns how many it requested.';
