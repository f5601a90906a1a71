CREATE OR REPLACE FUNCTION public.xls_simular_duplicado(p_checksum text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select format('arquivo já recebido: processamento %s (%s)', p.id, p.status)
    from public.xls_processamento p
   where p.checksum = lower(btrim(p_checksum))
     and p.status in ('SUCESSO', 'PENDENTE', 'PROCESSANDO')
$function$
;

comment on function public.xls_simular_duplicado(text) is 'Preview (POST /api/xls/simular): the reason a send of a file with this checksum would be DUPLICADO now (the same rule and words as public.xls_receber: a processing of that checksum in SUCESSO, PENDENTE or PROCESSANDO), or null when a send would process it (new, or reprocessed from ERRO or IGNORADO). Reads only.';
