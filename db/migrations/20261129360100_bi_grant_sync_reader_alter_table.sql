-- migrate:up

-- The read role follows renames and SET SCHEMA (app.tg__grant_bi_select): the grant event
-- trigger fires on ALTER TABLE too, like the publication's (_200_bi_publicar). Before, a table
-- renamed to bi_* was published but unreadable by the engine, and one renamed away kept SELECT.
drop event trigger _100_bi_grant_sync_reader;
create event trigger _100_bi_grant_sync_reader on ddl_command_end
  when tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE')
  execute function app.tg__grant_bi_select();

-- tables renamed before this migration: the role gets exactly the bi_* tables of public
do $$
declare
  v record;
begin
  for v in
    select format('%I.%I', n.nspname, c.relname) as nome, (n.nspname = 'public' and c.relname like 'bi\_%') as bi,
           exists (select from aclexplode(c.relacl) a where a.grantee = 'bi_sync_reader'::regrole and a.privilege_type = 'SELECT') as tem
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p')
  loop
    if v.bi and not v.tem then
      execute format('grant select on %s to bi_sync_reader', v.nome);
    elsif v.tem and not v.bi then
      execute format('revoke select on %s from bi_sync_reader', v.nome);
    end if;
  end loop;
end $$;

-- migrate:down
drop event trigger _100_bi_grant_sync_reader;
create event trigger _100_bi_grant_sync_reader on ddl_command_end
  when tag in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
  execute function app.tg__grant_bi_select();
