CREATE OR REPLACE FUNCTION public.xls_reprocessar_erros(p_tipo text DEFAULT NULL::text)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_tipo is not null and not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', p_tipo using errcode = 'XL400';
  end if;
  return app.xls_reprocessar_em_erro(null, p_tipo);
end;
$function$
;

comment on function public.xls_reprocessar_erros(text) is 'Reprocess button of the list filtered by ERRO: every processing in ERRO (of type p_tipo when given) -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL400 unknown type.';
