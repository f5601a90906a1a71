CREATE OR REPLACE FUNCTION public.replicacao_liberar(p_id uuid)
 RETURNS boolean
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
$function$
;

comment on function public.replicacao_liberar(uuid) is 'Releases the advisory lock replicacao_assumir took on this session (end of the reset job).';
