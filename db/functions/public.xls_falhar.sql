-- returned RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado
-- boolean, reprocessados uuid[]) before app.xls_desfecho, the same columns
drop function if exists public.xls_falhar(uuid,text,text,text,jsonb,jsonb,integer);

CREATE OR REPLACE FUNCTION public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text DEFAULT NULL::text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb, p_execucao integer DEFAULT NULL::integer)
 RETURNS SETOF app.xls_desfecho
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_fk boolean := coalesce(p_sqlstate in ('XL424', '23503'), false);
  v_transitoria boolean := coalesce(p_sqlstate = 'XL503', false);
  v_transitorias integer;
  v_retentar timestamptz;
  v_avisos jsonb := app.xls_avisos_normalizar(p_avisos);
  v_rejeitadas jsonb := app.xls_rejeitadas_normalizar(p_linhas_rejeitadas);
  v_codigo text := nullif(btrim(p_sqlstate), '');
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
  -- the refused rows stay on the processing (the failed transaction took the merge's with it):
  -- the caller's (the reader's invalid rows) and those the message names (a missing registration)
  v_rejeitadas := app.xls_rejeitadas_normalizar(v_rejeitadas || app.xls_falha_linhas(p_motivo, v_codigo));
  update public.xls_processamento p
     set status = 'ERRO', finalizado_em = now(), erro_mensagem = p_motivo, erro_codigo = v_codigo, alarmar = true, fk_retentar = false,
         exclusao_retida = coalesce(p_sqlstate = 'XL428', false),
         fk_falhas = p.fk_falhas + case when v_fk then 1 else 0 end,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
     and (p_execucao is null or p.execucoes = p_execucao)
  returning p.conjunto_id, p.fk_falhas into v_conjunto, v_falhas;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'ERRO', p_execucao);
  end if;

  -- Transient failure (XL503: the object store or the database unreachable): silent, and retried by
  -- itself after 15 s x 2^(n-1) (at most 10 min; xls_recuperar requeues it when due), up
  -- to 5 times in a row; the sixth alarms.
  if v_transitoria then
    update public.xls_processamento p set falhas_transitorias = p.falhas_transitorias + 1
     where p.id = p_id returning p.falhas_transitorias into v_transitorias;
    if v_transitorias <= 5 then
      v_alarmar := false;
      v_retentar := now() + least(interval '15 seconds' * power(2, v_transitorias - 1), interval '10 minutes');
      v_motivo := format('%s (falha transitória %s de 5: nova tentativa automática em %s s)', p_motivo, v_transitorias,
                         ceil(extract(epoch from v_retentar - now()))::int);
    else
      v_motivo := format('%s (falha transitória repetida %s vezes: sem nova tentativa automática; use Reprocessar)', p_motivo, v_transitorias);
    end if;
    update public.xls_processamento p set alarmar = v_alarmar, retentar_em = v_retentar, erro_mensagem = v_motivo where p.id = p_id;
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

comment on function public.xls_falhar(uuid,text,text,text,jsonb,jsonb,integer) is 'Transition PROCESSANDO -> ERRO by the worker that holds it, in its own transaction after the failed one rolled back. p_sqlstate: the SQLSTATE of the failure, if any; XL503 is a transient failure (the object store unreachable while reading the original, or the database during the processing): silent (alarmar false), erro_mensagem says so, and the processing is requeued by xls_recuperar after 15 s x 2^(n-1) (at most 10 min; retentar_em), up to 5 in a row, the sixth alarms. XL424 (or 23503) is a transient foreign-key failure: inside a batch the first one is silent (alarmar false) and the item is reprocessed once when the batch closes, or at once (status PENDENTE in the result) when it is closed already; the second alarms; a loose file alarms at once. Every other failure alarms. The refused rows are kept: p_linhas_rejeitadas (the reader''s invalid rows) and the rows a missing-registration message names (app.xls_falha_linhas); p_sqlstate is kept in erro_codigo (the edge passes XL415 for a file that is not a readable spreadsheet); XL428 (the mass-deletion guard) marks exclusao_retida. XL400 without motivo or malformed lists, XL404 unknown id, XL409 not PROCESSANDO by this worker or p_execucao (the fencing token: execucoes returned by xls_iniciar) not the current run.';
