CREATE OR REPLACE FUNCTION app.xls_tabelas_nivel(p_tabelas text[])
 RETURNS TABLE(tabela text, nivel integer)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  -- level 0: references no other table of public; level n: the longest chain of references
  with recursive fk as (
    select distinct c.conrelid::regclass::text as filha, c.confrelid::regclass::text as mae
      from pg_catalog.pg_constraint c
     where c.contype = 'f' and c.conrelid <> c.confrelid and c.connamespace = 'public'::regnamespace),
  caminho (tabela, nivel) as (
    select fk.filha, 1 from fk
    union all
    select fk.filha, c.nivel + 1 from caminho c join fk on fk.mae = c.tabela where c.nivel < 20)
  select t, coalesce(max(c.nivel), 0)::integer
    from unnest(p_tabelas) t left join caminho c on c.tabela = 'public.' || t
   group by t;
$function$
;

comment on function app.xls_tabelas_nivel(text[]) is 'Internal: the foreign-key depth of each table of p_tabelas (0 = references no other table of public): the undo removes rows deepest first and puts rows back shallowest first.';
