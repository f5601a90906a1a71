CREATE OR REPLACE FUNCTION app.configuracao_travar(p_chave text, p_acao text, p_valor text, p_versao_esperada timestamp with time zone, OUT linha public.bi_configuracao, OUT valor text)
 RETURNS record
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_acao not in ('alterar', 'remover') then
    raise exception 'app.configuracao_travar: ação % desconhecida', p_acao using errcode = 'CF400';
  end if;
  select * into linha from public.bi_configuracao c where c.chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if linha.sistema then
    raise exception 'a chave % é do sistema e não pode ser %', p_chave,
      case p_acao when 'alterar' then 'alterada' else 'removida' end using errcode = 'CF403';
  end if;
  if p_acao = 'alterar' then
    valor := public.configuracao_valor_normalizar(linha.tipo, p_valor);
    if valor is null then
      raise exception 'valor ''%'' inválido para a chave %: use %', coalesce(p_valor, ''), p_chave, app.configuracao_tipo_dica(linha.tipo) using errcode = 'CF400';
    end if;
  end if;
  -- compared at millisecond precision: the version travels through JSON as an ISO-8601 string
  if p_versao_esperada is not null and date_trunc('milliseconds', linha.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, linha.atualizado_em
      using errcode = 'CF409';
  end if;
end;
$function$
;

comment on function app.configuracao_travar(text,text,text,timestamp with time zone) is 'Internal, the one precedence of configuracao_definir (p_acao alterar) and configuracao_remover (remover): locks the key''s row and returns it (linha), with, for alterar, p_valor in the form configuracao_valor_normalizar gives (valor). Errors in this order: CF404 unknown key, CF403 system key, CF400 (alterar only) value invalid for the key''s type, CF409 the row changed since p_versao_esperada (its atualizado_em, at millisecond precision).';
