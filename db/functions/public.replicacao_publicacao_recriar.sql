CREATE OR REPLACE FUNCTION public.replicacao_publicacao_recriar(p_nome text DEFAULT 'powersync'::text)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  if p_nome is null or p_nome !~ '^[a-z_][a-z0-9_]{0,62}$' then
    raise exception 'nome de publicação inválido: %', p_nome using errcode = 'RR400';
  end if;
  insert into app.replicacao_publicacao (nome) values (p_nome) on conflict (nome) do nothing;
  execute format('drop publication if exists %I', p_nome);
  return public.replicacao_publicacao_sincronizar(p_nome);
end;
$function$
;

comment on function public.replicacao_publicacao_recriar(text) is 'Reset step RECRIAR_PUBLICACAO, also for psql: registers p_nome in app.replicacao_publicacao (so later bi_* tables join it), drops the publication and creates it again with exactly the bi_* tables of public. Returns how many tables it covers. RR400: invalid name.';
