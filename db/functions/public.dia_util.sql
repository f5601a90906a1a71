CREATE OR REPLACE FUNCTION public.dia_util(p_data date)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select extract(isodow from p_data) < 6
     and not exists (select from public.feriado f where f.data = p_data);
$function$
;

comment on function public.dia_util(date) is 'True when p_data is Monday to Friday and not in public.feriado.';
