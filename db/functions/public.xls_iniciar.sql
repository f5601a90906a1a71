CREATE OR REPLACE FUNCTION public.xls_iniciar(p_id uuid, p_worker text)
 RETURNS TABLE(id uuid, tipo text, arquivo text, checksum text, recebido_em timestamp with time zone, conjunto_id uuid, objeto_bucket text, objeto_chave text, objeto_tamanho_bytes bigint, tem_arquivo_bytes boolean, log_arquivo text, execucoes integer)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
begin
  if nullif(btrim(p_worker), '') is null then
    raise exception 'worker ausente' using errcode = 'XL400';
  end if;
  return query
    with claimed as (
      update public.xls_processamento p
         set status = 'PROCESSANDO', worker = p_worker, iniciado_em = now(), finalizado_em = null,
             execucoes = p.execucoes + 1, alarmar = false
       where p.id = p_id and p.status = 'PENDENTE'
      returning p.id, p.tipo, p.arquivo, p.checksum, p.recebido_em, p.conjunto_id, p.objeto_bucket, p.objeto_chave,
                p.objeto_tamanho_bytes, p.arquivo_bytes is not null, p.log_arquivo, p.execucoes)
    select * from claimed;
  if not found and not exists (select from public.xls_processamento p where p.id = p_id) then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
end;
$function$
;

comment on function public.xls_iniciar(uuid,text) is 'Transition PENDENTE -> PROCESSANDO, called by the job handler with its worker id (app.worker). Returns the processing (without bytes: read arquivo_bytes apart when tem_arquivo_bytes and the storage mode reads the database), or no row when it is not PENDENTE (a stale or duplicate job: nothing to do). XL404 unknown id.';
