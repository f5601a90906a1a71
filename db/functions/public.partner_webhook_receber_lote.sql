CREATE OR REPLACE FUNCTION public.partner_webhook_receber_lote(p_ids uuid[], p_corpos bytea[], p_content_types text[] DEFAULT NULL::text[], p_ips text[] DEFAULT NULL::text[], p_user_agents text[] DEFAULT NULL::text[], p_recebidos_em timestamp with time zone[] DEFAULT NULL::timestamp with time zone[])
 RETURNS TABLE(id uuid, inserido boolean)
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
#variable_conflict use_column
declare
  v_n integer := coalesce(cardinality(p_ids), 0);
  v_novos uuid[];
begin
  if coalesce(cardinality(p_corpos), 0) <> v_n
     or (p_content_types is not null and cardinality(p_content_types) <> v_n)
     or (p_ips is not null and cardinality(p_ips) <> v_n)
     or (p_user_agents is not null and cardinality(p_user_agents) <> v_n)
     or (p_recebidos_em is not null and cardinality(p_recebidos_em) <> v_n) then
    raise exception 'partner_webhook_receber_lote: os arrays têm tamanhos diferentes (% ids)', v_n using errcode = 'PW400';
  end if;
  if v_n = 0 then
    return;
  end if;
  if array_position(p_ids, null) is not null then
    raise exception 'partner_webhook_receber_lote: id nulo' using errcode = 'PW400';
  end if;

  -- one multi-row insert, in the arrays' order (recebido_em: the given instant, else the clock
  -- at the row); an id already stored (a replay of the spool) is skipped, never duplicated
  with entrada as (
    select e.id, e.corpo, e.content_type, e.ip, e.user_agent, e.recebido_em, e.n
      from unnest(p_ids, p_corpos,
                  coalesce(p_content_types, array_fill(null::text, array[v_n])),
                  coalesce(p_ips, array_fill(null::text, array[v_n])),
                  coalesce(p_user_agents, array_fill(null::text, array[v_n])),
                  coalesce(p_recebidos_em, array_fill(null::timestamptz, array[v_n])))
           with ordinality as e(id, corpo, content_type, ip, user_agent, recebido_em, n)
  ), ins as (
    insert into public.partner_webhook as w (id, recebido_em, corpo, content_type, ip, user_agent)
    select e.id, coalesce(e.recebido_em, clock_timestamp()), coalesce(e.corpo, ''::bytea),
           left(e.content_type, 200), left(e.ip, 100), left(e.user_agent, 500)
      from entrada e
     order by e.n
    on conflict on constraint partner_webhook_pkey do nothing
    returning w.id
  )
  select coalesce(array_agg(ins.id), '{}') into v_novos from ins;

  if cardinality(v_novos) > 0 then
    begin
      -- shared: concurrent intakes never wait for each other; see partner_normalizar_concluir
      perform pg_advisory_xact_lock_shared(app.partner_normalizar_trava());
      -- under load the job is nearly always there already: a pending one will read these rows, and
      -- a running one cannot end before this commit (its end takes the lock exclusively, then looks
      -- for PENDENTE rows), so only the lookup is paid, not an insert attempt per flush
      if not exists (select from app.job j where j.kind = 'partner_normalizar' and j.unique_key = 'lote'
                                             and j.status in ('pending', 'running')) then
        perform app.enqueue('partner_normalizar', '{}', now(), 'lote', 100);
      end if;
    exception when others then
      -- the events are stored: nothing may turn the answer into an error. partner_tick re-enqueues them.
      raise warning 'partner_webhook (% eventos): falha ao enfileirar a normalização: %', cardinality(v_novos), sqlerrm;
    end;
  end if;

  return query
    select e.id, e.id = any (v_novos)
      from unnest(p_ids) with ordinality as e(id, n)
     order by e.n;
end;
$function$
;

comment on function public.partner_webhook_receber_lote(uuid[], bytea[], text[], text[], text[], timestamp with time zone[]) is 'Group-commit intake of POST /webhook/partner and replay of the local spool: stores many deliveries with one multi-row insert, in the arrays'' order (one element per event; content types, IPs, user agents and instants may be null arrays). The id is chosen by the edge at intake, so storing the same event twice (a spool replay after a crash, or after a commit whose answer was lost) inserts it once: inserido = false for an id already stored. recebido_em = the given instant (the spool''s arrival time) or the clock at the row. Makes sure the normalisation job runs, as partner_webhook_receber does, in the caller''s transaction. PW400 when the arrays differ in length or an id is null. Never fails on the content of a body.';
