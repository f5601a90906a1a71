CREATE OR REPLACE FUNCTION app.xls_chave_natural(p_tabela regclass)
 RETURNS text[]
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select array_agg(k.attname::text order by u.ord)
    from pg_catalog.pg_constraint con
   cross join lateral unnest(con.conkey) with ordinality u (attnum, ord)
    join pg_catalog.pg_attribute k on k.attrelid = con.conrelid and k.attnum = u.attnum
   where con.conrelid = p_tabela and con.contype = 'u'
     and (select count(*) from pg_catalog.pg_constraint c2 where c2.conrelid = p_tabela and c2.contype = 'u') = 1;
$function$
;

comment on function app.xls_chave_natural(regclass) is 'Internal, the natural key of a target of the declarative merge: the columns of its single UNIQUE constraint, in order; null when it has none or more than one.';
