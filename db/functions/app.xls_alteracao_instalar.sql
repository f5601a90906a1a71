CREATE OR REPLACE FUNCTION app.xls_alteracao_instalar()
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  t record;
  g record;
  v_n integer := 0;
begin
  for t in select c.relname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'bi\_%' and c.relname <> 'bi_configuracao'
              and app.xls_chave_natural(c.oid) is not null
              and exists (select from pg_catalog.pg_attribute a where a.attrelid = c.oid and a.attname = 'id' and not a.attisdropped)
            order by c.relname loop
    -- only the missing ones: a trigger a DBA disabled stays disabled
    for g in select * from (values ('ins', 'insert', 'new table as novas'), ('upd', 'update', 'old table as velhas new table as novas'),
                                   ('del', 'delete', 'old table as velhas')) x (sufixo, evento, tabelas) loop
      if not exists (select from pg_catalog.pg_trigger tg where tg.tgrelid = format('public.%I', t.relname)::regclass
                        and tg.tgname = '_900_xls_alteracao_' || g.sufixo) then
        execute format('create trigger %I after %s on public.%I referencing %s for each statement execute function app.tg__xls_alteracao()',
                       '_900_xls_alteracao_' || g.sufixo, g.evento, t.relname, g.tabelas);
      end if;
    end loop;
    v_n := v_n + 1;
  end loop;
  return v_n;
end;
$function$
;

comment on function app.xls_alteracao_instalar() is 'Installs the missing change-set triggers (an existing one is left as it is, enabled or disabled by a DBA) _900_xls_alteracao_ins/_upd/_del (app.tg__xls_alteracao) on every bi_* table of public that has an id and a natural key (exactly one UNIQUE constraint, app.xls_chave_natural), bi_configuracao excepted. Called by the migration that created app.xls_alteracao and by the event trigger _300_bi_alteracoes for tables created later. Returns the number of tables.';

-- The triggers need their function, which lives in db/functions: they are installed here, each
-- time the definitions are applied (after every migration), not by a migration; and the event
-- trigger covers a bi_* table created between two migrations.
select app.xls_alteracao_instalar();
do $$
begin
  if not exists (select from pg_catalog.pg_event_trigger where evtname = '_300_bi_alteracoes') then
    create event trigger _300_bi_alteracoes on ddl_command_end
      when tag in ('CREATE TABLE', 'ALTER TABLE')
      execute function app.tg__bi_alteracoes_evento();
  end if;
end $$;
