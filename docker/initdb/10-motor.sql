-- The sync engine's role and storage database, for docker-compose. The postgres image runs
-- this file once, as the superuser, when it initialises an empty data volume
-- (/docker-entrypoint-initdb.d). On a volume created before this file existed, run it by hand:
--   docker compose exec db psql -U bi -d bi_comercial -f /docker-entrypoint-initdb.d/10-motor.sql
-- See docs/replicacao.md ("The sync engine").

-- The read role of the bi_* tables. The migrations create it too ("if not exists") and grant
-- it SELECT on every bi_* table, and only on those, as tables come and go.
do $$
begin
  if not exists (select from pg_roles where rolname = 'bi_sync_reader') then
    create role bi_sync_reader nologin;
  end if;
end
$$;

-- The engine's login: REPLICATION for its slot, the bi_* tables through bi_sync_reader,
-- nothing else of the service's database. The password is the compose stack's own (local use).
create role bi_motor login replication password 'bi_motor' in role bi_sync_reader;

-- Its storage: a database of its own, where it creates and migrates the schema `powersync`
-- (the reset's DROP_DOCSTORE drops that schema: REPLICATOR_DOCSTORE_URL).
create database bi_motor owner bi_motor;
