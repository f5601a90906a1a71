CREATE OR REPLACE FUNCTION app.xls_sql_lista(p_modelo text, p_sep text, p_a text[], p_b text[] DEFAULT NULL::text[])
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select string_agg(format(p_modelo, x.a, x.b), p_sep order by x.o)
    from unnest(p_a, coalesce(p_b, p_a)) with ordinality x (a, b, o);
$function$
;

comment on function app.xls_sql_lista(text,text,text[],text[]) is 'Internal, the SQL lists the declarative merge generates: format(p_modelo, a[i], b[i]) for every element of p_a (and of p_b, which defaults to p_a), in order, joined by p_sep; null for an empty list. Example: app.xls_sql_lista(''t.%1$I = s.%1$I'', '' and '', chave).';
