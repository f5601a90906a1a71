CREATE OR REPLACE FUNCTION app.xls_reprocessar_em_erro(p_conjunto_id uuid, p_tipo text)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_ids uuid[] := '{}';
  v_id uuid;
begin
  for v_id in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO'
       and (p_conjunto_id is null or p.conjunto_id = p_conjunto_id)
       and (p_tipo is null or p.tipo = p_tipo)
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

comment on function app.xls_reprocessar_em_erro(uuid,text) is 'Internal, the one shape of xls_reprocessar_conjunto and xls_reprocessar_erros: every processing in ERRO (of batch p_conjunto_id and of type p_tipo, each when given), oldest first, skipping rows locked by another transaction, -> PENDENTE (app.xls_requeue). Returns the ids reprocessed; one waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting, is not requeued, and is returned too (the batch close reprocesses it). Checks nothing: its callers validate their argument.';
