CREATE OR REPLACE FUNCTION public.replicacao_slots(p_prefixo text DEFAULT 'powersync_'::text)
 RETURNS TABLE(slot_name text, plugin text, slot_type text, active boolean, active_pid integer, restart_lsn pg_lsn, wal_status text)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select s.slot_name::text, s.plugin::text, s.slot_type, s.active, s.active_pid, s.restart_lsn, s.wal_status
    from pg_replication_slots s
   where s.database = current_database() and starts_with(s.slot_name::text, p_prefixo)
   order by s.slot_name;
$function$
;

comment on function public.replicacao_slots(text) is 'The replication slots of this database whose name starts with p_prefixo (the sync engine''s, REPLICATOR_SLOT_PREFIX), with whether a client holds them (active, active_pid). Read by the reset steps AGUARDAR_PARADA and AGUARDAR_REPLICACAO; handy in psql: select * from replicacao_slots();';
