CREATE OR REPLACE FUNCTION app.xls_hook_relatorio18(p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
declare
  v_aba text;
  v_data text;
  v_modelo text;
  v_veiculo integer;
begin
  if p_fase = 'inicio' then
    -- vehicle-registry defence, chunk by chunk: every row with any vehicle column, before
    -- rejections and repeated keys (the defence looks at all of them), is classified once per
    -- distinct plate and year; the chunk keeps its problem rows and, per valid plate, only the
    -- rows that can still be the latest (plate seen, latest valid year, latest model).
    create temp table xls_veiculo_lote (aba text, linha integer, data date, placa_bruta text, placa text, ano_bruto text, modelo text) on commit drop;
    perform app.xls_aviso_linha_criar();
    create temp table xls_veiculo_cand (placa text, k bigint, k_ano bigint, fab smallint, mod smallint, k_modelo bigint, modelo text) on commit drop;
    return '{}';
  end if;

  if p_fase = 'normalizado' then
    -- the target's tab and date (its scope column); tab 30 has no model
    select x.aba, x.escopo_coluna, case when x.staging = 'faturamento' then 'c.modelo_veiculo' else 'null::text' end
      into v_aba, v_data, v_modelo from app.xls_alvo x where x.tipo = 'RELATORIO18' and x.staging = p_staging;
    execute format('insert into pg_temp.xls_veiculo_lote select %1$L, c.linha, c.%2$I, c.placa_bruta, c.placa, c.ano_veiculo, left(%3$s, %4$s)
                      from pg_temp.%5$I c where c.placa_bruta is not null or c.ano_veiculo is not null or %3$s is not null',
                   v_aba, v_data, v_modelo, app.xls_tamanho('bi_veiculo', 'modelo'), 'xls_chunk_' || p_staging);
    if not exists (select from pg_temp.xls_veiculo_lote) then
      return '{}';
    end if;
    -- for the registry, each valid plate keeps only its latest row (latest date, tab 20 before
    -- 30, last row), found by a hash aggregate over one packed ordering key (no sort)
    with placas as (
      select p.placa, p.placa ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$' as placa_valida
        from (select distinct placa from pg_temp.xls_veiculo_lote where placa is not null) p
    ), anos as (
      select a.ano_bruto, a.ano_ok,
             case when a.ano_ok then substring(a.ano_bruto from '^([0-9]{4})')::smallint end as fab,
             case when a.ano_ok then substring(a.ano_bruto from '([0-9]{4})$')::smallint end as mod
        from (select d.ano_bruto, d.ano_bruto ~ '^(19|20)[0-9]{2}[[:space:]]*/[[:space:]]*(19|20)[0-9]{2}$' as ano_ok
                from (select distinct ano_bruto from pg_temp.xls_veiculo_lote where ano_bruto is not null) d) a
    ), problemas as (
      insert into pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor)
      select x.ordem, 'veiculo', x.motivo, c.aba, c.linha, x.valor
        from (select v.aba, v.linha, v.placa_bruta, v.ano_bruto, v.modelo, p.placa_valida, coalesce(a.ano_ok, false) as ano_ok, a.fab, a.mod
                from pg_temp.xls_veiculo_lote v
                left join placas p on p.placa = v.placa
                left join anos a on a.ano_bruto = v.ano_bruto) c
       cross join lateral (values
             (1, 'placa inválida', c.placa_bruta, c.placa_bruta is not null and not c.placa_valida),
             (2, 'placa ausente', coalesce(c.ano_bruto, c.modelo), c.placa_bruta is null),
             (3, 'ano do veículo inválido', c.ano_bruto, c.ano_bruto is not null and not c.ano_ok),
             (4, 'ano modelo incoerente', c.ano_bruto, c.ano_ok and (c.mod < c.fab or c.mod > c.fab + 1))
           ) x (ordem, motivo, valor, problema)
       where x.problema
    ), c as (
      -- the rows of valid plates, one per distinct date, tab, year and model (its last row: the
      -- only one of them that can be the latest), each with its ordering key
      -- k: the later row has the larger key: latest date (none last), tab 20 before 30, last
      -- row of the sheet; (data desc nulls last, aba, linha desc) packed into one bigint.
      -- Written inline: a SQL function with a pinned search_path is not inlined.
      select g.placa, g.modelo, coalesce(a.ano_ok, false) as ano_ok, a.fab, a.mod,
             ((coalesce(g.data - date '2000-01-01', -1000000) + 1000000)::bigint * 2 + (g.aba = '20')::integer) * 2147483648 + g.linha as k
        from (select v.placa, v.data, v.aba, v.ano_bruto, v.modelo, max(v.linha) as linha
                from pg_temp.xls_veiculo_lote v join placas p on p.placa = v.placa and p.placa_valida
               group by v.placa, v.data, v.aba, v.ano_bruto, v.modelo) g
        left join anos a on a.ano_bruto = g.ano_bruto
    ), melhores as (
      select c.placa, max(c.k) as k, max(array[c.k, c.fab, c.mod]) filter (where c.ano_ok) as ano,
             max(c.k) filter (where c.modelo is not null) as k_modelo
        from c group by c.placa
    )
    insert into pg_temp.xls_veiculo_cand (placa, k, k_ano, fab, mod, k_modelo, modelo)
    select m.placa, m.k, m.ano[1], m.ano[2]::smallint, m.ano[3]::smallint, m.k_modelo, c.modelo
      from melhores m
      left join c on c.placa = m.placa and c.k = m.k_modelo;
    truncate pg_temp.xls_veiculo_lote;
    return '{}';
  end if;

  if p_fase <> 'fim' then
    return '{}';
  end if;
  -- the vehicle registry: valid plates; a missing year or model keeps the stored one
  insert into public.bi_veiculo as t (placa, ano_fabricacao, ano_modelo, modelo)
  select s.placa, s.fab, s.mod, s.modelo
    from (select v.placa,
                 (max(array[v.k_ano, v.fab, v.mod]) filter (where v.k_ano is not null))[2]::smallint as fab,
                 (max(array[v.k_ano, v.fab, v.mod]) filter (where v.k_ano is not null))[3]::smallint as mod,
                 (array_agg(v.modelo order by v.k_modelo desc) filter (where v.k_modelo is not null))[1] as modelo
            from pg_temp.xls_veiculo_cand v group by v.placa) s
   where not exists (select from public.bi_veiculo t where t.placa = s.placa
                        and t.ano_fabricacao is not distinct from coalesce(s.fab, t.ano_fabricacao)
                        and t.ano_modelo is not distinct from coalesce(s.mod, t.ano_modelo)
                        and t.modelo is not distinct from coalesce(s.modelo, t.modelo))
   order by s.placa
  on conflict (placa) do update
     set ano_fabricacao = coalesce(excluded.ano_fabricacao, t.ano_fabricacao),
         ano_modelo = coalesce(excluded.ano_modelo, t.ano_modelo),
         modelo = coalesce(excluded.modelo, t.modelo)
   where (t.ano_fabricacao, t.ano_modelo, t.modelo) is distinct from
         (coalesce(excluded.ano_fabricacao, t.ano_fabricacao), coalesce(excluded.ano_modelo, t.ano_modelo), coalesce(excluded.modelo, t.modelo));
  get diagnostics v_veiculo = row_count;

  return jsonb_build_object(
    'avisos', app.xls_aviso_linha_avisos(1000), -- the problem rows the chunks kept (rows are imported anyway)
    'tabelas', jsonb_build_object('bi_veiculo', jsonb_build_object('efetivas', v_veiculo)),
    'resultado', jsonb_build_object('periodo', jsonb_build_object('inicio', (p_meta ->> 'periodo_inicio')::date, 'fim', (p_meta ->> 'periodo_fim')::date)));
end;
$function$
;

comment on function app.xls_hook_relatorio18(text,text,jsonb) is 'Hook of RELATORIO18 in the declarative merge (app.xls_tipo.hook; phases in docs/xls-merge.md): what belongs to RELATORIO18 only, the vehicle-registry defence (bi_veiculo). inicio: creates its work tables (the period of p_meta is checked by app.xls_merge_preparar, scope periodo, XL422). normalizado: the vehicle-registry defence of the chunk''s rows with any vehicle column (before rejections), each distinct plate and year classified once, problem rows (pg_temp.xls_aviso_linha) and per valid plate the latest candidate kept. fim: the vehicle warnings (avisos categoria veiculo with counts and at most 1000 rows each, app.xls_aviso_linha_avisos), then upserts bi_veiculo (valid plates; a missing year or model keeps the stored one) from the latest row that has each value; returns its count and the period (resultado.periodo). bi_filial, bi_vendedor, bi_cliente and bi_produto are description rows (app.xls_alvo with fonte).';
