CREATE OR REPLACE FUNCTION app.xls_chave_sql(p_tabela regclass, p_alias text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- jsonb_build_object('col', alias.col, ...) over the natural key (app.xls_chave_natural)
  select 'jsonb_build_object(' || app.xls_sql_lista(format('%%L, %I.%%I', p_alias), ', ', k) || ')'
    from app.xls_chave_natural(p_tabela) k
   where k is not null;
$function$
;

comment on function app.xls_chave_sql(regclass,text) is 'Internal: the SQL expression that builds the natural key (the table''s UNIQUE constraint) of a row aliased p_alias as a JSON object, e.g. jsonb_build_object(''codigo'', x.codigo). Used by the change-set trigger and the undo. NULL for a table without exactly one UNIQUE constraint.';
