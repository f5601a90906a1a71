CREATE OR REPLACE FUNCTION public.partner_webhook_normalizar_lote(p_limite integer DEFAULT 50, p_agora timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET enable_sort TO 'off'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_ids uuid[];
  v_tamanhos bigint[];
  v_agora timestamptz := coalesce(p_agora, clock_timestamp());
  v_de integer := 1;
  v_bytes bigint := 0;
  v_revisar integer := 0;
  v_tratados integer := 0;
begin
  -- fast path, all in ONE subtransaction: the claim of the batch and its normalisation as sets
  -- (app.partner_webhook_normalizar_ids: a few statements per set, not per event), one set per
  -- 8 MiB of bodies (a set holds its bodies and payloads in memory). One subtransaction per event
  -- costs a transaction id and a commit entry each, and more than 64 in a transaction make every
  -- concurrent snapshot check slower (the intake's inserts run meanwhile). The rows are locked by
  -- the subtransaction that updates them: locked by the transaction and updated by a
  -- subtransaction, each row's xmax became a MultiXact that every later visit of the row (the
  -- next claims' index scans among them) had to look up.
  begin
    -- the batch, oldest first. Read in order from partner_webhook_pendente_idx, never by sorting
    -- every PENDENTE row (enable_sort off): the statistics of a table growing fast from empty say
    -- few rows, the planner then prefers scan-and-sort, and each batch of 50 read a backlog of
    -- 20,000 (34 ms a batch, a cost that grew with the backlog). Likewise enable_seqscan off: the
    -- plans of this call (and of the functions it calls) are kept by the job's connection for as
    -- long as it lives; made while the table was small, a sequential scan per event would stay as
    -- the table grows. Every statement here has an index to use, but the one that has none
    -- (partner_configuracao, one row, read by the gate) then costs 10^10 in the planner's units,
    -- and JIT compiled it at each call (10-60 ms of CPU per order released): jit off. And
    -- generic plans: planned once per connection, not again at each call (a batch of one spent a
    -- third of its CPU planning) — except this claim, planned at each call (EXECUTE) with its
    -- limit and the statistics of the moment: a generic plan made while every row was PENDENTE
    -- read partner_webhook_recebido_em_idx from the oldest event on, through every row already
    -- normalised, for as long as the connection lived.
    execute 'select array_agg(s.id order by s.recebido_em), array_agg(s.tamanho order by s.recebido_em)
      from (select w.id, w.recebido_em, octet_length(w.corpo)::bigint as tamanho from public.partner_webhook w
             where w.situacao = ''PENDENTE'' and (w.proxima_tentativa_em is null or w.proxima_tentativa_em <= clock_timestamp())
             order by w.recebido_em
             limit $1
             for update skip locked) s'
      into v_ids, v_tamanhos using greatest(p_limite, 1);
    if v_ids is null then
      return jsonb_build_object('tratados', 0, 'revisar', 0);
    end if;
    for i in 1 .. cardinality(v_ids) loop
      v_bytes := v_bytes + v_tamanhos[i];
      if v_bytes >= 8388608 or i = cardinality(v_ids) then
        v_revisar := v_revisar + app.partner_webhook_normalizar_ids(v_ids[v_de:i], v_agora);
        v_de := i + 1;
        v_bytes := 0;
      end if;
    end loop;
    return jsonb_build_object('tratados', cardinality(v_ids), 'revisar', v_revisar);
  exception when others then
    v_revisar := 0; -- an event failed unexpectedly: nothing of the batch stays; redone one event at a time below
  end;

  -- one event at a time, each in its own subtransaction, in order; an event another caller took
  -- meanwhile (the batch's locks went with its subtransaction) is left to it
  for i in 1 .. cardinality(v_ids) loop
    begin
      perform 1 from public.partner_webhook w where w.id = v_ids[i] and w.situacao = 'PENDENTE' for update skip locked;
      if found then
        v_revisar := v_revisar + app.partner_webhook_normalizar_ids(array[v_ids[i]], coalesce(p_agora, clock_timestamp()));
        v_tratados := v_tratados + 1;
      end if;
    exception when others then
      update public.partner_webhook set
        tentativas = tentativas + 1,
        detalhe = left(sqlerrm, 500),
        proxima_tentativa_em = clock_timestamp() + least(interval '5 seconds' * power(2, tentativas), interval '15 minutes'),
        situacao = case when tentativas + 1 >= 8 then 'REVISAR' else situacao end,
        resultado = case when tentativas + 1 >= 8 then 'erro_interno' else resultado end,
        processado_em = case when tentativas + 1 >= 8 then coalesce(p_agora, clock_timestamp()) end
      where id = v_ids[i] and situacao = 'PENDENTE';
      v_tratados := v_tratados + 1;
      raise warning 'partner_webhook %: falha na normalização (nova tentativa agendada): %', v_ids[i], sqlerrm;
    end;
  end loop;
  return jsonb_build_object('tratados', v_tratados, 'revisar', v_revisar);
end;
$function$
;

comment on function public.partner_webhook_normalizar_lote(integer,timestamp with time zone) is 'Normalises up to p_limite due PENDENTE events, oldest first, in one transaction (FOR UPDATE SKIP LOCKED: several callers split the work), read in order from the partial index of PENDENTE rows (enable_sort and enable_seqscan off: a batch costs the same whatever the backlog or the table''s size when its plans were made; jit off: a plan forced off a sequential scan looks costly enough to be compiled at each call; generic plans: planned once per connection). The batch is normalised as sets (app.partner_webhook_normalizar_ids, one set per 8 MiB of bodies: a few statements per set, the events applied in order, several events of one order in one batch too), claimed and normalised in one subtransaction; when an event fails unexpectedly the batch is redone one event at a time, each locked again (one another caller took meanwhile is left to it) in its own subtransaction, so that the error does not stop the others: that event is retried with backoff (5 s doubling, at most 15 min) and flagged REVISAR/erro_interno after 8 attempts. p_agora (default: the clock once per batch) is processado_em and the instant of the transitions. Returns {tratados: events handled (0 = nothing due), revisar: of which flagged for review}.';
