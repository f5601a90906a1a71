CREATE OR REPLACE FUNCTION public.dia_util(p_data date)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select extract(isodow from p_data) < 6
     and public.feriado_nacional(p_data) is null
     and not exists (select from public.feriado f where f.data = p_data);
$function$
;

comment on function public.dia_util(date) is 'True when p_data is Monday to Friday, not a national holiday (public.feriado_nacional, derived for any year) and not in public.feriado (state, municipal and company days).';
