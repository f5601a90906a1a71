-- migrate:up
-- Replication health (docs/replicacao.md, "Replication health"): Postgres 15 does not record
-- since when a replication slot has had no client (pg_replication_slots.inactive_since exists
-- only from Postgres 17), so a pg_cron job looks at this database's slots every minute
-- (app.replicacao_slots_observar) and keeps, per slot, when it was last seen active.
-- public.replicacao_saude reads it to say since when an inactive slot is inactive.

create table app.replicacao_slot_visto (
  slot text primary key,
  observado_desde timestamptz not null,
  visto_em timestamptz not null,
  ativo_visto_em timestamptz
);
comment on table app.replicacao_slot_visto is 'What the pg_cron job replicacao_slots_observar saw of each replication slot of this database, one row per existing slot (a dropped slot''s row goes at the next look). Written only by app.replicacao_slots_observar; read by public.replicacao_saude (inactive_since).';
comment on column app.replicacao_slot_visto.slot is 'The slot''s name (pg_replication_slots.slot_name).';
comment on column app.replicacao_slot_visto.observado_desde is 'Since when the slot has been looked at without a gap (first look, or the first look after the job stopped for more than 5 minutes).';
comment on column app.replicacao_slot_visto.visto_em is 'The last look at the slot.';
comment on column app.replicacao_slot_visto.ativo_visto_em is 'The last look that found the slot active (a client holding it) since observado_desde; null when it was never seen active in that span.';

select app.schedule('replicacao_slots_observar', '* * * * *', 'select app.replicacao_slots_observar()');

-- migrate:down
select app.unschedule('replicacao_slots_observar');
drop table app.replicacao_slot_visto;
-- The functions that read the table (app.replicacao_slots_observar, public.replicacao_saude)
-- are files of db/functions: a release without those files leaves them in place, unused.
