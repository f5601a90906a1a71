CREATE OR REPLACE FUNCTION public.partner_silencio(p_agora timestamp with time zone DEFAULT now())
 RETURNS TABLE(desde timestamp with time zone, ultimo_evento timestamp with time zone, minutos_comerciais numeric, horas numeric)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  with u as (select max(recebido_em) as ultimo from public.partner_webhook where recebido_em <= p_agora),
       r as (select coalesce(u.ultimo, c.monitorando_desde) as desde, u.ultimo
               from u cross join public.partner_configuracao c)
  select r.desde, r.ultimo,
         case when r.desde is null then null else public.minutos_comerciais(r.desde, p_agora) end,
         case when r.desde is null then null else round((extract(epoch from p_agora - r.desde) / 3600)::numeric, 3) end
    from r;
$function$
;

comment on function public.partner_silencio(timestamp with time zone) is 'Silence of the webhook at p_agora: since the last event received (or partner_configuracao.monitorando_desde when none ever arrived), in business minutes and in elapsed hours.';
