CREATE OR REPLACE FUNCTION public.erp_sync(p_items jsonb, p_dry_run boolean DEFAULT true, p_idempotency_key text DEFAULT NULL::text)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  c_limite constant integer := 200;
  v_n integer;
  v_bad bigint;
  v_hash text;
  v_prev record;
  v_linhas app.erp_sync_item[];
  v_ids bigint[];
  v_atualizados integer := 0;
  v_resposta jsonb;
  v_audit_id bigint;
begin
  -- the envelope (the edge checks it first, with the same rules; these guard psql callers)
  if p_dry_run is null then
    raise exception 'p_dry_run deve ser true ou false' using errcode = 'ES400';
  end if;
  if p_items is null or jsonb_typeof(p_items) <> 'array' then
    raise exception 'items deve ser uma lista de itens' using errcode = 'ES400';
  end if;
  v_n := jsonb_array_length(p_items);
  if v_n = 0 then
    raise exception 'items está vazia: envie de 1 a % itens', c_limite using errcode = 'ES400';
  end if;
  if v_n > c_limite then
    raise exception 'items tem % itens; o limite é % por requisição', v_n, c_limite using errcode = 'ES413';
  end if;
  select min(o) - 1 into v_bad from jsonb_array_elements(p_items) with ordinality as t(e, o) where jsonb_typeof(e) <> 'object';
  if v_bad is not null then
    raise exception 'items[%] deve ser um objeto', v_bad using errcode = 'ES400';
  end if;
  if p_idempotency_key is not null and (length(p_idempotency_key) not between 1 and 255 or p_idempotency_key !~ '^[\x20-\x7e]+$') then
    raise exception 'Idempotency-Key deve ter de 1 a 255 caracteres ASCII visíveis' using errcode = 'ES400';
  end if;

  v_hash := encode(sha256(convert_to(p_items::text, 'UTF8')), 'hex');

  -- idempotency: calls with the same key are serialised; a key seen in the last 24 h
  -- answers the stored response (same items, same mode) or 422 (other items or mode), applying nothing
  if p_idempotency_key is not null then
    perform pg_advisory_xact_lock(hashtextextended('erp_sync:' || p_idempotency_key, 0));
    select a.id, a.request_sha256, a.dry_run, a.response into v_prev
      from public.erp_sync_audit a
     where a.idempotency_key = p_idempotency_key and a.replay_of is null and a.recusa_status is null
       and a.called_at > now() - interval '24 hours'
     order by a.id desc limit 1;
    if found then
      -- the fingerprint is the items and the mode: a dry-run answer is never replayed
      -- for a call made after the switch to real writes (nor the reverse)
      if v_prev.request_sha256 <> v_hash then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h com outro corpo (chamada %); use uma chave nova para outra requisição',
          p_idempotency_key, v_prev.id using errcode = 'ES422';
      end if;
      if v_prev.dry_run <> p_dry_run then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h em modo %, e o serviço agora está em modo % (chamada %); use uma chave nova',
          p_idempotency_key, case when v_prev.dry_run then 'simulação (dry run)' else 'real' end,
          case when p_dry_run then 'simulação (dry run)' else 'real' end, v_prev.id using errcode = 'ES422';
      end if;
      insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                         request_sha256, idempotency_key, replay_of, response)
      select a.dry_run, a.recebidos, a.casados, a.atualizados, a.nao_encontrados, a.ambiguos, a.erros,
             a.request_sha256, a.idempotency_key, a.id, null
        from public.erp_sync_audit a where a.id = v_prev.id;
      return v_prev.response;
    end if;
  end if;

  -- 1. read and validate every item, mark duplicates, find candidate variants
  with lidos as (
    select r.*
      from jsonb_array_elements(p_items) with ordinality as t(item, o)
     cross join lateral app.erp_sync_item_ler((t.o - 1)::integer, t.item) as r
  ), marcados as (
    select l.idx, l.ean, l.sku, l.preco_cheio, l.preco_desconto, l.estoque,
           case when coalesce(l.ean, l.sku) is not null
                 and row_number() over (partition by (case when l.ean is not null then 'ean:' || l.ean else 'sku:' || l.sku end)
                                        order by l.idx) > 1
                then array['item_duplicado'] || l.erros else l.erros end as erros
      from lidos l
  ), candidatos as (
    select m.*, x.ids, x.skus
      from marcados m
      left join lateral (
        select array_agg(c.id order by c.sku) as ids, array_agg(c.sku order by c.sku) as skus
          from (select v.id, v.sku from public.variante v where v.ean = m.ean
                union all
                select v.id, v.sku from public.variante v where m.ean is null and v.sku = m.sku) c
      ) x on cardinality(m.erros) = 0
  ), alvos as (
    -- two items naming the same variant by different keys (EAN and sku): the later one is a duplicate
    select c.*, cardinality(c.ids) = 1
                and row_number() over (partition by (case when cardinality(c.ids) = 1 then c.ids[1] end) order by c.idx) > 1
                as repetido
      from candidatos c
  )
  select array_agg(row(a.idx, a.ean, a.sku, a.preco_cheio, a.preco_desconto, a.estoque,
                       case when a.repetido then array['item_duplicado'] || a.erros else a.erros end,
                       case when a.repetido then null else a.ids end,
                       case when a.repetido then null else a.skus end,
                       null, null, null, null, null, null)::app.erp_sync_item order by a.idx)
    into v_linhas
    from alvos a;

  -- 2. real mode: lock the matched variants in a fixed order (by id), so that concurrent
  --    calls touching the same variants wait for each other instead of deadlocking
  v_ids := array(select l.variante_ids[1] from unnest(v_linhas) l where cardinality(l.variante_ids) = 1);
  if not p_dry_run then
    perform 1 from public.variante v where v.id = any (v_ids) order by v.id for update;
  end if;

  -- 3. the stored values (after the locks: the latest committed ones)
  select array_agg(row(l.idx, l.ean, l.sku, l.preco_cheio, l.preco_desconto, l.estoque, l.erros, l.variante_ids, l.variante_skus,
                       v.id, v.sku, v.ean, v.preco_cheio, v.preco_desconto, v.estoque)::app.erp_sync_item order by l.idx)
    into v_linhas
    from unnest(v_linhas) l
    left join public.variante v on cardinality(l.variante_ids) = 1 and v.id = l.variante_ids[1];

  -- 4. real mode: write only what differs
  if not p_dry_run then
    update public.variante v
       set preco_cheio = l.preco_cheio, preco_desconto = l.preco_desconto, estoque = coalesce(l.estoque, v.estoque)
      from unnest(v_linhas) l
     where v.id = l.variante_id
       and (l.preco_cheio is distinct from l.preco_cheio_atual
            or l.preco_desconto is distinct from l.preco_desconto_atual
            or (l.estoque is not null and l.estoque is distinct from l.estoque_atual));
    get diagnostics v_atualizados = row_count;
  end if;

  -- 5. the response
  select jsonb_build_object(
    'dry_run', p_dry_run,
    'recebidos', v_n,
    'casados', count(*) filter (where l.variante_id is not null),
    'atualizados', v_atualizados,
    'nao_encontrados', coalesce(jsonb_agg(coalesce(l.ean, l.sku) order by l.idx)
      filter (where cardinality(l.erros) = 0 and l.variante_id is null and coalesce(cardinality(l.variante_ids), 0) <= 1), '[]'),
    'ambiguos', coalesce(jsonb_agg(jsonb_build_object('idx', l.idx, 'ean', l.ean, 'skus', to_jsonb(l.variante_skus)) order by l.idx)
      filter (where cardinality(l.variante_ids) > 1), '[]'),
    'erros', coalesce((select jsonb_agg(jsonb_build_object('idx', e.idx, 'erro', e.erro) order by e.idx, e.ord)
                         from (select l2.idx, c.erro, c.ord from unnest(v_linhas) l2
                                cross join lateral unnest(l2.erros) with ordinality as c(erro, ord)) e), '[]'),
    'itens', coalesce(jsonb_agg(jsonb_build_object(
        'idx', l.idx,
        'ean', l.variante_ean,
        'sku', l.variante_sku,
        'preco_recebido', l.preco_desconto,
        'preco_cheio_recebido', l.preco_cheio,
        'estoque_recebido', l.estoque,
        'preco_atual', l.preco_desconto_atual,
        'preco_cheio_atual', l.preco_cheio_atual,
        'estoque_atual', l.estoque_atual,
        'vai_atualizar_preco', l.preco_cheio is distinct from l.preco_cheio_atual
                               or l.preco_desconto is distinct from l.preco_desconto_atual,
        'vai_atualizar_estoque', l.estoque is not null and l.estoque is distinct from l.estoque_atual
      ) order by l.idx) filter (where l.variante_id is not null), '[]'))
    into v_resposta
    from unnest(v_linhas) l;

  -- 6. the audit
  insert into public.erp_sync_audit (dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros,
                                     request_sha256, idempotency_key, response)
  values (p_dry_run, v_n, (v_resposta ->> 'casados')::integer, v_atualizados,
          jsonb_array_length(v_resposta -> 'nao_encontrados'), jsonb_array_length(v_resposta -> 'ambiguos'),
          (select count(*) from unnest(v_linhas) l where cardinality(l.erros) > 0),
          v_hash, p_idempotency_key, v_resposta)
  returning id into v_audit_id;

  if v_atualizados > 0 then
    insert into public.erp_sync_audit_variante (audit_id, variante_id, idx, sku, ean,
                                                preco_cheio_antes, preco_cheio_depois, preco_desconto_antes, preco_desconto_depois,
                                                estoque_antes, estoque_depois)
    select v_audit_id, l.variante_id, l.idx, l.variante_sku, l.variante_ean,
           l.preco_cheio_atual, l.preco_cheio, l.preco_desconto_atual, l.preco_desconto,
           l.estoque_atual, coalesce(l.estoque, l.estoque_atual)
      from unnest(v_linhas) l
     where l.variante_id is not null
       and (l.preco_cheio is distinct from l.preco_cheio_atual
            or l.preco_desconto is distinct from l.preco_desconto_atual
            or (l.estoque is not null and l.estoque is distinct from l.estoque_atual));
  end if;

  return v_resposta;
end;
$function$
;

comment on function public.erp_sync(jsonb,boolean,text) is 'The decision of POST /sync/erp. p_items: the request''s items (1 to 200 objects {ean | sku, preco_cheio, preco_desconto, estoque}); p_dry_run (default true): report only, write nothing but the audit row; false: apply every change in this transaction, locking the matched variants in id order, rewriting only variants whose values differ, with their before/after in erp_sync_audit_variante. Matching: by EAN against variante.ean, else by sku; never creates a variant. p_idempotency_key: a key seen in the last 24 h answers the stored response (same items and same mode) or raises ES422 (other items, or the other mode: a dry-run answer is never replayed after the switch to real writes). Returns the whole response {dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros, itens}. Errors: ES400 malformed items, ES413 more than 200 items, ES422 key reused with another body or mode. A refused HTTP call is audited by erp_sync_recusa_registrar. Every answered call leaves a row in erp_sync_audit.';
