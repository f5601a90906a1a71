CREATE OR REPLACE FUNCTION public.xls_log_arquivo(p_id uuid, p_em timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || p_id::text || '.log';
$function$
;

comment on function public.xls_log_arquivo(uuid,timestamp with time zone) is 'Execution-log path of a processing relative to APP_LOGS_DIR: <yyyy>/<mm>/<id>.log, month of its receipt in America/Sao_Paulo.';
