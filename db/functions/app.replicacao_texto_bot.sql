CREATE OR REPLACE FUNCTION app.replicacao_texto_bot(p_exec public.xls_resetar_replicator)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  select case p_exec.status
    when 'SUCESSO' then concat_ws(E'\n',
      '✅ Reset da replicação concluído',
      format('Execução: %s', p_exec.id),
      case when p_exec.motivo is not null then format('Motivo: %s', p_exec.motivo) end,
      format('Slots removidos: %s', coalesce(nullif(array_to_string(p_exec.slots_removidos, ', '), ''), 'nenhum')),
      case when p_exec.estrategia = 'manual'
           then 'Reinício do motor de sincronização: MANUAL (confira se ele voltou e está replicando)'
           else format('Novo slot ativo: %s', coalesce(p_exec.slot_novo, '—')) end,
      format('ultimo_nuke: %s (os aparelhos limpam os dados e sincronizam do zero)', p_exec.ultimo_nuke))
    else concat_ws(E'\n',
      '❌ Reset da replicação terminou com ERRO',
      format('Execução: %s', p_exec.id),
      case when p_exec.motivo is not null then format('Motivo: %s', p_exec.motivo) end,
      format('Passo: %s', coalesce(p_exec.step_falho, p_exec.step_atual, '—')),
      format('Erro: %s', p_exec.erro_mensagem),
      'Nenhuma limpeza automática foi feita: veja as instruções de recuperação no detalhe do reset (/admin/replicacao).')
  end;
$function$
;

comment on function app.replicacao_texto_bot(public.xls_resetar_replicator) is 'The messaging-bot text (pt-BR) of a reset''s outcome, SUCESSO or ERRO.';
