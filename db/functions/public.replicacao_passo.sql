CREATE OR REPLACE FUNCTION public.replicacao_passo(p_id uuid, p_step text, p_status text, p_mensagem text DEFAULT NULL::text, p_slot_novo text DEFAULT NULL::text)
 RETURNS public.xls_resetar_replicator_passo
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_exec public.xls_resetar_replicator;
  v_passo public.xls_resetar_replicator_passo;
  v_ordem smallint;
begin
  v_ordem := array_position(array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'DROP_DOCSTORE',
    'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR'], p_step);
  if v_ordem is null then
    raise exception 'passo desconhecido: %', p_step using errcode = 'RR400';
  end if;
  if p_status is null or p_status not in ('EM_ANDAMENTO', 'SUCESSO', 'AVISO', 'PULADO', 'ERRO') then
    raise exception 'status de passo inválido: %', p_status using errcode = 'RR400';
  end if;
  select * into v_exec from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_exec.status <> 'EM_ANDAMENTO' then
    raise exception 'o reset % já terminou (%)', p_id, v_exec.status using errcode = 'RR409';
  end if;

  if p_status = 'EM_ANDAMENTO' then
    update public.xls_resetar_replicator set step_atual = p_step where id = p_id;
    insert into public.xls_resetar_replicator_passo (execucao_id, ordem, step, status, mensagem)
    values (p_id, v_ordem, p_step, 'EM_ANDAMENTO', p_mensagem)
    on conflict (execucao_id, step) do update
      set status = 'EM_ANDAMENTO', mensagem = excluded.mensagem, iniciado_em = now(), finalizado_em = null
    returning * into v_passo;
  else
    insert into public.xls_resetar_replicator_passo (execucao_id, ordem, step, status, mensagem, finalizado_em)
    values (p_id, v_ordem, p_step, p_status, p_mensagem, now())
    on conflict (execucao_id, step) do update
      set status = excluded.status, mensagem = coalesce(excluded.mensagem, xls_resetar_replicator_passo.mensagem),
          finalizado_em = now()
    returning * into v_passo;
    if p_status = 'ERRO' then
      update public.xls_resetar_replicator
         set step_falho = coalesce(step_falho, p_step),
             erro_mensagem = coalesce(erro_mensagem, format('%s: %s', p_step, coalesce(p_mensagem, 'falhou')))
       where id = p_id;
    end if;
  end if;
  if p_slot_novo is not null then
    update public.xls_resetar_replicator set slot_novo = p_slot_novo where id = p_id;
  end if;
  return v_passo;
end;
$function$
;

comment on function public.replicacao_passo(uuid, text, text, text, text) is 'Records a step of a reset: EM_ANDAMENTO starts it (step_atual of the execution), SUCESSO / AVISO (done with a warning) / PULADO / ERRO end it with a message; the first ERRO sets step_falho and erro_mensagem (the execution ends later, by replicacao_falhar). RR400 unknown step or status; RR404 unknown execution; RR409 the execution already ended.';
