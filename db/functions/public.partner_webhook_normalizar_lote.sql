CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar_lote(p_limite integer DEFAULT 50, p_agora timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id uuid;
  v_n integer := 0;
  v_revisar integer := 0;
  v_res text;
begin
  for v_id in
    select w.id from public.partner_webhook w
     where w.situacao = 'PENDENTE' and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())
     order by w.recebido_em
     limit greatest(p_limite, 1)
     for update skip locked
  loop
    begin
      v_res := public.partner_webhook_normalizar(v_id, coalesce(p_agora, clock_timestamp()));
      if v_res not in ('criado', 'atualizado', 'obsoleto', 'repetido') then
        v_revisar := v_revisar + 1;
      end if;
    exception when others then
      update public.partner_webhook set
        tentativas = tentativas + 1,
        detalhe = left(sqlerrm, 500),
        proxima_tentativa_em = clock_timestamp() + least(interval '5 seconds' * power(2, tentativas), interval '15 minutes'),
        situacao = case when tentativas + 1 >= 8 then 'REVISAR' else situacao end,
        resultado = case when tentativas + 1 >= 8 then 'erro_interno' else resultado end,
        processado_em = case when tentativas + 1 >= 8 then coalesce(p_agora, clock_timestamp()) end
      where id = v_id;
      raise warning 'partner_webhook %: falha na normalização (nova tentativa agendada): %', v_id, sqlerrm;
    end;
    v_n := v_n + 1;
  end loop;
  return jsonb_build_object('tratados', v_n, 'revisar', v_revisar);
end;
$function$
;

comment on function public.partner_webhook_normalizar_lote(integer,timestamp with time zone) is 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work). An unexpected error on one event does not stop the batch: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';
