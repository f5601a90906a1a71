CREATE OR REPLACE FUNCTION public.configuracao_definir(p_chave text, p_valor text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS public.bi_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.bi_configuracao;
  v_valor text;
begin
  select * into v_row from public.bi_configuracao where chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if v_row.sistema then
    raise exception 'a chave % é do sistema e não pode ser alterada', p_chave using errcode = 'CF403';
  end if;
  v_valor := public.configuracao_valor_normalizar(v_row.tipo, p_valor);
  if v_valor is null then
    raise exception 'valor ''%'' inválido para a chave %: use %', coalesce(p_valor, ''), p_chave, app.configuracao_tipo_dica(v_row.tipo) using errcode = 'CF400';
  end if;
  -- compared at millisecond precision: the version travels through JSON as an ISO-8601 string
  if p_versao_esperada is not null and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, v_row.atualizado_em
      using errcode = 'CF409';
  end if;
  if v_row.valor is distinct from v_valor then
    update public.bi_configuracao set valor = v_valor where id = v_row.id returning * into v_row;
  end if;
  return v_row;
end;
$function$
;

comment on function public.configuracao_definir(text,text,timestamp with time zone) is 'Changes the value of a non-system configuration key. Errors, in this order of precedence: CF404 unknown key, CF403 system key, CF400 value invalid for the key''s type (the value is stored in the form configuracao_valor_normalizar gives: ''5 minutos'' -> PT5M), CF409 the row changed since p_versao_esperada (its atualizado_em). Writing the same value is a no-op.';
