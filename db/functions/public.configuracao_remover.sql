CREATE OR REPLACE FUNCTION public.configuracao_remover(p_chave text, p_versao_esperada timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS public.bi_configuracao
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.bi_configuracao;
begin
  select * into v_row from public.bi_configuracao where chave = p_chave for update;
  if not found then
    raise exception 'chave de configuração % não existe', p_chave using errcode = 'CF404';
  end if;
  if v_row.sistema then
    raise exception 'a chave % é do sistema e não pode ser removida', p_chave using errcode = 'CF403';
  end if;
  if p_versao_esperada is not null and date_trunc('milliseconds', v_row.atualizado_em) <> date_trunc('milliseconds', p_versao_esperada) then
    raise exception 'a chave % foi alterada por outra pessoa em %; recarregue e tente de novo', p_chave, v_row.atualizado_em
      using errcode = 'CF409';
  end if;
  delete from public.bi_configuracao where id = v_row.id;
  return v_row;
end;
$function$
;

comment on function public.configuracao_remover(text,timestamp with time zone) is 'Removes a non-system configuration key and returns the removed row. Errors in this order: CF404 unknown key, CF403 system key, CF409 the row changed since p_versao_esperada (its atualizado_em).';
