CREATE OR REPLACE FUNCTION app.tg__grant_bi_select()
 RETURNS event_trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_cmd record;
  v_rel record;
  v_bi boolean;
  v_tem boolean;
begin
  -- a table that is bi_* of public after the command (created, renamed to bi_*, moved into
  -- public) gets SELECT; one that is not (renamed away, moved out) loses it: the read role
  -- reads the bi_* tables of public and nothing else. Any schema: a table may leave public.
  for v_cmd in
    select distinct d.objid from pg_event_trigger_ddl_commands() d where d.object_type = 'table'
  loop
    select c.relname, n.nspname, c.relacl into v_rel
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.oid = v_cmd.objid and c.relkind in ('r', 'p');
    if not found then
      continue;
    end if;
    v_bi := v_rel.nspname = 'public' and v_rel.relname like 'bi\_%';
    v_tem := exists (select from aclexplode(v_rel.relacl) a
                      where a.grantee = 'bi_sync_reader'::regrole and a.privilege_type = 'SELECT');
    if v_bi and not v_tem then
      execute format('grant select on %I.%I to bi_sync_reader', v_rel.nspname, v_rel.relname);
    elsif not v_bi and v_tem then
      execute format('revoke select on %I.%I from bi_sync_reader', v_rel.nspname, v_rel.relname);
    end if;
  end loop;
end;
$function$
;

comment on function app.tg__grant_bi_select() is 'Event trigger (_100_bi_grant_sync_reader, on CREATE TABLE and ALTER TABLE): a table that is bi_* of public after the command (created, renamed to bi_*, moved into public by SET SCHEMA) is granted SELECT to bi_sync_reader (the sync engine''s read role), so future tables need no manual grant; a table that stops being bi_* of public (renamed away, moved out) has that SELECT revoked: the role reads the bi_* tables of public and nothing else.';
