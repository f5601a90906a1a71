CREATE OR REPLACE FUNCTION public.configuracao_remover(p_chave text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS public.bi_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.bi_configuracao;
begin
  v_row := (app.configuracao_travar(p_chave, 'remover', null, p_versao_esperada)).linha;
  delete from public.bi_configuracao where id = v_row.id;
  return v_row;
end;
$function$
;

comment on function public.configuracao_remover(text,timestamp with time zone) is 'Removes a non-system configuration key and returns the removed row. Errors in this order: CF404 unknown key, CF403 system key, CF409 the row changed since p_versao_esperada (its atualizado_em).';
