CREATE OR REPLACE FUNCTION app.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text, p_execucao integer DEFAULT NULL::integer)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_status text;
  v_worker text;
  v_execucoes integer;
begin
  select p.status, p.worker, p.execucoes into v_status, v_worker, v_execucoes from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  if v_status = 'PROCESSANDO' and v_worker = p_worker and p_execucao is not null and p_execucao <> v_execucoes then
    raise exception 'processamento % está na execução %: a execução % (worker %) foi substituída e não pode levá-lo a %',
      p_id, v_execucoes, p_execucao, p_worker, p_destino using errcode = 'XL409';
  end if;
  raise exception 'processamento % está em % (worker %): o worker % não pode levá-lo a %',
    p_id, v_status, coalesce(v_worker, '-'), coalesce(p_worker, '-'), p_destino using errcode = 'XL409';
end;
$function$
;

comment on function app.xls_transicao_recusada(uuid,text,text,integer) is 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker, or, when the same worker holds it under another run (execucoes <> p_execucao, the fencing token), naming both runs.';
