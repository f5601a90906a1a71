CREATE OR REPLACE FUNCTION public.xls_definir_tipo(p_id uuid, p_worker text, p_tipo text)
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  update public.xls_processamento p set tipo = p_tipo
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'tipo ' || p_tipo);
  end if;
end;
$function$
;

comment on function public.xls_definir_tipo(uuid,text,text) is 'Records the detected type of a processing held (PROCESSANDO) by p_worker; call it in its own transaction right after detection, so the type survives a failed merge. XL400 unknown type, XL404 unknown id, XL409 not PROCESSANDO by this worker.';
