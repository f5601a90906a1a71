CREATE OR REPLACE FUNCTION public.replicacao_recuperar()
 RETURNS SETOF public.xls_resetar_replicator
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v record;
begin
  for v in
    select r.id from public.xls_resetar_replicator r
     where r.status = 'EM_ANDAMENTO'
       -- nobody runs it: no session holds its advisory lock (a dead process lost it) ...
       and not exists (select from pg_locks l
                        where l.locktype = 'advisory' and l.granted
                          and l.database = (select oid from pg_database where datname = current_database())
                          and l.classid = hashtext('xls_resetar_replicator')::oid
                          and l.objid = hashtext(r.id::text)::oid and l.objsubid = 2)
       -- ... and it was taken before, or no job will take it (none queued, none just claimed)
       and (r.assumido_em is not null
            or not exists (select from app.job j
                            where j.id = r.job_id
                              and (j.status = 'pending'
                                   or (j.status = 'running' and j.locked_at > now() - interval '1 minute'))))
     for update skip locked
  loop
    return query select * from public.replicacao_falhar(v.id, 'interrompida após reinício da aplicação');
  end loop;
end;
$function$
;

comment on function public.replicacao_recuperar() is 'Orphan rule of the reset, at application startup and every minute (pg_cron job replicacao_recuperar): an execution EM_ANDAMENTO that no live process runs (no session holds its advisory lock, and it was taken, or its job is neither queued nor just claimed) ends in ERRO ''interrompida após reinício da aplicação'' with step_atual kept, which unblocks new resets. Executions run by live replicas are left alone. Returns the executions it ended.';
