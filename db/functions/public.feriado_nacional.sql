CREATE OR REPLACE FUNCTION public.feriado_nacional(p_data date)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select coalesce(
           case (extract(month from p_data) * 100 + extract(day from p_data))::integer
             when 101 then 'Confraternização Universal'
             when 421 then 'Tiradentes'
             when 501 then 'Dia do Trabalho'
             when 907 then 'Independência do Brasil'
             when 1012 then 'Nossa Senhora Aparecida'
             when 1102 then 'Finados'
             when 1115 then 'Proclamação da República'
             -- national since Lei 14.759/2023
             when 1120 then case when extract(year from p_data) >= 2024 then 'Dia Nacional de Zumbi e da Consciência Negra' end
             when 1225 then 'Natal'
           end,
           -- the one national holiday that follows Easter (Carnaval and Corpus Christi are not
           -- national holidays by law: public.feriado holds them where they are observed)
           case when p_data = app.pascoa(extract(year from p_data)::integer) - 2 then 'Sexta-feira Santa' end);
$function$
;

comment on function public.feriado_nacional(date) is 'The name of the Brazilian national holiday on p_data, or null: the fixed dates (1/1, 21/4, 1/5, 7/9, 12/10, 2/11, 15/11, 20/11 from 2024, 25/12) and Good Friday (Easter, app.pascoa, minus two days), for any year. public.dia_util excludes them; public.feriado holds the other days off (state, municipal, company).';
