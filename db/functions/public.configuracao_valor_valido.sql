CREATE OR REPLACE FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select case p_tipo
    when 'string' then p_valor is not null
    when 'integer' then p_valor ~ '^-?[0-9]{1,18}$'
    when 'boolean' then p_valor in ('true', 'false')
    -- ISO-8601 duration (PT30S, P1DT2H) or a Postgres interval literal ('30 seconds')
    when 'duration' then p_valor ~ '^P(?!$)([0-9]+Y)?([0-9]+M)?([0-9]+W)?([0-9]+D)?(T(?=[0-9])([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?$'
                      or p_valor ~ '^[0-9]+ ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$'
    else false
  end;
$function$
;

comment on function public.configuracao_valor_valido(text,text) is 'True when p_valor is a valid value for the configuration type p_tipo (string, integer, boolean, duration).';
