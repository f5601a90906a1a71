-- returned RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado
-- boolean, reprocessados uuid[]) before app.xls_desfecho, the same columns
drop function if exists public.xls_concluir(uuid,text,jsonb,jsonb,integer);

CREATE OR REPLACE FUNCTION public.xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb, p_execucao integer DEFAULT NULL::integer)
 RETURNS SETOF app.xls_desfecho
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_avisos jsonb := app.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := app.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  update public.xls_processamento p
     set status = 'SUCESSO', finalizado_em = now(), erro_mensagem = null, erro_codigo = null, alarmar = false, fk_retentar = false,
         falhas_transitorias = 0, retentar_em = null,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
     and (p_execucao is null or p.execucoes = p_execucao)
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'SUCESSO', p_execucao);
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'SUCESSO'::text, false, null::text, v_fechado, v_ids;
end;
$function$
;

comment on function public.xls_concluir(uuid,text,jsonb,jsonb,integer) is 'Transition PROCESSANDO -> SUCESSO by the worker that holds it; call it in the merge transaction, so data and status commit together. Appends p_linhas_rejeitadas and p_avisos (beyond those the merge recorded). When it is its batch''s master report (RELATORIO18), the batch closes and items waiting for it by a transient FK failure are reprocessed (listed in reprocessados). XL404 unknown id, XL409 not PROCESSANDO by this worker, or p_execucao (the fencing token: execucoes returned by xls_iniciar; the service always passes it) not the current run, XL400 malformed lists.';
