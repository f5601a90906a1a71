CREATE OR REPLACE FUNCTION public.partner_conciliar(p_dia date, p_pedidos jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET jit TO 'off'
AS $function$
declare
  v_row public.partner_conciliacao;
  v_ilegiveis integer;
  v_faltam jsonb[];
  v_faltam_codes text[];
  v_codes text[];
  v_lidos app.partner_pedido_lido[];
  v_legiveis app.partner_pedido_lido[];
  v_status text;
  v_out jsonb;
begin
  if p_dia is null then
    raise exception 'dia não informado' using errcode = 'PW400';
  end if;
  if p_pedidos is null or jsonb_typeof(p_pedidos) <> 'array' then
    raise exception 'a lista de pedidos da plataforma não é uma lista' using errcode = 'PW422';
  end if;
  -- the day's row, locked: two runs of one day are one after the other
  insert into public.partner_conciliacao (dia, status, solicitada_em)
  values (p_dia, 'EM_ANDAMENTO', p_agora) on conflict (dia) do nothing;
  select * into v_row from public.partner_conciliacao where dia = p_dia for update;

  -- 1. the platform's list: one entry per code (the newest updated_at when listed twice)
  create temporary table if not exists partner_conciliar_lista (
    code text primary key, status text, atualizado timestamptz, recurso jsonb,
    classe text, pedido_id uuid, preenchido boolean, erro text
  ) on commit drop;
  truncate partner_conciliar_lista;
  select count(*) filter (where jsonb_typeof(e) <> 'object' or nullif(btrim(e ->> 'code'), '') is null)
    into v_ilegiveis from jsonb_array_elements(p_pedidos) e;
  insert into partner_conciliar_lista (code, status, atualizado, recurso)
  select distinct on (btrim(e ->> 'code')) btrim(e ->> 'code'), lower(e ->> 'status'),
         case when (e ->> 'updated_at') ~ '^\d{4}-\d{2}-\d{2}' and app.partner_instante_valido(e ->> 'updated_at')
              then (e ->> 'updated_at')::timestamptz end,
         e
    from jsonb_array_elements(p_pedidos) e
   where jsonb_typeof(e) = 'object' and nullif(btrim(e ->> 'code'), '') is not null
   order by btrim(e ->> 'code'), e ->> 'updated_at' desc nulls last;
  select array_agg(code) into v_codes from partner_conciliar_lista;

  -- 2. classify by what is stored: by webhook (a delivery of the code), recovered (stored, no
  --    delivery: the poll, the contingency, by hand), missing (not stored); an order that a
  --    previous run of this day backfilled stays missing (backfilled), so a second run says the same
  update partner_conciliar_lista l set pedido_id = p.id
    from public.partner_pedido p where p.code = l.code and p.code = any (v_codes);
  update partner_conciliar_lista l set classe = case
      when l.pedido_id is null then 'faltando'
      when exists (select from public.partner_conciliacao_item i
                    where i.dia = p_dia and i.tipo = 'faltando' and i.code = l.code) then 'faltando'
      when exists (select from public.partner_webhook w where w.code = l.code) then 'webhook'
      else 'recuperado' end;
  update partner_conciliar_lista l set preenchido = true where l.classe = 'faltando' and l.pedido_id is not null;

  -- 3. backfill the missing ones through the one normalisation of the webhook and the pulls
  --    (app.partner_pedido_ler + app.partner_pedido_aplicar, which partner_pedido_observar
  --    calls with a set of one), origem 'conciliacao'
  select array_agg(l.recurso order by l.code), array_agg(l.code order by l.code) into v_faltam, v_faltam_codes
    from partner_conciliar_lista l where l.classe = 'faltando' and l.pedido_id is null;
  if v_faltam is not null then
    v_lidos := app.partner_pedido_ler(v_faltam, array_fill(null::text, array[cardinality(v_faltam)]),
                                      array_fill(null::jsonb, array[cardinality(v_faltam)]));
    update partner_conciliar_lista l set erro = x.erro, preenchido = false
      from unnest(v_lidos) with ordinality x join unnest(v_faltam_codes) with ordinality k(code, n) on k.n = x.ordinality
     where x.erro is not null and l.code = k.code;
    select array_agg(x) into v_legiveis from unnest(v_lidos) x where x.erro is null;
    if v_legiveis is not null then
      perform app.partner_pedido_aplicar(v_legiveis, 'conciliacao', p_agora);
    end if;
    update partner_conciliar_lista l set pedido_id = p.id, preenchido = true
      from public.partner_pedido p
     where l.classe = 'faltando' and l.pedido_id is null and l.erro is null and p.code = l.code and p.code = any (v_codes);
    update partner_conciliar_lista l set preenchido = false, erro = coalesce(l.erro, 'não gravado')
     where l.classe = 'faltando' and l.pedido_id is null;
  end if;

  -- 4. the items, rewritten whole: recovered, missing, and status differences (listed only)
  delete from public.partner_conciliacao_item where dia = p_dia;
  insert into public.partner_conciliacao_item (dia, code, tipo, status_plataforma, atualizado_plataforma,
                                               status_aqui, estado_aqui, atualizado_aqui, preenchido, erro)
  select p_dia, l.code, l.classe, l.status, l.atualizado, p.status, p.estado, p.atualizado_no_parceiro,
         case when l.classe = 'faltando' then l.preenchido end, l.erro
    from partner_conciliar_lista l
    left join public.partner_pedido p on p.id = l.pedido_id
   where l.classe in ('recuperado', 'faltando')
  union all
  select p_dia, l.code, 'divergente', l.status, l.atualizado, p.status, p.estado, p.atualizado_no_parceiro, null, null
    from partner_conciliar_lista l
    join public.partner_pedido p on p.id = l.pedido_id
   where p.status is distinct from l.status;

  -- 5. the verdict
  update public.partner_conciliacao c set
    na_plataforma = s.na_plataforma, aqui = s.aqui, por_webhook = s.por_webhook, recuperados = s.recuperados,
    faltando = s.faltando, preenchidos = s.preenchidos, faltando_apos = s.faltando_apos,
    divergentes = (select count(*) from public.partner_conciliacao_item i where i.dia = p_dia and i.tipo = 'divergente'),
    ilegiveis = v_ilegiveis,
    status = case when s.faltando_apos > 0 or v_ilegiveis > 0 then 'INCOMPLETO' else 'CONCILIADO' end,
    conciliada_em = p_agora, erro = null,
    avisado = case when s.faltando_apos > 0 or v_ilegiveis > 0 then 'INCOMPLETO' end
    from (select count(*)::integer as na_plataforma,
                 count(*) filter (where l.pedido_id is not null)::integer as aqui,
                 count(*) filter (where l.classe = 'webhook')::integer as por_webhook,
                 count(*) filter (where l.classe = 'recuperado')::integer as recuperados,
                 count(*) filter (where l.classe = 'faltando')::integer as faltando,
                 count(*) filter (where l.classe = 'faltando' and l.preenchido)::integer as preenchidos,
                 count(*) filter (where l.pedido_id is null)::integer as faltando_apos
            from partner_conciliar_lista l) s
   where c.dia = p_dia
  returning c.status into v_status;

  -- 6. a day still not proved complete: one notice (error tracker, e-mail), once per day and status
  if v_status = 'INCOMPLETO' and v_row.avisado is distinct from 'INCOMPLETO' then
    perform app.partner_aviso_criar('conciliacao_incompleta', null, null,
      (select jsonb_build_object('dia', c.dia, 'status', c.status, 'na_plataforma', c.na_plataforma, 'aqui', c.aqui,
                                 'faltando', c.faltando, 'faltando_apos', c.faltando_apos, 'ilegiveis', c.ilegiveis,
                                 'codigos', (select jsonb_agg(i.code order by i.code) from public.partner_conciliacao_item i
                                              where i.dia = p_dia and i.tipo = 'faltando' and not i.preenchido))
         from public.partner_conciliacao c where c.dia = p_dia), p_agora);
  end if;
  v_out := public.partner_conciliacao_dia(p_dia);
  drop table partner_conciliar_lista;
  return v_out;
end;
$function$
;

comment on function public.partner_conciliar(date,jsonb,timestamp with time zone) is 'Reconciles one day (America/Sao_Paulo) of orders against the platform''s list of that day (p_pedidos: the jsonb array of its orders, {code, status, updated_at, ...}, every page together; the job partner_conciliar passes what GET /orders?created_since=&created_until= returned; a DBA may paste one). By code: stored by webhook (a delivery of the code), recovered (stored only through the poll, the contingency or by hand), missing (not stored) — backfilled at once through the same normalisation as the webhook and the pulls (app.partner_pedido_ler + app.partner_pedido_aplicar, origem conciliacao; the gate''s rules apply as always) — and status differences (the platform''s status is not the stored one), listed, never changed. Records the verdict in partner_conciliacao and its items in partner_conciliacao_item (rewritten whole) and returns it as partner_conciliacao_dia does. Idempotent: a second run with the same list gives the same verdict (an order a previous run backfilled stays missing/backfilled) and no second notice. A day with orders still missing after the backfill (unreadable) or entries without a code is INCOMPLETO, with one ''conciliacao_incompleta'' notice (error tracker, e-mail). Volatile; not a list -> PW422.';
