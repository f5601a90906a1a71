CREATE OR REPLACE FUNCTION public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text DEFAULT NULL::text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb)
 RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_fk boolean := coalesce(p_sqlstate in ('XL424', '23503'), false);
  v_avisos jsonb := app.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := app.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_conjunto uuid;
  v_falhas integer;
  v_fechado_em timestamptz;
  v_alarmar boolean := true;
  v_motivo text := p_motivo;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
  v_mais uuid[];
  v_status text;
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  update public.xls_processamento p
     set status = 'ERRO', finalizado_em = now(), erro_mensagem = p_motivo, alarmar = true, fk_retentar = false,
         exclusao_retida = coalesce(p_sqlstate = 'XL428', false),
         fk_falhas = p.fk_falhas + case when v_fk then 1 else 0 end,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id, p.fk_falhas into v_conjunto, v_falhas;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'ERRO');
  end if;

  -- Transient FK policy: inside a batch, the first failure is silent and retried once
  -- (when the batch closes, or now if it is closed already); the second alarms. A loose
  -- file alarms at once.
  if v_fk and v_conjunto is not null and v_falhas = 1 then
    v_alarmar := false;
    select l.fechado_em into v_fechado_em from public.xls_conjunto l where l.id = v_conjunto for update;
    if v_fechado_em is null then
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática quando o relatório mestre do conjunto for concluído)';
      update public.xls_processamento p set alarmar = false, fk_retentar = true, erro_mensagem = v_motivo where p.id = p_id;
    else
      update public.xls_processamento p set alarmar = false where p.id = p_id;
      perform app.xls_requeue(p_id);
      v_ids := array[p_id];
      v_motivo := p_motivo || ' (falha transitória: nova tentativa automática agora)';
    end if;
  end if;

  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_mais from public.xls_conjunto_avaliar(v_conjunto) a;
    v_ids := v_ids || v_mais;
  end if;
  select p.status into v_status from public.xls_processamento p where p.id = p_id;
  return query select p_id, v_status, v_alarmar, v_motivo, v_fechado, v_ids;
end;
$function$
;

comment on function public.xls_falhar(uuid,text,text,text,jsonb,jsonb) is 'Transition PROCESSANDO -> ERRO by the worker that holds it, in its own transaction after the failed one rolled back. p_sqlstate: the SQLSTATE of the failure, if any; XL424 (or 23503) is a transient foreign-key failure: inside a batch the first one is silent (alarmar false) and the item is reprocessed once when the batch closes, or at once (status PENDENTE in the result) when it is closed already; the second alarms; a loose file alarms at once. Every other failure alarms. XL400 without motivo or malformed lists, XL404 unknown id, XL409 not PROCESSANDO by this worker.';
