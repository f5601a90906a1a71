CREATE OR REPLACE FUNCTION public.xls_recuperar()
 RETURNS TABLE(orfaos uuid[], reenfileirados uuid[], conjuntos_fechados uuid[])
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_orfaos uuid[] := '{}';
  v_reenf uuid[] := '{}';
  v_conjuntos uuid[] := '{}';
  v record;
  v_fechado boolean;
  v_ids uuid[];
begin
  -- PROCESSANDO whose worker is dead (or holds no job for it) -> ERRO. Processings of live
  -- replicas are left alone, so one replica's restart never fails another's work.
  for v in
    select p.id, p.worker, p.conjunto_id from public.xls_processamento p
     where p.status = 'PROCESSANDO' and app.xls_orfao(p.id, p.worker)
     order by p.id for update skip locked
  loop
    update public.xls_processamento p
       set status = 'ERRO', finalizado_em = now(), alarmar = true, fk_retentar = false,
           erro_mensagem = format('processamento interrompido: o worker %s parou (queda ou reinício da aplicação); use Reprocessar', v.worker)
     where p.id = v.id;
    v_orfaos := v_orfaos || v.id;
    if v.conjunto_id is not null then
      select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.conjunto_id) a;
      if v_fechado then v_conjuntos := v_conjuntos || v.conjunto_id; end if;
      v_reenf := v_reenf || v_ids;
    end if;
  end loop;

  -- PENDENTE without a queued or running job -> queued again.
  for v in
    select p.id from public.xls_processamento p
     where p.status = 'PENDENTE'
       and not exists (select from app.job j
                        where j.kind = 'xls_processar' and j.status in ('pending', 'running')
                          and j.payload ->> 'id' = p.id::text)
     order by p.recebido_em, p.id for update skip locked
  loop
    perform app.xls_enfileirar(v.id);
    v_reenf := v_reenf || v.id;
  end loop;

  -- ERRO by a transient failure whose automatic retry is due -> queued again
  for v in
    select p.id from public.xls_processamento p
     where p.status = 'ERRO' and p.retentar_em <= now()
     order by p.retentar_em, p.id for update skip locked
  loop
    if app.xls_requeue(v.id) then
      v_reenf := v_reenf || v.id;
    end if;
  end loop;

  -- open batches that can close (a safety net: transitions normally close them)
  for v in
    select l.id from public.xls_conjunto l where l.fechado_em is null order by l.recebido_em for update skip locked
  loop
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v.id) a;
    if v_fechado then v_conjuntos := v_conjuntos || v.id; end if;
    v_reenf := v_reenf || v_ids;
  end loop;

  return query select v_orfaos, v_reenf, v_conjuntos;
end;
$function$
;

comment on function public.xls_recuperar() is 'Orphan recovery, at application startup (after the workers of previous processes of the host are forgotten: app.worker_esquecer) every minute (pg_cron job xls_recuperar) and every 10 s by each live replica (JOBS_SWEEP_MS): PROCESSANDO held by a dead worker (app.worker heartbeat older than app.worker_timeout(), or no running job of its own) -> ERRO (alarmar); PENDENTE without a queued job -> queued again; ERRO by a transient failure whose retry is due (retentar_em, set by xls_falhar with XL503) -> queued again; open batches that can close are closed (with their FK retry). With several replicas only dead workers'' processings are touched. Returns what it did.';
