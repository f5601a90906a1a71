CREATE OR REPLACE FUNCTION app.xls_orfao(p_id uuid, p_worker text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select not app.xls_worker_vivo(p_worker)
      or not exists (select from app.job j
                      where j.kind = 'xls_processar' and j.status = 'running' and j.locked_by = p_worker
                        and j.payload ->> 'id' = p_id::text);
$function$
;

comment on function app.xls_orfao(uuid,text) is 'True when a PROCESSANDO processing held by p_worker has nobody working on it: the worker is dead (no heartbeat within app.worker_timeout()), or it holds no running xls_processar job for it (the job ended, or was rescued and given to another worker).';
