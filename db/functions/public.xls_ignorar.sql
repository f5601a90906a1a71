-- returned RETURNS TABLE(processamento_id uuid, status text, alarmar boolean, motivo text, conjunto_fechado
-- boolean, reprocessados uuid[]) before app.xls_desfecho, the same columns
drop function if exists public.xls_ignorar(uuid,text,text);

CREATE OR REPLACE FUNCTION public.xls_ignorar(p_id uuid, p_worker text, p_motivo text)
 RETURNS SETOF app.xls_desfecho
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_conjunto uuid;
  v_fechado boolean := false;
  v_ids uuid[] := '{}';
begin
  if nullif(btrim(p_motivo), '') is null then
    raise exception 'motivo ausente' using errcode = 'XL400';
  end if;
  update public.xls_processamento p
     set status = 'IGNORADO', finalizado_em = now(), erro_mensagem = p_motivo, alarmar = false, fk_retentar = false
   where p.id = p_id and p.status = 'PROCESSANDO' and p.worker = p_worker
  returning p.conjunto_id into v_conjunto;
  if not found then
    perform app.xls_transicao_recusada(p_id, p_worker, 'IGNORADO');
  end if;
  if v_conjunto is not null then
    select a.fechado, a.reprocessados into v_fechado, v_ids from public.xls_conjunto_avaliar(v_conjunto) a;
  end if;
  return query select p_id, 'IGNORADO'::text, false, p_motivo, v_fechado, v_ids;
end;
$function$
;

comment on function public.xls_ignorar(uuid,text,text) is 'Transition PROCESSANDO -> IGNORADO (a valid xlsx of no known type; motivo ''tipo não reconhecido''). A resend of the same file reprocesses it. XL400 without motivo, XL404 unknown id, XL409 not PROCESSANDO by this worker.';
