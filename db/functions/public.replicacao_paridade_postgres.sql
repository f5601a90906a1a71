CREATE OR REPLACE FUNCTION public.replicacao_paridade_postgres()
 RETURNS TABLE(tabela text, linhas bigint, ids numeric)
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  c app.replicacao_consulta;
begin
  for c in select * from app.replicacao_consulta order by 1 loop
    tabela := c.tabela;
    execute format('select count(*), coalesce(sum(app.replicacao_id_hash(id::text)), 0) from public.%I where %s',
                   c.tabela, coalesce(c.filtro, 'true'))
       into linhas, ids;
    return next;
  end loop;
end;
$function$
;

comment on function public.replicacao_paridade_postgres() is 'What the phones must hold, per synced table: the rows of the table under the sync configuration''s filter (app.replicacao_consulta) and the sum of app.replicacao_id_hash of their ids. One side of the reset''s parity check; in psql: select * from replicacao_paridade_postgres();';
