CREATE OR REPLACE FUNCTION app.partner_normalizar_trava()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$ select 7245501::bigint $function$
;

comment on function app.partner_normalizar_trava() is 'Advisory-lock key between the intake (shared) and the end of the normalisation job (exclusive), so that no stored event is left without a job.';
