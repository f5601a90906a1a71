CREATE OR REPLACE FUNCTION app.tg__publicar_bi()
 RETURNS event_trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_cmd record;
  v_nome text;
  v_mudou boolean := false;
begin
  -- a bi_* table of public not yet published (created, renamed to bi_*, moved into public), or a
  -- published table that is no longer a bi_* table of public (renamed away, moved out by SET
  -- SCHEMA: any schema, so the command's schema is not a filter): the publications are set again
  for v_cmd in
    select * from pg_event_trigger_ddl_commands()
     where object_type in ('table', 'table column')
  loop
    select c.relname into v_nome from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.oid = v_cmd.objid and c.relkind in ('r', 'p') and n.nspname = 'public';
    if not found then
      v_nome := null;
    end if;
    if exists (select from app.replicacao_publicacao r join pg_publication p on p.pubname = r.nome
                where coalesce(v_nome like 'bi\_%', false) <> exists (select from pg_publication_rel pr
                                                       where pr.prpubid = p.oid and pr.prrelid = v_cmd.objid)) then
      v_mudou := true;
    end if;
  end loop;
  if v_mudou then
    perform public.replicacao_publicacao_sincronizar(null);
  end if;
end;
$function$
;

comment on function app.tg__publicar_bi() is 'Event trigger (_200_bi_publicar): when a table of public becomes bi_* (created, renamed or moved into public by SET SCHEMA) or a published table stops being a bi_* table of public (renamed away or moved out), the publications of app.replicacao_publicacao are set again to exactly the bi_* tables (replicacao_publicacao_sincronizar). Dropped tables leave publications by themselves.';
