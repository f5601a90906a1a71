CREATE OR REPLACE FUNCTION app.xls_chave_sql(p_tabela regclass, p_alias text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- jsonb_build_object('col', alias.col, ...) over the columns of the table's UNIQUE constraint
  select 'jsonb_build_object(' || string_agg(format('%L, %I.%I', a.attname, p_alias, a.attname), ', ' order by u.ord) || ')'
    from (select c.conkey from pg_catalog.pg_constraint c where c.conrelid = p_tabela and c.contype = 'u' order by c.oid limit 1) k
   cross join lateral unnest(k.conkey) with ordinality u (attnum, ord)
    join pg_catalog.pg_attribute a on a.attrelid = p_tabela and a.attnum = u.attnum;
$function$
;

comment on function app.xls_chave_sql(regclass,text) is 'Internal: the SQL expression that builds the natural key (the table''s UNIQUE constraint) of a row aliased p_alias as a JSON object, e.g. jsonb_build_object(''codigo'', x.codigo). Used by the change-set trigger and the undo. NULL for a table without a UNIQUE constraint.';
