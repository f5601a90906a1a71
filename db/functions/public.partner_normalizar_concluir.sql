CREATE OR REPLACE FUNCTION public.partner_normalizar_concluir(p_worker text, p_job bigint)
 RETURNS boolean
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
begin
  -- waits for the intakes in flight; those that come after find no running job and enqueue a new one
  perform pg_advisory_xact_lock(app.partner_normalizar_trava());
  if exists (select from public.partner_webhook w where w.situacao = 'PENDENTE'
              and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())) then
    return false;
  end if;
  perform app.complete_job(p_worker, p_job);
  return true;
end;
$function$
;

comment on function public.partner_normalizar_concluir(text,bigint) is 'End of the partner_normalizar job: under the exclusive advisory lock (no intake in flight), either there is still due work (false: the job goes on) or the job is completed in this same transaction (true), so an event stored afterwards always enqueues a new job. Events waiting for a retry are picked up by partner_tick.';
