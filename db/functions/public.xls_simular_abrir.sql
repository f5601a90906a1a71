CREATE OR REPLACE FUNCTION public.xls_simular_abrir(p_arquivo text, p_checksum text, p_tipo text)
 RETURNS uuid
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id uuid := app.uuid_v7();
  v_checksum text := p_checksum;
begin
  if not exists (select from app.xls_alvo a where a.tipo = p_tipo) then
    raise exception 'o tipo % ainda não tem importação', p_tipo using errcode = 'XL422';
  end if;
  -- the file may already be stored (a send in ERRO or IGNORADO is reprocessed, and previewed),
  -- or come twice in one batch: the preview's processing then takes a checksum of its own
  insert into public.xls_processamento (id, status, tipo, arquivo, checksum, arquivo_bytes, log_arquivo, worker, iniciado_em, execucoes)
  values (v_id, 'PROCESSANDO', p_tipo, left(p_arquivo, 255), v_checksum, ''::bytea, 'simulacao', 'simulacao', now(), 1)
  on conflict (checksum) do nothing;
  if not found then
    v_checksum := encode(sha256(convert_to('simulacao:' || v_id::text, 'UTF8')), 'hex');
    insert into public.xls_processamento (id, status, tipo, arquivo, checksum, arquivo_bytes, log_arquivo, worker, iniciado_em, execucoes)
    values (v_id, 'PROCESSANDO', p_tipo, left(p_arquivo, 255), v_checksum, ''::bytea, 'simulacao', 'simulacao', now(), 1);
  end if;
  return v_id;
end;
$function$
;

comment on function public.xls_simular_abrir(text,text,text) is 'Preview (POST /api/xls/simular): opens a processing in PROCESSANDO, inside the caller''s transaction, so that the staging, xls_merge_chunk and xls_merge (with p_meta.simular = true: the mass-deletion guard reports instead of refusing) run exactly as for a real send; public.xls_simular_resumo then reads what it would change, and the caller ROLLS BACK: nothing of it is kept (only sequences advance). A checksum already stored (a file in ERRO or IGNORADO, which a send would reprocess) gives the preview''s processing a checksum of its own; a file a send would call DUPLICADO is not previewed (public.xls_simular_duplicado). Never commit after it.';
