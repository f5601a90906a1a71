CREATE OR REPLACE FUNCTION app.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_status text;
  v_worker text;
begin
  select p.status, p.worker into v_status, v_worker from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  raise exception 'processamento % está em % (worker %): o worker % não pode levá-lo a %',
    p_id, v_status, coalesce(v_worker, '-'), coalesce(p_worker, '-'), p_destino using errcode = 'XL409';
end;
$function$
;

comment on function app.xls_transicao_recusada(uuid,text,text) is 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker.';
