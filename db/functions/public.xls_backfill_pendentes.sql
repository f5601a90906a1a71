CREATE OR REPLACE FUNCTION public.xls_backfill_pendentes(p_limite integer DEFAULT 100, p_apos uuid DEFAULT NULL::uuid)
 RETURNS TABLE(id uuid, checksum text, objeto_chave text, objeto_tamanho_bytes bigint)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select p.id, p.checksum, public.xls_objeto_chave(p.checksum, p.recebido_em), octet_length(p.arquivo_bytes)::bigint
    from public.xls_processamento p
   where p.objeto_chave is null and p.arquivo_bytes is not null
     and (p_apos is null or p.id > p_apos)
   order by p.id
   limit p_limite;
$function$
;

comment on function public.xls_backfill_pendentes(integer,uuid) is 'Legacy processings whose original lives only in arquivo_bytes, with the content-addressed key they get in the object store; keyset-paged by id.';
