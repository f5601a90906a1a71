CREATE OR REPLACE FUNCTION public.configuracao_valor_valido(p_tipo text, p_valor text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p_valor is not null and public.configuracao_valor_normalizar(p_tipo, p_valor) is not distinct from p_valor;
$function$
;

comment on function public.configuracao_valor_valido(text,text) is 'True when p_valor is a valid value for the configuration type p_tipo (string, integer, boolean, duration) in its stored form (configuracao_valor_normalizar returns it unchanged): the check of bi_configuracao.valor. configuracao_criar and configuracao_definir normalise first, so ''5 minutos'' is accepted there and stored as PT5M.';
