CREATE OR REPLACE FUNCTION public.replicacao_assumir(p_id uuid, p_worker text, p_estrategia text)
 RETURNS public.xls_resetar_replicator
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.xls_resetar_replicator;
begin
  -- session-level: held by the worker's connection for as long as it runs the steps; a
  -- process that dies loses its connection, and so the lock (replicacao_recuperar)
  if not pg_try_advisory_lock(hashtext('xls_resetar_replicator'), hashtext(p_id::text)) then
    return null;
  end if;
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    return v_row;
  end if;
  if v_row.assumido_em is not null then
    -- taken before by a process that died (we hold its lock now): never run the steps twice
    v_row := public.replicacao_falhar(p_id, 'interrompida após reinício da aplicação');
    perform pg_advisory_unlock(hashtext('xls_resetar_replicator'), hashtext(p_id::text));
    return v_row;
  end if;
  update public.xls_resetar_replicator set assumido_em = now(), worker = p_worker, estrategia = p_estrategia where id = p_id returning * into v_row;
  return v_row;
end;
$function$
;

comment on function public.replicacao_assumir(uuid, text, text) is 'Called by the job of a reset on its own connection: takes the execution''s advisory lock (session level, held while the steps run) and marks it taken by p_worker under the restart strategy p_estrategia (hosting | manual). Returns null when another session holds the lock; the row unchanged when it is no longer EM_ANDAMENTO; the row in ERRO (''interrompida após reinício da aplicação'') when it had been taken by a process that died. RR404: unknown id.';
