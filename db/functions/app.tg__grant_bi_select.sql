CREATE OR REPLACE FUNCTION app.tg__grant_bi_select()
 RETURNS event_trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_cmd record;
begin
  for v_cmd in
    select * from pg_event_trigger_ddl_commands()
    where object_type = 'table' and schema_name = 'public'
  loop
    if (select c.relname from pg_class c where c.oid = v_cmd.objid) like 'bi\_%' then
      execute format('grant select on %s to bi_sync_reader', v_cmd.object_identity);
    end if;
  end loop;
end;
$function$
;

comment on function app.tg__grant_bi_select() is 'Event trigger: every table created in public whose name starts with bi_ is granted SELECT to bi_sync_reader (the sync engine''s read role), so future tables need no manual grant.';
