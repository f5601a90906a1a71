CREATE OR REPLACE FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS public.bi_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.bi_configuracao;
  v_valor text;
  v_t record;
begin
  v_t := app.configuracao_travar(p_chave, 'alterar', p_valor, p_versao_esperada);
  v_row := v_t.linha;
  v_valor := v_t.valor;
  if v_row.valor is distinct from v_valor then
    update public.bi_configuracao set valor = v_valor where id = v_row.id returning * into v_row;
  end if;
  return v_row;
end;
$function$
;

comment on function public.configuracao_definir(text,text,timestamp with time zone) is 'Changes the value of a non-system configuration key. Errors, in this order of precedence: CF404 unknown key, CF403 system key, CF400 value invalid for the key''s type (the value is stored in the form configuracao_valor_normalizar gives: ''5 minutos'' -> PT5M), CF409 the row changed since p_versao_esperada (its atualizado_em). Writing the same value is a no-op.';
