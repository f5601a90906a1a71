CREATE OR REPLACE FUNCTION public.catalogo_carregar(p_catalogo jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.catalogo_carregar(jsonb) is 'Loads (upserts) a catalogue: [{codigo_erp, nome, variantes: [{sku, ean, preco_cheio, preco_desconto, estoque}]}]. Products are keyed by codigo_erp, variants by sku; rows whose values are unchanged are not rewritten; nothing is deleted. Missing estoque loads as 0, missing prices as null. Errors: CT400 with the offending element (0-based). Returns {produtos_inseridos, produtos_atualizados, variantes_inseridas, variantes_atualizadas}.';
