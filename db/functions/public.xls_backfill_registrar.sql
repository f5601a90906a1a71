CREATE OR REPLACE FUNCTION public.xls_backfill_registrar(p_id uuid, p_bucket text, p_limpar_coluna boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  update public.xls_processamento p
     set objeto_bucket = p_bucket,
         objeto_chave = public.xls_objeto_chave(p.checksum, p.recebido_em),
         objeto_tamanho_bytes = coalesce(p.objeto_tamanho_bytes, octet_length(p.arquivo_bytes)),
         arquivo_bytes = case when p_limpar_coluna then null else p.arquivo_bytes end
   where p.id = p_id and p.objeto_chave is null and p.arquivo_bytes is not null;
  return found;
end;
$function$
;

comment on function public.xls_backfill_registrar(uuid,text,boolean) is 'Records that the original of a legacy processing was copied to the object store (call after the put succeeded). With p_limpar_coluna (storage mode OBJSTORE) the column is emptied. Idempotent: false when already done.';
