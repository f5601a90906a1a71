CREATE OR REPLACE FUNCTION public.xls_simular_abrir(p_arquivo text, p_checksum text, p_tipo text)
 RETURNS uuid
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id uuid;
begin
  if not exists (select from app.xls_alvo a where a.tipo = p_tipo) then
    raise exception 'o tipo % ainda não tem importação', p_tipo using errcode = 'XL422';
  end if;
  insert into public.xls_processamento (status, tipo, arquivo, checksum, arquivo_bytes, log_arquivo, worker, iniciado_em, execucoes)
  values ('PROCESSANDO', p_tipo, left(p_arquivo, 255), p_checksum, ''::bytea, 'simulacao', 'simulacao', now(), 1)
  returning id into v_id;
  return v_id;
end;
$function$
;

comment on function public.xls_simular_abrir(text,text,text) is 'Preview (POST /api/xls/simular): opens a processing in PROCESSANDO, inside the caller''s transaction, so that the staging, xls_merge_chunk and xls_merge (with p_meta.simular = true: the mass-deletion guard reports instead of refusing) run exactly as for a real send; public.xls_simular_resumo then reads what it would change, and the caller ROLLS BACK: nothing of it is kept (only sequences advance). Never commit after it.';
