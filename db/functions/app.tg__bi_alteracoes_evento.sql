CREATE OR REPLACE FUNCTION app.tg__bi_alteracoes_evento()
 RETURNS event_trigger
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if exists (select from pg_event_trigger_ddl_commands() c
              where c.object_type = 'table' and c.schema_name = 'public' and c.object_identity like 'public.bi\_%') then
    perform app.xls_alteracao_instalar();
  end if;
end;
$function$
;

comment on function app.tg__bi_alteracoes_evento() is 'Event trigger _300_bi_alteracoes: after a CREATE or ALTER TABLE of a bi_* table of public, installs the change-set triggers on it (app.xls_alteracao_instalar), so a new spreadsheet type''s tables are covered without a manual step.';
