CREATE OR REPLACE FUNCTION app.worker_esquecer(p_workers text[])
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_n integer;
begin
  delete from app.worker w where w.id = any (p_workers);
  get diagnostics v_n = row_count;
  return v_n;
end;
$function$
;

comment on function app.worker_esquecer(text[]) is 'Forgets workers known to be dead without waiting for app.worker_timeout(): at boot, the service passes the workers of its own host whose process no longer runs (a previous process of this host: a restart, a crash, a container restarted with the same pid). Their running jobs then go back to the queue (app.sweep_jobs) and their PROCESSANDO to ERRO (xls_recuperar) at once. Returns how many were forgotten.';
