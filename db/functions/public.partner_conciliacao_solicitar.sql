CREATE OR REPLACE FUNCTION public.partner_conciliacao_solicitar(p_dia date, p_motivo text DEFAULT 'manual'::text, p_agora timestamp with time zone DEFAULT now())
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_job bigint;
begin
  if p_motivo is null or p_motivo not in ('agendada', 'manual') then
    raise exception 'motivo de conciliação desconhecido: %', p_motivo using errcode = 'PW400';
  end if;
  if p_dia is null or p_dia >= (p_agora at time zone 'America/Sao_Paulo')::date then
    raise exception 'só um dia já encerrado pode ser conciliado (dia %, hoje %)', p_dia,
      (p_agora at time zone 'America/Sao_Paulo')::date using errcode = 'PW400';
  end if;
  v_job := app.enqueue('partner_conciliar', jsonb_build_object('dia', p_dia), now(), 'conciliacao:' || p_dia, 10);
  if v_job is null then
    return null; -- this day's reconciliation is already queued or running
  end if;
  insert into public.partner_conciliacao as c (dia, status, motivo, solicitada_em, job_id)
  values (p_dia, 'PENDENTE', p_motivo, p_agora, v_job)
  on conflict (dia) do update set status = 'PENDENTE', motivo = excluded.motivo, solicitada_em = excluded.solicitada_em,
    job_id = excluded.job_id, erro = null;
  return v_job;
end;
$function$
;

comment on function public.partner_conciliacao_solicitar(date,text,timestamp with time zone) is 'Requests the reconciliation of one past day (America/Sao_Paulo) of orders: enqueues the job partner_conciliar (the service fetches the platform''s list of that day and calls partner_conciliar; up to 10 attempts with backoff). A DBA may call select partner_conciliacao_solicitar(''2026-11-27''). Returns the job id, or null when that day''s job is already queued or running. Today or a future day -> PW400. The day''s previous verdict stays until the new one replaces it (status PENDENTE meanwhile).';
