CREATE OR REPLACE FUNCTION public.replicacao_finalizar(p_id uuid)
 RETURNS public.xls_resetar_replicator
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.xls_resetar_replicator;
  v_nuke text;
begin
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    raise exception 'o reset % já terminou (%)', p_id, v_row.status using errcode = 'RR409';
  end if;
  if v_row.step_falho is not null then
    raise exception 'o reset % teve falha no passo %: não pode ser finalizado com sucesso', p_id, v_row.step_falho
      using errcode = 'RR409';
  end if;
  -- the phones clear their data when ultimo_nuke moves: only once the engine was found complete
  -- (SUCESSO), or could not be looked at under the manual strategy (AVISO, said in its message)
  if not exists (select from public.xls_resetar_replicator_passo
                  where execucao_id = p_id and step = 'VERIFICAR_PARIDADE' and status in ('SUCESSO', 'AVISO')) then
    raise exception 'o reset % não conferiu a paridade do motor (passo VERIFICAR_PARIDADE): ultimo_nuke não avança', p_id
      using errcode = 'RR409';
  end if;
  perform public.replicacao_passo(p_id, 'FINALIZAR', 'EM_ANDAMENTO');
  v_nuke := public.replicacao_ultimo_nuke_avancar();
  perform public.replicacao_passo(p_id, 'FINALIZAR', 'SUCESSO', format('ultimo_nuke = %s', v_nuke));
  update public.xls_resetar_replicator
     set status = 'SUCESSO', finalizado_em = now(), ultimo_nuke = v_nuke
   where id = p_id
  returning * into v_row;
  perform app.notificar_bot(app.replicacao_texto_bot(v_row));
  return v_row;
end;
$function$
;

comment on function public.replicacao_finalizar(uuid) is 'Reset step FINALIZAR: advances ultimo_nuke (replicacao_ultimo_nuke_avancar), ends the execution in SUCESSO and queues the messaging-bot notice, in one transaction. RR404 unknown; RR409 already ended, a step failed, or VERIFICAR_PARIDADE did not end SUCESSO or AVISO (the engine was not found complete).';
