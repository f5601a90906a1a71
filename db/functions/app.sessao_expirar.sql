CREATE OR REPLACE FUNCTION app.sessao_expirar()
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_n integer;
begin
  update app.sessao set encerrada_em = expira_em, motivo_encerramento = 'expirada'
   where encerrada_em is null and expira_em <= now();
  get diagnostics v_n = row_count;
  -- ended sessions are kept 30 days (who logged in when), then removed
  delete from app.sessao where encerrada_em < now() - interval '30 days';
  delete from app.login_tentativa where expira_em <= now();
  return v_n;
end;
$function$
;

comment on function app.sessao_expirar() is 'Housekeeping (pg_cron job app_sessao_expirar, hourly): marks expired sessions (motivo expirada) and returns how many; removes sessions ended more than 30 days ago and identity-provider logins never finished.';
