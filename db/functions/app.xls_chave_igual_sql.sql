CREATE OR REPLACE FUNCTION app.xls_chave_igual_sql(p_tabela regclass, p_a text, p_b text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- a.col = b.col and ... over the natural key (app.xls_chave_natural)
  select app.xls_sql_lista(format('%I.%%I = %I.%%I', p_a, p_b), ' and ', k)
    from app.xls_chave_natural(p_tabela) k
   where k is not null;
$function$
;

comment on function app.xls_chave_igual_sql(regclass,text,text) is 'Internal: the SQL condition that two rows aliased p_a and p_b have the same natural key (the table''s UNIQUE constraint), e.g. t.codigo = r.codigo, so that a key given as JSON (jsonb_populate_record) finds its row through the natural-key index. NULL for a table without exactly one UNIQUE constraint (app.xls_chave_natural). Used by public.xls_linhagem and public.xls_desfazer.';
