CREATE OR REPLACE FUNCTION app.xls_travar(p_tabelas text[])
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tabela text;
begin
  for v_tabela in select distinct t from unnest(p_tabelas) t order by t loop
    perform pg_advisory_xact_lock(hashtextextended('xls_merge:' || v_tabela, 0));
  end loop;
end;
$function$
;

comment on function app.xls_travar(text[]) is 'Serialises merges that delete within a scope of the same tables: one transaction advisory lock per table name (taken in name order, released at commit). Reading, parsing and COPY of concurrent processings still run in parallel.';
