CREATE OR REPLACE FUNCTION app.replicacao_id_hash(p_id text)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select ('x' || left(md5(p_id), 8))::bit(32)::bigint;
$function$
;

comment on function app.replicacao_id_hash(text) is 'A 32-bit number from a row id (the first 8 hex digits of its md5). Summed per table on both sides of the parity check (replicacao_paridade_postgres here, the same expression over the engine''s storage), so that two sets of ids with the same count but different members differ.';
