-- migrate:up
set local lock_timeout = '5s';

-- POST /sync/erp: the decision lives in public.erp_sync(items, dry_run, idempotency_key).
-- The edge only authenticates, checks the envelope and calls it; a DBA can call it from psql.

create table public.erp_sync_audit (
  id bigint generated always as identity primary key,
  called_at timestamptz not null default now(),
  dry_run boolean not null,
  recebidos integer not null,
  casados integer not null,
  atualizados integer not null,
  nao_encontrados integer not null,
  ambiguos integer not null,
  erros integer not null,
  request_sha256 text not null,
  idempotency_key text,
  replay_of bigint references public.erp_sync_audit (id) on delete cascade,
  application_name text default nullif(current_setting('application_name', true), ''),
  response jsonb,
  constraint erp_sync_audit_response_check check ((replay_of is null) = (response is not null)),
  constraint erp_sync_audit_sha256_check check (request_sha256 ~ '^[0-9a-f]{64}$')
);
comment on table public.erp_sync_audit is 'One row per answered call of erp_sync() (POST /sync/erp or psql), in either mode: when, mode, the response counts, the SHA-256 of the request items (canonical jsonb text), the Idempotency-Key and the full response. A replay of an idempotent call is a row with replay_of = the original and response null; its counts repeat the original''s (sum atualizados over replay_of is null). Calls refused before the decision (401, 400, 413, 422) leave no row. Rows are kept until a DBA deletes them (changes cascade).';
comment on column public.erp_sync_audit.recebidos is 'Items received.';
comment on column public.erp_sync_audit.casados is 'Items matched to exactly one variant.';
comment on column public.erp_sync_audit.atualizados is 'Variants actually changed (0 in dry run).';
comment on column public.erp_sync_audit.nao_encontrados is 'Items with a valid key and no variant.';
comment on column public.erp_sync_audit.ambiguos is 'Items whose EAN matches more than one variant.';
comment on column public.erp_sync_audit.erros is 'Items refused by validation (an item may carry several codes in the response''s erros[]).';
comment on column public.erp_sync_audit.request_sha256 is 'Hex SHA-256 of the items as canonical jsonb text (key order and whitespace do not matter).';
comment on column public.erp_sync_audit.application_name is 'application_name of the calling session: bi-comercial for the HTTP endpoint, psql for a DBA.';
create index erp_sync_audit_called_at_idx on public.erp_sync_audit (called_at);
create index erp_sync_audit_idempotency_idx on public.erp_sync_audit (idempotency_key, id)
  where idempotency_key is not null and replay_of is null;
create index erp_sync_audit_replay_of_idx on public.erp_sync_audit (replay_of) where replay_of is not null;

create table public.erp_sync_audit_variante (
  audit_id bigint not null references public.erp_sync_audit (id) on delete cascade,
  variante_id bigint not null,
  idx integer not null,
  sku text not null,
  ean text,
  preco_cheio_antes numeric(12, 2),
  preco_cheio_depois numeric(12, 2),
  preco_desconto_antes numeric(12, 2),
  preco_desconto_depois numeric(12, 2),
  estoque_antes integer not null,
  estoque_depois integer not null,
  primary key (audit_id, variante_id)
);
comment on table public.erp_sync_audit_variante is 'Before/after of every variant changed by a real-mode call of erp_sync() (one row per changed variant; unchanged variants are not rewritten and have no row). idx is the item''s 0-based index in the request. No foreign key to variante: the history outlives a deleted variant.';
create index erp_sync_audit_variante_variante_idx on public.erp_sync_audit_variante (variante_id, audit_id);

create type app.erp_sync_item as (
  idx integer,
  ean text,
  sku text,
  preco_cheio numeric(12, 2),
  preco_desconto numeric(12, 2),
  estoque integer,
  erros text[],
  variante_ids bigint[],
  variante_skus text[],
  variante_id bigint,
  variante_sku text,
  variante_ean text,
  preco_cheio_atual numeric(12, 2),
  preco_desconto_atual numeric(12, 2),
  estoque_atual integer
);
comment on type app.erp_sync_item is 'Working row of erp_sync(): one request item as read and validated (idx, key, received values, error codes), its candidate variants, and the matched variant''s stored values.';

create function app.erp_sync_item_ler(p_idx integer, p_item jsonb) returns app.erp_sync_item
language plpgsql immutable parallel safe
set search_path to pg_catalog, public, pg_temp
as $$
declare
  r app.erp_sync_item;
  v_ean jsonb := p_item -> 'ean';
  v_sku text;
begin
  r.idx := p_idx;
  r.erros := '{}';
  if jsonb_typeof(v_ean) = 'null' or (jsonb_typeof(v_ean) = 'string' and btrim(v_ean #>> '{}') = '') then
    v_ean := null;
  end if;
  if jsonb_typeof(p_item -> 'sku') in ('string', 'number') then
    v_sku := nullif(btrim(p_item ->> 'sku'), '');
  end if;

  -- key: the EAN when given (a wrong one is an error, not a fall-back to sku), else the sku
  if v_ean is not null then
    if jsonb_typeof(v_ean) = 'string' and public.gtin_valido(btrim(v_ean #>> '{}')) then
      r.ean := btrim(v_ean #>> '{}');
    else
      r.erros := r.erros || 'ean_invalido'::text;
    end if;
  elsif v_sku is not null then
    r.sku := v_sku;
  else
    r.erros := r.erros || 'sem_ean_nem_sku'::text;
  end if;

  -- both prices are required; stock is optional (absent or null: stock is left as it is)
  r.preco_cheio := app.json_preco(p_item -> 'preco_cheio');
  r.preco_desconto := app.json_preco(p_item -> 'preco_desconto');
  if r.preco_cheio is null or r.preco_desconto is null then
    r.erros := r.erros || 'preco_invalido'::text;
  end if;
  if jsonb_typeof(coalesce(p_item -> 'estoque', 'null')) <> 'null' then
    r.estoque := app.json_estoque(p_item -> 'estoque');
    if r.estoque is null then
      r.erros := r.erros || 'estoque_invalido'::text;
    end if;
  end if;
  return r;
end;
$$;
comment on function app.erp_sync_item_ler(integer, jsonb) is 'Reads one item of a POST /sync/erp request: its key (a valid GTIN ean, else sku: a string or number) and values, with the codes sem_ean_nem_sku, ean_invalido, preco_invalido (preco_cheio or preco_desconto missing, not a JSON number, negative, more than 2 decimals, 10^10 or more), estoque_invalido (present and not an integer in 0..2147483647). Duplicates and matching are decided by erp_sync().';

create function public.erp_sync(p_items jsonb, p_dry_run boolean default true, p_idempotency_key text default null)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
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
  -- answers the stored response (same items) or 422 (other items), applying nothing
  if p_idempotency_key is not null then
    perform pg_advisory_xact_lock(hashtextextended('erp_sync:' || p_idempotency_key, 0));
    select a.id, a.request_sha256, a.response into v_prev
      from public.erp_sync_audit a
     where a.idempotency_key = p_idempotency_key and a.replay_of is null and a.called_at > now() - interval '24 hours'
     order by a.id desc limit 1;
    if found then
      if v_prev.request_sha256 <> v_hash then
        raise exception 'a Idempotency-Key % já foi usada nas últimas 24 h com outro corpo (chamada %); use uma chave nova para outra requisição',
          p_idempotency_key, v_prev.id using errcode = 'ES422';
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
$$;
comment on function public.erp_sync(jsonb, boolean, text) is 'The decision of POST /sync/erp. p_items: the request''s items (1 to 200 objects {ean | sku, preco_cheio, preco_desconto, estoque}); p_dry_run (default true): report only, write nothing but the audit row; false: apply every change in this transaction, locking the matched variants in id order, rewriting only variants whose values differ, with their before/after in erp_sync_audit_variante. Matching: by EAN against variante.ean, else by sku; never creates a variant. p_idempotency_key: a key seen in the last 24 h answers the stored response (same items) or raises ES422 (other items). Returns the whole response {dry_run, recebidos, casados, atualizados, nao_encontrados, ambiguos, erros, itens}. Errors: ES400 malformed items, ES413 more than 200 items, ES422 key reused with another body. Every answered call leaves a row in erp_sync_audit.';
revoke execute on function public.erp_sync(jsonb, boolean, text) from public;

-- migrate:down
set local lock_timeout = '5s';
drop function public.erp_sync(jsonb, boolean, text);
drop function app.erp_sync_item_ler(integer, jsonb);
drop type app.erp_sync_item;
drop table public.erp_sync_audit_variante;
drop table public.erp_sync_audit;
