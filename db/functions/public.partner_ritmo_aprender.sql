CREATE OR REPLACE FUNCTION public.partner_ritmo_aprender(p_agora timestamp with time zone DEFAULT now())
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET jit TO 'off'
AS $function$
declare
  v_semanas integer;
  v_hoje date := (p_agora at time zone 'America/Sao_Paulo')::date;
  v_ini date;
  v_primeiro date;
  v_pedidos integer;
begin
  select c.aprendido_semanas,
         (least((select min(w.recebido_em) from public.partner_webhook w), c.monitorando_desde) at time zone 'America/Sao_Paulo')::date + 1
    into v_semanas, v_primeiro
    from public.partner_configuracao c;
  -- whole days only: from N weeks before today (or the first whole day of history) to yesterday
  v_ini := greatest(v_hoje - 7 * coalesce(v_semanas, 0), coalesce(v_primeiro, v_hoje));
  delete from public.partner_ritmo;
  with dias as (
         select d::date as dia, public.partner_tipo_dia(d::date) as tipo
           from generate_series(v_ini::timestamp, (v_hoje - 1)::timestamp, interval '1 day') d),
       -- an order counts once, at its first webhook delivery (30 days of look-back keep an order
       -- created before the window and updated inside it out)
       primeiros as (
         select w.code, min(w.recebido_em) as em
           from public.partner_webhook w
          where w.code is not null
            and w.recebido_em >= ((v_ini - 30)::timestamp) at time zone 'America/Sao_Paulo'
            and w.recebido_em < (v_hoje::timestamp) at time zone 'America/Sao_Paulo'
          group by w.code),
       pedidos as (
         select d.tipo, extract(hour from p.em at time zone 'America/Sao_Paulo')::smallint as hora, count(*)::integer as n
           from primeiros p
           join dias d on d.dia = (p.em at time zone 'America/Sao_Paulo')::date
          group by 1, 2),
       ndias as (select tipo, count(*)::integer as n from dias group by tipo)
  insert into public.partner_ritmo (tipo_dia, hora, pedidos, dias, semanas, aprendido_para)
  select t.tipo, h.hora, coalesce(pe.n, 0), coalesce(nd.n, 0), coalesce(v_semanas, 0), p_agora
    from generate_series(0, 7) t(tipo)
   cross join generate_series(0, 23) h(hora)
    left join ndias nd on nd.tipo = t.tipo
    left join pedidos pe on pe.tipo = t.tipo and pe.hora = h.hora;
  select coalesce(sum(r.pedidos), 0) into v_pedidos from public.partner_ritmo r;
  return v_pedidos;
end;
$function$
;

comment on function public.partner_ritmo_aprender(timestamp with time zone) is 'Rebuilds public.partner_ritmo as of p_agora: for each day type (public.partner_tipo_dia: weekday, or 0 for a holiday) and local hour, the orders first delivered by the webhook in that slot during the whole days of the last partner_configuracao.aprendido_semanas weeks before p_agora (not before the first whole day of history), and the number of days of that type in that window. partner_tick calls it when the table is older than an hour (or of another window); a DBA may call it after changing the settings. Returns the orders counted. Volatile (writes the table).';
