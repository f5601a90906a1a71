CREATE OR REPLACE FUNCTION public.partner_tipo_dia(p_data date)
 RETURNS smallint
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select case when public.feriado_nacional(p_data) is not null
                or exists (select from public.feriado f where f.data = p_data) then 0
              else extract(isodow from p_data) end::smallint;
$function$
;

comment on function public.partner_tipo_dia(date) is 'The day type of the learned silence alarm (public.partner_ritmo): 0 for a holiday (public.feriado_nacional or a row of public.feriado, whatever the weekday: holidays are learned apart), else the ISO weekday 1 (Monday) to 7 (Sunday).';
