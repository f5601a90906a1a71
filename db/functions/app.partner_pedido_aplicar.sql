CREATE OR REPLACE FUNCTION app.partner_pedido_aplicar(p_lidos app.partner_pedido_lido[], p_origem text, p_agora timestamp with time zone)
 RETURNS text[]
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_n integer := coalesce(cardinality(p_lidos), 0);
  v_resultados text[] := array_fill(null::text, array[v_n]);
  v_rodadas integer[];
  v_rodada integer := 0;
  v_ultima integer;
  v_criados integer[];
  v_ids uuid[];
  v_n_alvo integer[];
  v_res_alvo text[];
  v_mudados uuid[];
  v_cancelar uuid[];
  v_posicao jsonb;
  v_codigos text[];
  v_legiveis integer;
begin
  -- Rounds: an order observed several times in the set is applied once per round, in the set's
  -- order (its k-th observation in round k), so each statement below sees each code at most
  -- once and a later observation sees what the earlier one did; different orders do not meet.
  select array_agg(s.k order by s.n), max(s.k), count(s.k) into v_rodadas, v_ultima, v_legiveis
    from (select l.ordinality as n, case when l.erro is null then row_number() over (partition by l.code order by l.ordinality) end as k
            from unnest(p_lidos) with ordinality l) s;

  while v_rodada < coalesce(v_ultima, 0) loop
    v_rodada := v_rodada + 1;
    -- code -> position of this round's observations (a code appears once in a round)
    select jsonb_object_agg(l.code, l.ordinality), array_agg(l.code) into v_posicao, v_codigos
      from unnest(p_lidos) with ordinality l where v_rodadas[l.ordinality] = v_rodada;

    -- new orders, with their 'captura' transition
    with novo as (
      insert into public.partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro,
          cliente_nome, cliente_email, cliente_documento, itens, recurso, origem, nao_pago_visto_em, recebido_visto_em)
      select l.code, case when l.status = 'cancelled' then 'CANCELADO' else 'CAPTURADO' end, l.status, l.total, l.pago_em,
             l.atualizado, l.cliente ->> 'name', l.cliente ->> 'email', l.cliente ->> 'document', coalesce(l.itens, '[]'), l.recurso, p_origem,
             case when l.status in ('waiting_payment', 'refused') then l.atualizado end,
             case when l.status = 'received' then l.atualizado end
        from unnest(p_lidos) with ordinality l
       where v_rodadas[l.ordinality] = v_rodada
      on conflict (code) do nothing
      returning id, code, estado, status
    ), captura as (
      insert into public.partner_pedido_transicao (pedido_id, de, para, motivo, em)
      select novo.id, null, novo.estado, 'captura', p_agora from novo
    )
    select array_agg((v_posicao ->> novo.code)::integer), array_agg(novo.id) filter (where novo.estado = 'CAPTURADO' and app.partner_status_pago(novo.status))
      into v_criados, v_ids
      from novo;

    -- orders that exist: the newest observation (updated_at, then lifecycle rank) wins; an older
    -- one never overwrites the state but still counts as gate evidence (the instants seen unpaid
    -- and received, a paid_at not known yet)
    if coalesce(cardinality(v_criados), 0) < cardinality(v_codigos) then
      with alvo as (
        select l.ordinality as n, p.id, l.code, l.status, l.total, l.pago_em, l.atualizado, l.cliente, l.itens, l.recurso,
               (l.atualizado, app.partner_status_ordem(l.status)) > (p.atualizado_no_parceiro, app.partner_status_ordem(p.status)) as mais_novo,
               l.atualizado = p.atualizado_no_parceiro and l.status = p.status as igual
          from unnest(p_lidos) with ordinality l
          join public.partner_pedido p on p.code = l.code and p.code = any(v_codigos) -- by its index, whatever the plan
         where v_rodadas[l.ordinality] = v_rodada and l.ordinality <> all(coalesce(v_criados, '{}'))
           for update of p
      ), mudou as (
        update public.partner_pedido p set
          status = case when a.mais_novo then a.status else p.status end,
          total = case when a.mais_novo then coalesce(a.total, p.total) else p.total end,
          pago_em = case when a.mais_novo then coalesce(a.pago_em, p.pago_em) else coalesce(p.pago_em, a.pago_em) end,
          atualizado_no_parceiro = greatest(p.atualizado_no_parceiro, a.atualizado),
          cliente_nome = case when a.mais_novo then coalesce(a.cliente ->> 'name', p.cliente_nome) else p.cliente_nome end,
          cliente_email = case when a.mais_novo then coalesce(a.cliente ->> 'email', p.cliente_email) else p.cliente_email end,
          cliente_documento = case when a.mais_novo then coalesce(a.cliente ->> 'document', p.cliente_documento) else p.cliente_documento end,
          itens = case when a.mais_novo then coalesce(a.itens, p.itens) else p.itens end,
          recurso = case when a.mais_novo then a.recurso else p.recurso end,
          origem = case when a.mais_novo then p_origem else p.origem end,
          nao_pago_visto_em = case when a.status in ('waiting_payment', 'refused')
                                then least(p.nao_pago_visto_em, a.atualizado) else p.nao_pago_visto_em end,
          recebido_visto_em = case when a.status = 'received'
                                then greatest(p.recebido_visto_em, a.atualizado) else p.recebido_visto_em end
          from alvo a
         where p.id = a.id
           and (a.mais_novo
             or (a.pago_em is not null and p.pago_em is null)
             or (a.status in ('waiting_payment', 'refused') and p.nao_pago_visto_em is distinct from least(p.nao_pago_visto_em, a.atualizado))
             or (a.status = 'received' and p.recebido_visto_em is distinct from greatest(p.recebido_visto_em, a.atualizado)))
        returning p.id, p.estado, p.status
      )
      select array_agg(a.n), array_agg(case when a.mais_novo then 'atualizado' when a.igual then 'repetido' else 'obsoleto' end),
             array_agg(m.id) filter (where m.estado = 'CAPTURADO' and app.partner_status_pago(m.status)),
             array_agg(m.id) filter (where m.status = 'cancelled' and m.estado <> 'CANCELADO')
        into v_n_alvo, v_res_alvo, v_mudados, v_cancelar
        from alvo a left join mudou m on m.id = a.id;
      for i in 1 .. coalesce(cardinality(v_n_alvo), 0) loop
        v_resultados[v_n_alvo[i]] := v_res_alvo[i];
      end loop;
      -- a newer cancelled status moves the order to CANCELADO (nothing new: no transition, no gate)
      if v_cancelar is not null then
        perform app.partner_transicoes(v_cancelar, 'CANCELADO', array_fill('cancelamento'::text, array[cardinality(v_cancelar)]), p_agora);
      end if;
      v_ids := coalesce(v_ids, '{}') || coalesce(v_mudados, '{}');
    end if;
    for i in 1 .. coalesce(cardinality(v_criados), 0) loop
      v_resultados[v_criados[i]] := 'criado';
    end loop;

    -- the gate decides for every order created or changed that it could release (CAPTURADO with a
    -- paid status, from the rows the statements returned: the others are not even read again)
    if cardinality(v_ids) > 0 then
      perform app.partner_gate(v_ids, p_agora);
    end if;
  end loop;

  if coalesce(cardinality(array_remove(v_resultados, null)), 0) <> v_legiveis then
    raise exception 'partner_pedido_aplicar: pedido sem resultado (apagado durante a normalização?)';
  end if;
  return v_resultados;
end;
$function$
;

comment on function app.partner_pedido_aplicar(app.partner_pedido_lido[],text,timestamp with time zone) is 'Applies a set of orders read by app.partner_pedido_ler (those with erro are skipped: null result) to partner_pedido, in the set''s order, with a few set-based statements per round (an order observed k times in the set is applied in k rounds): new codes inserted (ON CONFLICT DO NOTHING) with their ''captura'' transition; existing ones locked and updated when the observation is newer (updated_at, then lifecycle rank) or is new gate evidence; a newer cancelled status moves the order to CANCELADO (app.partner_transicoes); then app.partner_gate for the orders created or changed that is CAPTURADO with a paid status. Returns criado | atualizado | obsoleto | repetido per element. The one place of these rules: partner_pedido_observar (one order) and the webhook''s batches call it.';
