CREATE OR REPLACE FUNCTION public.xls_reprocessar_erros(p_tipo text DEFAULT NULL::text)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  if p_tipo is not null and not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', p_tipo using errcode = 'XL400';
  end if;
  for v_id in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO' and (p_tipo is null or p.tipo = p_tipo)
     order by p.recebido_em, p.id for update skip locked
  loop
    if app.xls_fk_aguardando(v_id) is not null then
      v_ids := v_ids || v_id; -- keeps waiting for its batch's master report: the batch close reprocesses it
    elsif app.xls_requeue(v_id) then
      v_ids := v_ids || v_id;
    end if;
  end loop;
  return v_ids;
end;
$function$
;

comment on function public.xls_reprocessar_erros(text) is 'Reprocess button of the list filtered by ERRO: every processing in ERRO (of type p_tipo when given) -> PENDENTE. Returns the ids reprocessed (possibly none); one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting and is reprocessed by the batch close. XL400 unknown type.';
