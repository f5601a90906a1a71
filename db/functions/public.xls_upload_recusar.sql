CREATE OR REPLACE FUNCTION public.xls_upload_recusar(p_origem text, p_arquivo text, p_tamanho_bytes bigint, p_uploader_id text, p_uploader_nome text, p_cliente_ip text, p_status_http integer, p_codigo text, p_motivo text)
 RETURNS uuid
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  insert into public.xls_upload_recusa (origem, arquivo, tamanho_bytes, uploader_id, uploader_nome, cliente_ip, status_http, codigo, motivo)
  values (p_origem, left(nullif(btrim(p_arquivo), ''), 300), p_tamanho_bytes, left(nullif(btrim(p_uploader_id), ''), 200),
          left(nullif(btrim(p_uploader_nome), ''), 200), left(p_cliente_ip, 100), p_status_http, left(p_codigo, 20),
          left(coalesce(nullif(btrim(p_motivo), ''), 'recusado'), 2000))
  returning id
$function$
;

comment on function public.xls_upload_recusar(text,text,bigint,text,text,text,integer,text,text) is 'Records an upload refused before anything was stored (origem api or importar; who, file name, size, HTTP status, code and reason; never the bytes). Names and reason are trimmed and cut to the column sizes. Returns the id.';
