CREATE OR REPLACE FUNCTION app.xls_chave_igual_sql(p_tabela regclass, p_a text, p_b text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- a.col = b.col and ... over the columns of the table's UNIQUE constraint
  select string_agg(format('%1$I.%3$I = %2$I.%3$I', p_a, p_b, a.attname), ' and ' order by u.ord)
    from (select c.conkey from pg_catalog.pg_constraint c where c.conrelid = p_tabela and c.contype = 'u' order by c.oid limit 1) k
   cross join lateral unnest(k.conkey) with ordinality u (attnum, ord)
    join pg_catalog.pg_attribute a on a.attrelid = p_tabela and a.attnum = u.attnum;
$function$
;

comment on function app.xls_chave_igual_sql(regclass,text,text) is 'Internal: the SQL condition that two rows aliased p_a and p_b have the same natural key (the table''s UNIQUE constraint), e.g. t.codigo = r.codigo, so that a key given as JSON (jsonb_populate_record) finds its row through the natural-key index. NULL for a table without a UNIQUE constraint. Used by public.xls_linhagem and public.xls_desfazer.';
