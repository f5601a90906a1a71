CREATE OR REPLACE FUNCTION public.xls_conjunto_abrir(p_arquivo text, p_uploader_id text DEFAULT NULL::text, p_uploader_nome text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  insert into public.xls_conjunto (arquivo, uploader_id, uploader_nome)
  values (nullif(btrim(p_arquivo), ''), p_uploader_id, p_uploader_nome)
  returning id;
$function$
;

comment on function public.xls_conjunto_abrir(text,text,text) is 'Creates a batch for an uploaded .zip and returns its id. Then call xls_receber / xls_receber_ignorado once per entry (in zip order) and xls_conjunto_recebido, all in the same transaction.';
