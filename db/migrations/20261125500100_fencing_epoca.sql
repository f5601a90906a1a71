-- migrate:up
set local lock_timeout = '5s';

-- Fencing tokens. A job's claim has an epoch (app.job.epoch, +1 at every claim) and a
-- processing's run has one (xls_processamento.execucoes, +1 at every xls_iniciar): the worker
-- passes its epoch to every write of the job (app.complete_job, app.fail_job, xls_concluir,
-- xls_falhar, and the merge entry check through p_meta.execucao), and SQL refuses a write of an
-- older epoch, so a worker that was stopped (SIGSTOP, a long GC, a frozen VM) and resumed after
-- its job was reclaimed cannot commit over the new outcome, even under the same worker id. The
-- new signatures are in db/functions; the old ones are dropped here.
alter table app.job add column epoch bigint not null default 0;
comment on column app.job.epoch is 'Fencing token of the current claim: +1 at every app.claim_jobs. app.complete_job and app.fail_job given p_epoch refuse (false / null) a claim that is not the current one.';
drop function if exists app.complete_job(text,bigint);
drop function if exists app.fail_job(text,bigint,text);
drop function if exists public.xls_concluir(uuid,text,jsonb,jsonb);
drop function if exists public.xls_falhar(uuid,text,text,text,jsonb,jsonb);
drop function if exists app.xls_transicao_recusada(uuid,text,text);

-- migrate:down
drop function if exists app.complete_job(text,bigint,bigint);
drop function if exists app.fail_job(text,bigint,text,bigint);
drop function if exists public.xls_concluir(uuid,text,jsonb,jsonb,integer);
drop function if exists public.xls_falhar(uuid,text,text,text,jsonb,jsonb,integer);
drop function if exists app.xls_transicao_recusada(uuid,text,text,integer);
alter table app.job drop column epoch;

-- the previous signatures, as they were
CREATE OR REPLACE FUNCTION app.complete_job(p_worker text, p_id bigint)
 RETURNS boolean
 LANGUAGE sql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  with done as (
    update app.job set status = 'done', locked_by = null, locked_at = null, last_error = null, updated_at = now()
     where id = p_id and status = 'running' and locked_by = p_worker
    returning 1
  )
  select exists (select from done);
$function$
;

comment on function app.complete_job(text,bigint) is 'Marks a claimed job done. False when the worker no longer holds it (it was rescued after the worker was presumed dead).';

CREATE OR REPLACE FUNCTION app.fail_job(p_worker text, p_id bigint, p_error text)
 RETURNS text
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  v_status text;
begin
  update app.job
     set status = case when attempts >= max_attempts then 'failed' else 'pending' end,
         run_at = now() + least(interval '1 second' * power(2, attempts), interval '10 minutes'),
         locked_by = null, locked_at = null, last_error = left(p_error, 4000), updated_at = now()
   where id = p_id and status = 'running' and locked_by = p_worker
  returning status into v_status;
  return v_status;
end;
$function$
;

comment on function app.fail_job(text,bigint,text) is 'Records a failed attempt: back to pending with exponential backoff (2^attempts s, at most 10 min), or failed when max_attempts is reached. Returns the new status, or null when the worker no longer holds the job.';

CREATE OR REPLACE FUNCTION public.xls_concluir(p_id uuid, p_worker text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb)
 RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
 LANGUAGE plpgsql
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
     set status = 'SUCESSO', finalizado_em = now(), erro_mensagem = null, alarmar = false, fk_retentar = false,
         falhas_transitorias = 0, retentar_em = null,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'SUCESSO');
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'SUCESSO'::text, false, null::text, v_fechado, v_ids;
end;
$function$
;

comment on function public.xls_concluir(uuid,text,jsonb,jsonb) is 'Transition PROCESSANDO -> SUCESSO by the worker that holds it; call it in the merge transaction, so data and status commit together. Appends p_linhas_rejeitadas and p_avisos (beyond those the merge recorded). When it is its batch''s master report (RELATORIO18), the batch closes and items waiting for it by a transient FK failure are reprocessed (listed in reprocessados). XL404 unknown id, XL409 not PROCESSANDO by this worker, XL400 malformed lists.';

CREATE OR REPLACE FUNCTION public.xls_falhar(p_id uuid, p_worker text, p_motivo text, p_sqlstate text DEFAULT NULL::text, p_linhas_rejeitadas jsonb DEFAULT '[]'::jsonb, p_avisos jsonb DEFAULT '[]'::jsonb)
 RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado boolean, reprocessados uuid[])
 LANGUAGE plpgsql
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
         fk_falhas = p.fk_falhas + case when v_fk then 1 else 0 end,
         avisos = p.avisos || v_avisos, linhas_rejeitadas = p.linhas_rejeitadas || v_rejeitadas
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id, p.fk_falhas into v_conjunto, v_falhas;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'ERRO');
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
    select l.fechado_em into v_fechado_em from public.xls_conjunto_lote l where l.id = v_conjunto for update;
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

comment on function public.xls_falhar(uuid,text,text,text,jsonb,jsonb) is 'Transition PROCESSANDO -> ERRO by the worker that holds it, in its own transaction after the failed one rolled back. p_sqlstate: the SQLSTATE of the failure, if any; XL503 is a transient failure (the object store unreachable while reading the original, or the database during the processing): silent (alarmar false), erro_mensagem says so, and the processing is requeued by xls_recuperar after 15 s x 2^(n-1) (at most 10 min; retentar_em), up to 5 in a row, the sixth alarms. XL424 (or 23503) is a transient foreign-key failure: inside a batch the first one is silent (alarmar false) and the item is reprocessed once when the batch closes, or at once (status PENDENTE in the result) when it is closed already; the second alarms; a loose file alarms at once. Every other failure alarms. XL400 without motivo or malformed lists, XL404 unknown id, XL409 not PROCESSANDO by this worker.';
CREATE OR REPLACE FUNCTION app.xls_transicao_recusada(p_id uuid, p_worker text, p_destino text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_status text;
  v_worker text;
begin
  select p.status, p.worker into v_status, v_worker from public.xls_processamento p where p.id = p_id;
  if not found then
    raise exception 'processamento % não existe', p_id using errcode = 'XL404';
  end if;
  raise exception 'processamento % está em % (worker %): o worker % não pode levá-lo a %',
    p_id, v_status, coalesce(v_worker, '-'), coalesce(p_worker, '-'), p_destino using errcode = 'XL409';
end;
$function$
;

comment on function app.xls_transicao_recusada(uuid,text,text) is 'Raises the refusal of a transition: XL404 when the processing does not exist, else XL409 naming its current status and worker.';
