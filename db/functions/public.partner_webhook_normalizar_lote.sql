CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar_lote(p_limite integer DEFAULT 50, p_agora timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET enable_sort TO 'off'
 SET enable_seqscan TO 'off'
AS $function$
declare
  v_ids uuid[];
  v_novos public.partner_webhook[] := '{}';
  v_row public.partner_webhook;
  v_bytes bigint := 0;
  v_revisar integer := 0;
begin
  -- the batch, oldest first, locked by this transaction (not by a subtransaction below: the locks
  -- outlive a retry). Read in order from partner_webhook_pendente_idx, never by sorting every
  -- PENDENTE row (enable_sort off): the statistics of a table growing fast from empty say few
  -- rows, the planner then prefers scan-and-sort, and each batch of 50 read a backlog of 20,000
  -- (34 ms a batch, a cost that grew with the backlog). Likewise enable_seqscan off: the plans
  -- of this call (and of the functions it calls) are kept by the job's connection for as long as
  -- it lives; made while the table was small, a sequential scan per event would stay as the
  -- table grows. Every statement here has an index to use.
  select array_agg(s.id order by s.recebido_em) into v_ids
    from (select w.id, w.recebido_em from public.partner_webhook w
           where w.situacao = 'PENDENTE' and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())
           order by w.recebido_em
           limit greatest(p_limite, 1)
           for update skip locked) s;
  if v_ids is null then
    return jsonb_build_object('tratados', 0, 'revisar', 0);
  end if;

  -- fast path: the whole batch in one subtransaction, its rows written by one UPDATE (one per
  -- 8 MiB of bodies: a body is read one at a time, and the rows waiting for the UPDATE hold their
  -- payload). One subtransaction per event costs a transaction id and a commit entry each, and
  -- more than 64 in a transaction make every concurrent snapshot check slower (the intake's
  -- inserts run meanwhile).
  begin
    for i in 1 .. cardinality(v_ids) loop
      select * into v_row from public.partner_webhook where id = v_ids[i];
      v_row := app.partner_webhook_interpretar(v_row, coalesce(p_agora, clock_timestamp()));
      if v_row.resultado not in ('criado', 'atualizado', 'obsoleto', 'repetido') then
        v_revisar := v_revisar + 1;
      end if;
      v_bytes := v_bytes + octet_length(v_row.corpo);
      v_row.corpo := null; -- not written back
      v_novos := v_novos || v_row;
      if v_bytes >= 8388608 or i = cardinality(v_ids) then
        update public.partner_webhook w set situacao = n.situacao, resultado = n.resultado, detalhe = n.detalhe,
               evento = n.evento, code = n.code, payload = n.payload, processado_em = n.processado_em
          from unnest(v_novos) n
         where w.id = n.id;
        v_novos := '{}';
        v_bytes := 0;
      end if;
    end loop;
    return jsonb_build_object('tratados', cardinality(v_ids), 'revisar', v_revisar);
  exception when others then
    v_revisar := 0; -- an event failed unexpectedly: nothing of the batch stays; redone one event at a time below
  end;

  for i in 1 .. cardinality(v_ids) loop
    begin
      select * into v_row from public.partner_webhook where id = v_ids[i];
      v_row := app.partner_webhook_interpretar(v_row, coalesce(p_agora, clock_timestamp()));
      update public.partner_webhook set situacao = v_row.situacao, resultado = v_row.resultado, detalhe = v_row.detalhe,
             evento = v_row.evento, code = v_row.code, payload = v_row.payload, processado_em = v_row.processado_em
       where id = v_row.id;
      if v_row.resultado not in ('criado', 'atualizado', 'obsoleto', 'repetido') then
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
      where id = v_ids[i];
      raise warning 'partner_webhook %: falha na normalização (nova tentativa agendada): %', v_ids[i], sqlerrm;
    end;
  end loop;
  return jsonb_build_object('tratados', cardinality(v_ids), 'revisar', v_revisar);
end;
$function$
;

comment on function public.partner_webhook_normalizar_lote(integer,timestamp with time zone) is 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work), read in order from the partial index of PENDENTE rows (enable_sort and enable_seqscan off: a batch costs the same whatever the backlog or the table''s size when its plans were made). The batch runs in one subtransaction (app.partner_webhook_interpretar for each event, then one UPDATE of the batch''s rows per 8 MiB of bodies); when an event fails unexpectedly the batch is redone one event at a time, each in its own subtransaction, so that the error does not stop the others: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';
