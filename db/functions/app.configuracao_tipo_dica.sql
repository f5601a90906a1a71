CREATE OR REPLACE FUNCTION app.configuracao_tipo_dica(p_tipo text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select case p_tipo
    when 'string' then 'texto livre'
    when 'integer' then 'número inteiro sem pontos nem vírgulas, até 9007199254740991 (ex.: 7000)'
    when 'boolean' then 'sim/não: true ou false'
    when 'duration' then 'duração como “30 s”, “5 minutos”, “2 horas”, “1 dia” (ou ISO-8601: PT30S, P1DT2H)'
    else 'tipo desconhecido: texto, número inteiro, sim/não ou duração'
  end;
$function$
;

comment on function app.configuracao_tipo_dica(text) is 'The configuration type in words for staff, with examples: the tail of the CF400 messages of configuracao_criar and configuracao_definir.';
