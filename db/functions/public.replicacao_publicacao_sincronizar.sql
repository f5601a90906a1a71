CREATE OR REPLACE FUNCTION public.replicacao_publicacao_sincronizar(p_nome text DEFAULT NULL::text)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_pub text;
  v_tabelas text;
  v_n integer;
  v_rel record;
begin
  select string_agg(format('%I.%I', n.nspname, c.relname), ', ' order by c.relname), count(*)
    into v_tabelas, v_n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\_%'
     and not c.relispartition;
  for v_pub in
    select r.nome from app.replicacao_publicacao r where p_nome is null or r.nome = p_nome order by r.nome
  loop
    if not exists (select from pg_publication where pubname = v_pub) then
      execute format('create publication %I', v_pub);
    end if;
    if v_tabelas is not null then
      execute format('alter publication %I set table %s', v_pub, v_tabelas);
    else
      for v_rel in select * from pg_publication_tables where pubname = v_pub loop
        execute format('alter publication %I drop table %I.%I', v_pub, v_rel.schemaname, v_rel.tablename);
      end loop;
    end if;
  end loop;
  return coalesce(v_n, 0);
end;
$function$
;

comment on function public.replicacao_publicacao_sincronizar(text) is 'Sets the publication p_nome (or, with null, every publication of app.replicacao_publicacao) to exactly the bi_* tables of public, creating it when missing. Returns how many tables it covers. Called by the event trigger _200_bi_publicar and by replicacao_publicacao_recriar.';
