CREATE OR REPLACE FUNCTION public.xls_r18_absorver(p_meta jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
declare
  -- time-ordered ids for new rows: 48-bit ms timestamp, version 7, rand_a 0, variant 10, xls_id_seq
  v_id_prefixo text := lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008';
  v_per record;
  v_fat integer;
  v_mov integer;
  v_n integer;
  v_fat_ef integer := 0; -- rows this lot wrote (every dif row is written)
  v_mov_ef integer := 0;
begin
  select * into v_per from public.xls_r18_periodo(p_meta);
  perform public.xls_staging_exigir('RELATORIO18');
  if to_regclass('pg_temp.xls_r18_estado') is null then
    perform public.xls_travar(array['bi_faturamento', 'bi_movimento']);
    -- was the period's scope empty before this merge (a first import)? Then every row of
    -- the scope comes from this file and the scope delete is skipped. (Sound under the
    -- advisory lock: only merges write these tables.)
    create temp table xls_r18_estado on commit drop as
    select v_per.inicio as inicio, v_per.fim as fim,
           not exists (select from public.bi_faturamento t where t.emissao between v_per.inicio and v_per.fim) as fat_vazio,
           not exists (select from public.bi_movimento t where t.data between v_per.inicio and v_per.fim) as mov_vazio,
           0 as fat_env, 0 as mov_env, 0 as lotes, 0 as fat_ef, 0 as mov_ef;
    -- normalised rows: trimmed, empty -> null, truncated to the column maximum. xls_src_* keep
    -- every accepted row of the file (the last one of a repeated key); gravada = this merge
    -- wrote the key (new or changed).
    create temp table xls_lote_faturamento (
      linha integer, filial text, nota_fiscal text, serie text, item text, emissao date, cliente text, nome_cliente text,
      vendedor text, nome_vendedor text, produto text, descricao_produto text, quantidade numeric, valor_unitario numeric,
      valor_total numeric, placa_bruta text, placa text, ano_bruto text, modelo text
    ) on commit drop;
    -- of every lot, what the end of the merge needs: keys (scope deletes, repeats across lots),
    -- codes and names (reference tables), and whether this merge wrote the key
    create temp table xls_src_faturamento (
      linha integer, filial text, nota_fiscal text, serie text, item text, emissao date, cliente text, nome_cliente text,
      vendedor text, nome_vendedor text, produto text, descricao_produto text, gravada boolean not null
    ) on commit drop;
    -- the lot's new (novo) or changed rows
    create temp table xls_dif_faturamento (
      filial text, nota_fiscal text, serie text, item text, emissao date, cliente text, vendedor text, produto text,
      quantidade numeric, valor_unitario numeric, valor_total numeric, placa text, novo boolean
    ) on commit drop;
    create temp table xls_lote_movimento (
      linha integer, filial text, data date, lancamento text, conta text, descricao_conta text, historico text,
      debito numeric, credito numeric, placa_bruta text, placa text, ano_bruto text
    ) on commit drop;
    create temp table xls_src_movimento (linha integer, filial text, lancamento text, conta text, data date, gravada boolean not null) on commit drop;
    create temp table xls_dif_movimento (
      filial text, data date, lancamento text, conta text, descricao_conta text, historico text, debito numeric,
      credito numeric, placa text, novo boolean
    ) on commit drop;
    -- vehicle-registry defence, lot by lot: every row with any vehicle column, before
    -- rejections and duplicates (the defence looks at all of them), is classified once per
    -- distinct plate and year; the lot keeps its problem rows and, per valid plate, only the
    -- rows that can still be the latest (plate seen, latest valid year, latest model).
    create temp table xls_veiculo_lote (aba text, linha integer, data date, placa_bruta text, placa text, ano_bruto text, modelo text) on commit drop;
    create temp table xls_veiculo_problema (ordem integer, motivo text, aba text, linha integer, valor text) on commit drop;
    create temp table xls_veiculo_cand (placa text, k bigint, k_ano bigint, fab smallint, mod smallint, k_modelo bigint, modelo text) on commit drop;
    -- rows rejected here (no natural key or date) and rows that gave way to a later one with the same key
    create temp table xls_ocorrencia (tipo text, aba text, linha integer, campo text) on commit drop;
  elsif exists (select from pg_temp.xls_r18_estado e where (e.inicio, e.fim) is distinct from (v_per.inicio, v_per.fim)) then
    raise exception 'período % a % diferente do período dos lotes anteriores deste merge', v_per.inicio, v_per.fim using errcode = 'XL409';
  end if;

  ------------------------------------------------------------------ tab 20: bi_faturamento
  truncate pg_temp.xls_lote_faturamento;
  insert into pg_temp.xls_lote_faturamento (linha, filial, nota_fiscal, serie, item, emissao, cliente, nome_cliente, vendedor,
                                            nome_vendedor, produto, descricao_produto, quantidade, valor_unitario, valor_total,
                                            placa_bruta, placa, ano_bruto, modelo)
  select s.linha,
         left(nullif(btrim(s.filial), ''), 20),
         left(nullif(btrim(s.nota_fiscal), ''), 20),
         coalesce(left(nullif(btrim(s.serie), ''), 5), ''),
         coalesce(left(nullif(btrim(s.item), ''), 10), ''),
         s.emissao,
         left(nullif(btrim(s.cliente), ''), 20),
         left(nullif(btrim(s.nome_cliente), ''), 150),
         left(nullif(btrim(s.vendedor), ''), 20),
         left(nullif(btrim(s.nome_vendedor), ''), 120),
         left(nullif(btrim(s.produto), ''), 20),
         left(nullif(btrim(s.descricao_produto), ''), 150),
         s.quantidade, s.valor_unitario, s.valor_total,
         nullif(btrim(s.placa), ''),
         left(upper(regexp_replace(nullif(btrim(s.placa), ''), '[-[:space:]]', '', 'g')), 10),
         nullif(btrim(s.ano_veiculo), ''),
         left(nullif(btrim(s.modelo_veiculo), ''), 80)
    from pg_temp.xls_stg_faturamento s;
  get diagnostics v_fat = row_count;
  if v_fat > 0 then
    truncate pg_temp.xls_stg_faturamento;
    insert into pg_temp.xls_veiculo_lote
    select '20', f.linha, f.emissao, f.placa_bruta, f.placa, f.ano_bruto, f.modelo
      from pg_temp.xls_lote_faturamento f
     where f.placa_bruta is not null or f.ano_bruto is not null or f.modelo is not null;

    with r as (
      delete from pg_temp.xls_lote_faturamento f where f.filial is null or f.nota_fiscal is null or f.emissao is null
      returning f.linha, case when f.filial is null then 'filial' when f.nota_fiscal is null then 'nota_fiscal' else 'emissao' end as campo)
    insert into pg_temp.xls_ocorrencia select 'rejeitada', '20', r.linha, r.campo from r;

    -- a key repeated in the lot: the last row wins (a hash aggregate finds the repeated
    -- keys; only their rows are sorted); repeats across lots are settled at the end
    with dup as (
      select filial, nota_fiscal, serie, item from pg_temp.xls_lote_faturamento group by 1, 2, 3, 4 having count(*) > 1
    ), d as (
      delete from pg_temp.xls_lote_faturamento f
       using (select s.ctid, row_number() over (partition by s.filial, s.nota_fiscal, s.serie, s.item order by s.linha desc, s.ctid desc) as rn
                from pg_temp.xls_lote_faturamento s
                join dup k on k.filial = s.filial and k.nota_fiscal = s.nota_fiscal and k.serie = s.serie and k.item = s.item) x
       where f.ctid = x.ctid and x.rn > 1
      returning f.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '20', d.linha, null from d;
    -- one probe of the natural-key index per row keeps only the new (novo) or changed rows
    -- (a hash join would read the whole table once per lot). New keys go in with a plain
    -- INSERT (no speculative insertion: the advisory lock excludes a concurrent writer, and a
    -- unique violation would abort without losing anything); changed rows go through the
    -- diff-aware upsert. Both write in key order.
    truncate pg_temp.xls_dif_faturamento;
    insert into pg_temp.xls_dif_faturamento
    select s.filial, s.nota_fiscal, s.serie, s.item, s.emissao, s.cliente, s.vendedor, s.produto,
           s.quantidade, s.valor_unitario, s.valor_total, s.placa, t.id is null as novo
      from pg_temp.xls_lote_faturamento s
      left join lateral (
             select t.id, t.emissao, t.cliente, t.vendedor, t.produto, t.quantidade, t.valor_unitario, t.valor_total, t.placa
               from public.bi_faturamento t
              where t.filial = s.filial and t.nota_fiscal = s.nota_fiscal and t.serie = s.serie and t.item = s.item
              limit 1) t on true
     where t.id is null
        or (t.emissao, t.cliente, t.vendedor, t.produto, t.quantidade, t.valor_unitario, t.valor_total, t.placa)
           is distinct from
           (s.emissao, s.cliente, s.vendedor, s.produto, s.quantidade, s.valor_unitario, s.valor_total, s.placa);
    get diagnostics v_n = row_count;
    v_fat_ef := v_n;
    if v_n > 0 then
      insert into public.bi_faturamento (id, filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto,
                                         quantidade, valor_unitario, valor_total, placa)
      select (v_id_prefixo || lpad(to_hex(nextval('public.xls_id_seq')), 15, '0'))::uuid, o.*
        from (select s.filial, s.nota_fiscal, s.serie, s.item, s.emissao, s.cliente, s.vendedor, s.produto,
                     s.quantidade, s.valor_unitario, s.valor_total, s.placa
                from pg_temp.xls_dif_faturamento s
               where s.novo
               order by s.filial, s.nota_fiscal, s.serie, s.item) o;

      insert into public.bi_faturamento as t (filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto,
                                              quantidade, valor_unitario, valor_total, placa)
      select s.filial, s.nota_fiscal, s.serie, s.item, s.emissao, s.cliente, s.vendedor, s.produto,
             s.quantidade, s.valor_unitario, s.valor_total, s.placa
        from pg_temp.xls_dif_faturamento s
       where not s.novo
       order by s.filial, s.nota_fiscal, s.serie, s.item
      on conflict (filial, nota_fiscal, serie, item) do update
         set emissao = excluded.emissao, cliente = excluded.cliente, vendedor = excluded.vendedor, produto = excluded.produto,
             quantidade = excluded.quantidade, valor_unitario = excluded.valor_unitario, valor_total = excluded.valor_total,
             placa = excluded.placa
       where (t.emissao, t.cliente, t.vendedor, t.produto, t.quantidade, t.valor_unitario, t.valor_total, t.placa)
             is distinct from
             (excluded.emissao, excluded.cliente, excluded.vendedor, excluded.produto, excluded.quantidade,
              excluded.valor_unitario, excluded.valor_total, excluded.placa);
    end if;

    insert into pg_temp.xls_src_faturamento
    select l.linha, l.filial, l.nota_fiscal, l.serie, l.item, l.emissao, l.cliente, l.nome_cliente, l.vendedor, l.nome_vendedor,
           l.produto, l.descricao_produto, d.filial is not null
      from pg_temp.xls_lote_faturamento l
      left join pg_temp.xls_dif_faturamento d
        on d.filial = l.filial and d.nota_fiscal = l.nota_fiscal and d.serie = l.serie and d.item = l.item;
  end if;

  ------------------------------------------------------------------ tab 30: bi_movimento
  truncate pg_temp.xls_lote_movimento;
  insert into pg_temp.xls_lote_movimento (linha, filial, data, lancamento, conta, descricao_conta, historico, debito, credito,
                                          placa_bruta, placa, ano_bruto)
  select s.linha,
         left(nullif(btrim(s.filial), ''), 20),
         s.data,
         left(nullif(btrim(s.lancamento), ''), 20),
         left(nullif(btrim(s.conta), ''), 40),
         left(nullif(btrim(s.descricao_conta), ''), 120),
         left(nullif(btrim(s.historico), ''), 250),
         s.debito, s.credito,
         nullif(btrim(s.placa), ''),
         left(upper(regexp_replace(nullif(btrim(s.placa), ''), '[-[:space:]]', '', 'g')), 10),
         nullif(btrim(s.ano_veiculo), '')
    from pg_temp.xls_stg_movimento s;
  get diagnostics v_mov = row_count;
  if v_mov > 0 then
    truncate pg_temp.xls_stg_movimento;
    insert into pg_temp.xls_veiculo_lote
    select '30', m.linha, m.data, m.placa_bruta, m.placa, m.ano_bruto, null
      from pg_temp.xls_lote_movimento m
     where m.placa_bruta is not null or m.ano_bruto is not null;

    with r as (
      delete from pg_temp.xls_lote_movimento m
       where m.filial is null or m.data is null or m.lancamento is null or m.conta is null
      returning m.linha, case when m.filial is null then 'filial' when m.data is null then 'data'
                              when m.lancamento is null then 'lancamento' else 'conta' end as campo)
    insert into pg_temp.xls_ocorrencia select 'rejeitada', '30', r.linha, r.campo from r;

    with dup as (
      select filial, lancamento, conta from pg_temp.xls_lote_movimento group by 1, 2, 3 having count(*) > 1
    ), d as (
      delete from pg_temp.xls_lote_movimento s
       using (select s2.ctid, row_number() over (partition by s2.filial, s2.lancamento, s2.conta order by s2.linha desc, s2.ctid desc) as rn
                from pg_temp.xls_lote_movimento s2
                join dup k on k.filial = s2.filial and k.lancamento = s2.lancamento and k.conta = s2.conta) x
       where s.ctid = x.ctid and x.rn > 1
      returning s.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '30', d.linha, null from d;
    truncate pg_temp.xls_dif_movimento;
    insert into pg_temp.xls_dif_movimento
    select s.filial, s.data, s.lancamento, s.conta, s.descricao_conta, s.historico, s.debito, s.credito, s.placa,
           t.id is null as novo
      from pg_temp.xls_lote_movimento s
      left join lateral (
             select t.id, t.data, t.descricao_conta, t.historico, t.debito, t.credito, t.placa
               from public.bi_movimento t
              where t.filial = s.filial and t.lancamento = s.lancamento and t.conta = s.conta
              limit 1) t on true
     where t.id is null
        or (t.data, t.descricao_conta, t.historico, t.debito, t.credito, t.placa)
           is distinct from (s.data, s.descricao_conta, s.historico, s.debito, s.credito, s.placa);
    get diagnostics v_n = row_count;
    v_mov_ef := v_n;
    if v_n > 0 then
      insert into public.bi_movimento (id, filial, data, lancamento, conta, descricao_conta, historico, debito, credito, placa)
      select (v_id_prefixo || lpad(to_hex(nextval('public.xls_id_seq')), 15, '0'))::uuid, o.*
        from (select s.filial, s.data, s.lancamento, s.conta, s.descricao_conta, s.historico, s.debito, s.credito, s.placa
                from pg_temp.xls_dif_movimento s
               where s.novo
               order by s.filial, s.lancamento, s.conta) o;

      insert into public.bi_movimento as t (filial, data, lancamento, conta, descricao_conta, historico, debito, credito, placa)
      select s.filial, s.data, s.lancamento, s.conta, s.descricao_conta, s.historico, s.debito, s.credito, s.placa
        from pg_temp.xls_dif_movimento s
       where not s.novo
       order by s.filial, s.lancamento, s.conta
      on conflict (filial, lancamento, conta) do update
         set data = excluded.data, descricao_conta = excluded.descricao_conta, historico = excluded.historico,
             debito = excluded.debito, credito = excluded.credito, placa = excluded.placa
       where (t.data, t.descricao_conta, t.historico, t.debito, t.credito, t.placa)
             is distinct from
             (excluded.data, excluded.descricao_conta, excluded.historico, excluded.debito, excluded.credito, excluded.placa);
    end if;

    insert into pg_temp.xls_src_movimento
    select l.linha, l.filial, l.lancamento, l.conta, l.data, d.filial is not null
      from pg_temp.xls_lote_movimento l
      left join pg_temp.xls_dif_movimento d
        on d.filial = l.filial and d.lancamento = l.lancamento and d.conta = l.conta;
  end if;

  ------------------------------------------------------------------ vehicles of this lot
  if exists (select from pg_temp.xls_veiculo_lote) then
    -- each distinct plate and year is classified once; problem rows are kept one by one; for
    -- the registry, each valid plate keeps only its latest row (latest date, tab 20 before 30,
    -- last row), found by a hash aggregate over one packed ordering key (no sort)
    with placas as (
      select p.placa, p.placa ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$' as placa_valida
        from (select distinct placa from pg_temp.xls_veiculo_lote where placa is not null) p
    ), anos as (
      select a.ano_bruto, a.ano_ok,
             case when a.ano_ok then substring(a.ano_bruto from '^([0-9]{4})')::smallint end as fab,
             case when a.ano_ok then substring(a.ano_bruto from '([0-9]{4})$')::smallint end as mod
        from (select d.ano_bruto, d.ano_bruto ~ '^(19|20)[0-9]{2}[[:space:]]*/[[:space:]]*(19|20)[0-9]{2}$' as ano_ok
                from (select distinct ano_bruto from pg_temp.xls_veiculo_lote where ano_bruto is not null) d) a
    ), c as (
      select v.aba, v.linha, v.placa_bruta, v.placa, v.ano_bruto, v.modelo, p.placa_valida,
             coalesce(a.ano_ok, false) as ano_ok, a.fab, a.mod,
             -- k: the later row has the larger key: latest date (none last), tab 20 before 30, last
             -- row of the sheet; (data desc nulls last, aba, linha desc) packed into one bigint.
             -- Written inline: a SQL function with a pinned search_path is not inlined, and a
             -- call per row cost more than the rest of the statement.
             ((coalesce(v.data - date '2000-01-01', -1000000) + 1000000)::bigint * 2 + (v.aba = '20')::integer) * 2147483648 + v.linha as k
        from pg_temp.xls_veiculo_lote v
        left join placas p on p.placa = v.placa
        left join anos a on a.ano_bruto = v.ano_bruto
    ), problemas as (
      insert into pg_temp.xls_veiculo_problema (ordem, motivo, aba, linha, valor)
      select x.ordem, x.motivo, c.aba, c.linha, x.valor
        from c
       cross join lateral (values
             (1, 'placa inválida', c.placa_bruta, c.placa_bruta is not null and not c.placa_valida),
             (2, 'placa ausente', coalesce(c.ano_bruto, c.modelo), c.placa_bruta is null),
             (3, 'ano do veículo inválido', c.ano_bruto, c.ano_bruto is not null and not c.ano_ok),
             (4, 'ano modelo incoerente', c.ano_bruto, c.ano_ok and (c.mod < c.fab or c.mod > c.fab + 1))
           ) x (ordem, motivo, valor, problema)
       where ((c.placa_bruta is not null and not c.placa_valida) or c.placa_bruta is null
              or (c.ano_bruto is not null and not c.ano_ok) or (c.ano_ok and (c.mod < c.fab or c.mod > c.fab + 1)))
         and x.problema
    ), melhores as (
      select c.placa, max(c.k) as k, max(array[c.k, c.fab, c.mod]) filter (where c.ano_ok) as ano,
             max(c.k) filter (where c.modelo is not null) as k_modelo
        from c where c.placa_valida group by c.placa
    )
    insert into pg_temp.xls_veiculo_cand (placa, k, k_ano, fab, mod, k_modelo, modelo)
    select m.placa, m.k, m.ano[1], m.ano[2]::smallint, m.ano[3]::smallint, m.k_modelo, c.modelo
      from melhores m
      left join c on c.placa = m.placa and c.k = m.k_modelo;
    truncate pg_temp.xls_veiculo_lote;
  end if;

  update pg_temp.xls_r18_estado set fat_env = fat_env + v_fat, mov_env = mov_env + v_mov,
                                    fat_ef = fat_ef + v_fat_ef, mov_ef = mov_ef + v_mov_ef,
                                    lotes = lotes + (case when v_fat > 0 then 1 else 0 end) + (case when v_mov > 0 then 1 else 0 end);
  return v_fat + v_mov;
end;
$function$
;

comment on function public.xls_r18_absorver(jsonb) is 'One lot of a RELATORIO18 merge: takes the rows staged so far (xls_stg_faturamento, xls_stg_movimento, then emptied), normalises them, sets aside rows without a natural key or date, lets a repeated key''s last row in the lot win (repeats across lots are settled by xls_merge_relatorio18), and writes bi_faturamento and bi_movimento diff-aware in key order; the lot''s accepted rows stay in xls_lote_faturamento / xls_lote_movimento until the next call. The first call of a transaction takes the merge lock and notes whether the period''s scope was empty. Reference tables, the vehicle defence, scope deletes and the result are left to xls_merge_relatorio18. Returns the rows taken. Called through xls_r18_lote.';
