CREATE OR REPLACE FUNCTION app.xls_fk_aguardando(p_id uuid)
 RETURNS uuid
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select l.id
    from public.xls_processamento p
    join public.xls_conjunto l on l.id = p.conjunto_id
   where p.id = p_id and p.status = 'ERRO' and p.fk_retentar and l.fechado_em is null;
$function$
;

comment on function app.xls_fk_aguardando(uuid) is 'Internal: the open batch a processing waits for (ERRO by a first transient foreign-key failure, fk_retentar, while its batch''s master report has not concluded), else null. A resend (xls_receber) or a reprocess button (xls_reprocessar*) of such a processing does not run it again at once — it would fail again before the master report commits and use up its one retry — but leaves it waiting: the batch close reprocesses it.';
