-- migrate:up
set local lock_timeout = '5s';

-- The product catalogue whose variants POST /sync/erp updates (price and stock).
-- Products and variants are loaded by catalogo_carregar(jsonb); the ERP sync never creates one.

create table public.produto (
  id bigint generated always as identity primary key,
  codigo_erp text not null,
  nome text not null,
  criado_em timestamptz not null default now(),
  atualizado_em timestamptz not null default now(),
  constraint produto_codigo_erp_key unique (codigo_erp),
  constraint produto_codigo_erp_check check (btrim(codigo_erp) <> ''),
  constraint produto_nome_check check (btrim(nome) <> '')
);
comment on table public.produto is 'Product of the catalogue (natural key codigo_erp). Loaded by catalogo_carregar(jsonb); the ERP sync never creates products.';
comment on column public.produto.codigo_erp is 'Code of the product in the ERP; natural key used by catalogo_carregar.';

create table public.variante (
  id bigint generated always as identity primary key,
  produto_id bigint not null references public.produto (id) on delete cascade,
  sku text not null,
  ean text,
  preco_cheio numeric(12, 2),
  preco_desconto numeric(12, 2),
  estoque integer not null default 0,
  criado_em timestamptz not null default now(),
  atualizado_em timestamptz not null default now(),
  constraint variante_sku_key unique (sku),
  constraint variante_sku_check check (btrim(sku) <> ''),
  constraint variante_ean_check check (ean is null or btrim(ean) <> ''),
  constraint variante_preco_cheio_check check (preco_cheio >= 0),
  constraint variante_preco_desconto_check check (preco_desconto >= 0),
  constraint variante_estoque_check check (estoque >= 0)
);
comment on table public.variante is 'Sellable variant of a product: sku (unique), EAN (several variants may share one: POST /sync/erp reports them as ambiguos), prices and stock. POST /sync/erp updates preco_cheio, preco_desconto and estoque.';
comment on column public.variante.ean is 'GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14) as registered; not unique. Matched by exact text.';
comment on column public.variante.preco_cheio is 'Full price, the price on credit (a prazo).';
comment on column public.variante.preco_desconto is 'Discount price, the price for cash (à vista, promotional).';
comment on column public.variante.estoque is 'Stock quantity.';
create index variante_ean_idx on public.variante (ean) where ean is not null;
create index variante_produto_idx on public.variante (produto_id);

create trigger _100_touch before update on public.produto
  for each row execute function public.tg__touch_atualizado_em();
create trigger _100_touch before update on public.variante
  for each row execute function public.tg__touch_atualizado_em();

create function public.gtin_valido(p_codigo text) returns boolean
language plpgsql immutable strict parallel safe
set search_path to pg_catalog, pg_temp
as $$
declare
  d integer[];
begin
  if p_codigo !~ '^([0-9]{8}|[0-9]{12,14})$' then
    return false;
  end if;
  -- as a GTIN-14 (left-padded with zeros) the weights from the left are 3,1,3,…,3
  d := string_to_array(lpad(p_codigo, 14, '0'), null)::integer[];
  return (10 - (3 * (d[1] + d[3] + d[5] + d[7] + d[9] + d[11] + d[13])
                + d[2] + d[4] + d[6] + d[8] + d[10] + d[12]) % 10) % 10 = d[14];
end;
$$;
comment on function public.gtin_valido(text) is 'True when p_codigo is a GTIN of 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13, GTIN-14) with a correct check digit (weights 3,1,3,… from the right, mod 10).';

create function app.json_preco(p_valor jsonb) returns numeric
language plpgsql immutable parallel safe
set search_path to pg_catalog, pg_temp
as $$
declare
  n numeric;
begin
  if jsonb_typeof(p_valor) is distinct from 'number' then
    return null;
  end if;
  n := (p_valor #>> '{}')::numeric;
  if n >= 0 and n < 1e10 and n = round(n, 2) then
    return n;
  end if;
  return null;
end;
$$;
comment on function app.json_preco(jsonb) is 'The price in a JSON value when it is a JSON number, not negative, below 10^10 and with at most 2 decimals; otherwise null (strings such as "10.50" are not prices).';

create function app.json_estoque(p_valor jsonb) returns integer
language plpgsql immutable parallel safe
set search_path to pg_catalog, pg_temp
as $$
declare
  n numeric;
begin
  if jsonb_typeof(p_valor) is distinct from 'number' then
    return null;
  end if;
  n := (p_valor #>> '{}')::numeric;
  if n >= 0 and n <= 2147483647 and n = trunc(n) then
    return n::integer;
  end if;
  return null;
end;
$$;
comment on function app.json_estoque(jsonb) is 'The stock quantity in a JSON value when it is a JSON number with an integral value between 0 and 2147483647 (10.0 counts as 10); otherwise null.';

create function public.catalogo_carregar(p_catalogo jsonb) returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_bad text;
  v_produtos_inseridos integer;
  v_produtos_atualizados integer;
  v_variantes_inseridas integer;
  v_variantes_atualizadas integer;
begin
  if p_catalogo is null or jsonb_typeof(p_catalogo) <> 'array' then
    raise exception 'o catálogo deve ser uma lista de produtos [{codigo_erp, nome, variantes: [...]}]' using errcode = 'CT400';
  end if;

  -- shape checks, each naming the first offending element (0-based)
  select format('produto[%s]: codigo_erp e nome são obrigatórios e variantes deve ser uma lista', o - 1) into v_bad
    from jsonb_array_elements(p_catalogo) with ordinality as t(p, o)
   where jsonb_typeof(p) <> 'object'
      or coalesce(btrim(p ->> 'codigo_erp'), '') = '' or coalesce(btrim(p ->> 'nome'), '') = ''
      or jsonb_typeof(coalesce(p -> 'variantes', '[]')) <> 'array'
   order by o limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  create temporary table pg_temp._carga on commit drop as
  select btrim(p ->> 'codigo_erp') as codigo_erp, btrim(p ->> 'nome') as nome,
         po - 1 as p_idx, vo - 1 as v_idx, v
    from jsonb_array_elements(p_catalogo) with ordinality as tp(p, po)
    left join lateral jsonb_array_elements(coalesce(p -> 'variantes', '[]')) with ordinality as tv(v, vo) on true;

  select format('produto[%s].variantes[%s]: sku obrigatório; ean texto; preços números >= 0 com até 2 casas; estoque inteiro >= 0', p_idx, v_idx)
    into v_bad
    from pg_temp._carga
   where v is not null and (
         jsonb_typeof(v) <> 'object'
      or coalesce(btrim(v ->> 'sku'), '') = ''
      or jsonb_typeof(coalesce(v -> 'ean', 'null')) not in ('string', 'null')
      or (jsonb_typeof(coalesce(v -> 'preco_cheio', 'null')) <> 'null' and app.json_preco(v -> 'preco_cheio') is null)
      or (jsonb_typeof(coalesce(v -> 'preco_desconto', 'null')) <> 'null' and app.json_preco(v -> 'preco_desconto') is null)
      or (jsonb_typeof(coalesce(v -> 'estoque', 'null')) <> 'null' and app.json_estoque(v -> 'estoque') is null))
   order by p_idx, v_idx limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  select format('sku %s aparece mais de uma vez no catálogo', btrim(v ->> 'sku')) into v_bad
    from pg_temp._carga where v is not null group by btrim(v ->> 'sku') having count(*) > 1 order by 1 limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;
  select format('codigo_erp %s aparece mais de uma vez no catálogo com nomes diferentes', codigo_erp) into v_bad
    from pg_temp._carga group by codigo_erp having count(distinct nome) > 1 order by 1 limit 1;
  if v_bad is not null then
    raise exception '%', v_bad using errcode = 'CT400';
  end if;

  -- diff-aware upserts, in natural-key order (concurrent loads do not deadlock)
  with src as (
    select distinct codigo_erp, nome from pg_temp._carga order by codigo_erp
  ), up as (
    insert into public.produto as p (codigo_erp, nome)
    select codigo_erp, nome from src order by codigo_erp
    on conflict (codigo_erp) do update set nome = excluded.nome
      where p.nome is distinct from excluded.nome
    returning (xmax = 0) as inserido
  )
  select count(*) filter (where inserido), count(*) filter (where not inserido)
    into v_produtos_inseridos, v_produtos_atualizados from up;

  with src as (
    select p.id as produto_id, btrim(c.v ->> 'sku') as sku, nullif(btrim(c.v ->> 'ean'), '') as ean,
           app.json_preco(c.v -> 'preco_cheio') as preco_cheio,
           app.json_preco(c.v -> 'preco_desconto') as preco_desconto,
           coalesce(app.json_estoque(c.v -> 'estoque'), 0) as estoque
      from pg_temp._carga c join public.produto p on p.codigo_erp = c.codigo_erp
     where c.v is not null
  ), up as (
    insert into public.variante as v (produto_id, sku, ean, preco_cheio, preco_desconto, estoque)
    select produto_id, sku, ean, preco_cheio, preco_desconto, estoque from src order by sku
    on conflict (sku) do update
      set produto_id = excluded.produto_id, ean = excluded.ean, preco_cheio = excluded.preco_cheio,
          preco_desconto = excluded.preco_desconto, estoque = excluded.estoque
      where (v.produto_id, v.ean, v.preco_cheio, v.preco_desconto, v.estoque)
            is distinct from (excluded.produto_id, excluded.ean, excluded.preco_cheio, excluded.preco_desconto, excluded.estoque)
    returning (xmax = 0) as inserida
  )
  select count(*) filter (where inserida), count(*) filter (where not inserida)
    into v_variantes_inseridas, v_variantes_atualizadas from up;

  drop table pg_temp._carga;
  return jsonb_build_object(
    'produtos_inseridos', v_produtos_inseridos, 'produtos_atualizados', v_produtos_atualizados,
    'variantes_inseridas', v_variantes_inseridas, 'variantes_atualizadas', v_variantes_atualizadas);
end;
$$;
comment on function public.catalogo_carregar(jsonb) is 'Loads (upserts) a catalogue: [{codigo_erp, nome, variantes: [{sku, ean, preco_cheio, preco_desconto, estoque}]}]. Products are keyed by codigo_erp, variants by sku; rows whose values are unchanged are not rewritten; nothing is deleted. Missing estoque loads as 0, missing prices as null. Errors: CT400 with the offending element (0-based). Returns {produtos_inseridos, produtos_atualizados, variantes_inseridas, variantes_atualizadas}.';
revoke execute on function public.catalogo_carregar(jsonb) from public;

-- migrate:down
set local lock_timeout = '5s';
drop function public.catalogo_carregar(jsonb);
drop function app.json_estoque(jsonb);
drop function app.json_preco(jsonb);
drop function public.gtin_valido(text);
drop table public.variante;
drop table public.produto;
