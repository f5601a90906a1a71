CREATE OR REPLACE FUNCTION public.replicacao_saude(p_prefixo text DEFAULT 'powersync_'::text)
 RETURNS TABLE(slot_name text, active boolean, active_pid integer, confirmed_flush_lsn pg_lsn, current_lsn pg_lsn,
   lag_bytes numeric, retained_bytes numeric, write_lag interval, flush_lag interval, replay_lag interval,
   wal_status text, safe_wal_size bigint, inactive_since timestamptz, inactive_at_least boolean)
 LANGUAGE sql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with wal as (
    -- a standby has no current insert position: the position it has replayed
    select case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end as lsn
  )
  select s.slot_name::text, s.active, s.active_pid, s.confirmed_flush_lsn, wal.lsn,
         pg_wal_lsn_diff(wal.lsn, s.confirmed_flush_lsn), pg_wal_lsn_diff(wal.lsn, s.restart_lsn),
         r.write_lag, r.flush_lag, r.replay_lag, s.wal_status, s.safe_wal_size,
         -- the observer's last look at this slot is recent (it runs every minute): it can tell
         case when not s.active and v.visto_em >= now() - interval '5 minutes'
              then coalesce(v.ativo_visto_em, v.observado_desde) end,
         case when not s.active and v.visto_em >= now() - interval '5 minutes'
              then v.ativo_visto_em is null end
    from pg_replication_slots s
   cross join wal
    left join pg_stat_replication r on r.pid = s.active_pid
    left join app.replicacao_slot_visto v on v.slot = s.slot_name::text
   where s.database = current_database() and starts_with(s.slot_name::text, p_prefixo)
   order by s.slot_name;
$function$
;

comment on function public.replicacao_saude(text) is 'Replication health, one row per replication slot of this database whose name starts with p_prefixo (the sync engine''s, REPLICATOR_SLOT_PREFIX): active and active_pid (a client holds it), confirmed_flush_lsn (the WAL position the client confirmed), current_lsn (this server''s WAL position now), lag_bytes (WAL written since the confirmed position: pg_wal_lsn_diff(current, confirmed_flush_lsn)), retained_bytes (WAL the slot keeps on disk: from restart_lsn), write_lag / flush_lag / replay_lag (pg_stat_replication of the walsender holding the slot; null when unknown: no client, caught up and idle, or a caller without pg_read_all_stats looking at another role''s walsender), wal_status and safe_wal_size (pg_replication_slots), inactive_since (for an inactive slot, the last minute the pg_cron job replicacao_slots_observar saw it active; null when active or when the job has not looked in 5 minutes) and inactive_at_least (true: the slot was already inactive when the job started looking, so it is inactive since inactive_since or earlier). Reads only. In psql: select * from replicacao_saude(); The screen /admin/replicacao and GET /api/transporte/admin/replicacao/saude show it (docs/replicacao.md, "Replication health").';
