CREATE OR REPLACE FUNCTION public.replicacao_paridade_conferir(p_id uuid, p_motor jsonb)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_tabelas jsonb;
  v_ok boolean;
begin
  select coalesce(jsonb_agg(to_jsonb(r) order by r.tabela), '[]'), coalesce(bool_and(r.igual), false)
    into v_tabelas, v_ok
    from public.replicacao_paridade(p_motor) r;
  update public.xls_resetar_replicator set paridade = v_tabelas where id = p_id and status = 'EM_ANDAMENTO';
  if not found then
    raise exception 'reset % não existe ou já terminou', p_id using errcode = 'RR409';
  end if;
  return v_ok;
end;
$function$
;

comment on function public.replicacao_paridade_conferir(uuid, jsonb) is 'One look of the reset step VERIFICAR_PARIDADE: compares what the engine serves (p_motor, see replicacao_paridade) with Postgres, keeps the figures in xls_resetar_replicator.paridade and answers whether every table is equal (false also when no table is configured). RR409: the execution is not running.';
