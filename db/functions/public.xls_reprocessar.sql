CREATE OR REPLACE FUNCTION public.xls_reprocessar(p_id uuid)
 RETURNS uuid[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_status text;
begin
  select p.status into v_status from public.xls_processamento p where p.id = p_id for update;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_status <> 'ERRO' then
    raise exception 'processamento % está em %: só um processamento em ERRO pode ser reprocessado', p_id, v_status
      using errcode = 'XL409';
  end if;
  -- waiting for its batch's master report (first transient FK failure): the batch close
  -- reprocesses it; running it now would fail again and use up its one retry
  if app.xls_fk_aguardando(p_id) is null then
    perform app.xls_requeue(p_id);
  end if;
  return array[p_id];
end;
$function$
;

comment on function public.xls_reprocessar(uuid) is 'Reprocess button, one processing: ERRO -> PENDENTE from the stored file (no resend), job queued. Returns {id}. A processing waiting for its open batch after a first transient FK failure (app.xls_fk_aguardando) keeps waiting: the batch close reprocesses it. XL404 unknown id; XL409 when not in ERRO (SUCESSO, PENDENTE, PROCESSANDO, IGNORADO), so a double click changes nothing.';
