CREATE OR REPLACE FUNCTION app.xls_tamanho(p_tabela text, p_coluna text)
 RETURNS integer
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select case when a.atttypid in ('varchar'::regtype, 'bpchar'::regtype) and a.atttypmod > 4 then a.atttypmod - 4 end
    from pg_catalog.pg_attribute a
   where a.attrelid = to_regclass('public.' || quote_ident(p_tabela)) and a.attname = p_coluna and not a.attisdropped;
$function$
;

comment on function app.xls_tamanho(text,text) is 'The maximum length of public.<p_tabela>.<p_coluna> (its varchar(n) or char(n)), null when unbounded: hooks cut values to it instead of repeating the number (the declarative merge cuts the target columns itself).';
