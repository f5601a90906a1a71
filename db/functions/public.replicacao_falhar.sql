CREATE OR REPLACE FUNCTION public.replicacao_falhar(p_id uuid, p_mensagem text)
 RETURNS public.xls_resetar_replicator
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_row public.xls_resetar_replicator;
begin
  select * into v_row from public.xls_resetar_replicator where id = p_id for update;
  if not found then
    raise exception 'reset % não existe', p_id using errcode = 'RR404';
  end if;
  if v_row.status <> 'EM_ANDAMENTO' then
    return v_row;
  end if;
  -- the step that was running when the execution stopped ends with it
  update public.xls_resetar_replicator_passo
     set status = 'ERRO', finalizado_em = now(), mensagem = coalesce(mensagem || ' — ', '') || coalesce(p_mensagem, 'falhou')
   where execucao_id = p_id and status = 'EM_ANDAMENTO';
  update public.xls_resetar_replicator
     set status = 'ERRO', finalizado_em = now(),
         step_falho = coalesce(step_falho, step_atual),
         erro_mensagem = case when erro_mensagem is null then coalesce(p_mensagem, 'falhou')
                              when p_mensagem is null or position(p_mensagem in erro_mensagem) > 0 then erro_mensagem
                              else erro_mensagem || '; ' || p_mensagem end
   where id = p_id
  returning * into v_row;
  perform app.notificar_bot(app.replicacao_texto_bot(v_row));
  return v_row;
end;
$function$
;

comment on function public.replicacao_falhar(uuid, text) is 'Ends a reset in ERRO (step_atual kept; step_falho = the first failed step, else the step that was running) and queues the messaging-bot notice, in one transaction. No automatic cleanup: replicacao_instrucoes(step_falho) says what to do by hand. A no-op on an execution already ended. RR404 unknown.';
