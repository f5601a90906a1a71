CREATE OR REPLACE FUNCTION public.replicacao_paridade(p_motor jsonb)
 RETURNS TABLE(tabela text, postgres bigint, motor bigint, igual boolean)
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select coalesce(p.tabela, m.tabela),
         coalesce(p.linhas, 0),
         coalesce(m.linhas, 0),
         coalesce(p.linhas, 0) = coalesce(m.linhas, 0) and coalesce(p.ids, 0) = coalesce(m.ids, 0)
    from public.replicacao_paridade_postgres() p
    full join jsonb_to_recordset(coalesce(p_motor, '[]')) as m(tabela text, linhas bigint, ids numeric)
      on m.tabela = p.tabela
   order by 1;
$function$
;

comment on function public.replicacao_paridade(jsonb) is 'The parity of the sync engine with Postgres, per synced table: p_motor is what the engine serves ([{"tabela", "linhas", "ids"}], read from its storage by the service), compared with replicacao_paridade_postgres(). igual: same number of rows and the same ids (sum of app.replicacao_id_hash). A table on one side only is listed with 0 on the other.';
