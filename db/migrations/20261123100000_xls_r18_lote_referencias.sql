-- migrate:up
set local lock_timeout = '5s';

-- The end of a RELATORIO18 merge is the part the edge cannot overlap with reading: the lots
-- now keep what it needs (reference-table candidates per code, key hashes that reveal a key
-- repeated across lots), so it reads a few rows per lot instead of every row of the file
-- (docs/pipeline.md, "Lots").

create function public.xls_r18_candidatos(p_faturamento regclass, p_movimento regclass) returns void
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
set work_mem to '64MB'
as $$
begin
  if to_regclass('pg_temp.xls_ref_vendedor') is null then
    create temp table xls_ref_filial (codigo text) on commit drop;
    create temp table xls_ref_vendedor (codigo text, lu integer, filial text, ln integer, nome text) on commit drop;
    create temp table xls_ref_cliente (codigo text, ln integer, nome text) on commit drop;
    create temp table xls_ref_produto (codigo text, ln integer, descricao text) on commit drop;
  end if;
  execute format($q$
    insert into pg_temp.xls_ref_filial
    select filial from %1$s union select filial from %2$s$q$, p_faturamento, p_movimento);
  execute format($q$
    insert into pg_temp.xls_ref_vendedor
    select m.codigo, m.lu, u.filial, m.ln, n.nome_vendedor
      from (select f.vendedor as codigo, max(f.linha) as lu, max(f.linha) filter (where f.nome_vendedor is not null) as ln
              from %1$s f where f.vendedor is not null group by f.vendedor) m
      join %1$s u on u.vendedor = m.codigo and u.linha = m.lu
      left join %1$s n on n.vendedor = m.codigo and n.linha = m.ln$q$, p_faturamento);
  execute format($q$
    insert into pg_temp.xls_ref_cliente
    select m.codigo, m.ln, n.nome_cliente
      from (select f.cliente as codigo, max(f.linha) filter (where f.nome_cliente is not null) as ln
              from %1$s f where f.cliente is not null group by f.cliente) m
      left join %1$s n on n.cliente = m.codigo and n.linha = m.ln$q$, p_faturamento);
  execute format($q$
    insert into pg_temp.xls_ref_produto
    select m.codigo, m.ln, n.descricao_produto
      from (select f.produto as codigo, max(f.linha) filter (where f.descricao_produto is not null) as ln
              from %1$s f where f.produto is not null group by f.produto) m
      left join %1$s n on n.produto = m.codigo and n.linha = m.ln$q$, p_faturamento);
end;
$$;
comment on function public.xls_r18_candidatos(regclass, regclass) is 'RELATORIO18 reference-table candidates of some accepted rows (a lot''s xls_lote_faturamento / xls_lote_movimento, or every surviving row in xls_src_*): appends to the temp tables xls_ref_filial (codes), xls_ref_vendedor (per seller, its last row with that row''s filial and its last row with a name), xls_ref_cliente and xls_ref_produto (per code, its last row with a name). xls_merge_relatorio18 upserts bi_filial, bi_vendedor, bi_cliente and bi_produto from the latest candidate of each code, so the lots do this work while the edge reads and the end of the merge reads a few rows per lot. Creates the temp tables (ON COMMIT DROP) on first use.';

create function public.xls_r18_lote(p_meta jsonb, p_final boolean default false) returns integer
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
set work_mem to '64MB'
as $$
declare
  v_n integer;
begin
  v_n := public.xls_r18_absorver(p_meta);
  if to_regclass('pg_temp.xls_r18_chave') is null then
    create temp table xls_r18_chave (aba text, h bigint) on commit drop;
  end if;
  perform public.xls_r18_candidatos('pg_temp.xls_lote_faturamento', 'pg_temp.xls_lote_movimento');
  -- the hash of each accepted key (a lot has no repeated key left): xls_merge_relatorio18
  -- groups them to find a key repeated across lots (a collision only costs the exact check).
  -- Not needed for the last call when no earlier lot had rows of the tab.
  insert into pg_temp.xls_r18_chave
  select '20', hashtextextended(l.filial || chr(31) || l.nota_fiscal || chr(31) || l.serie || chr(31) || l.item, 0)
    from pg_temp.xls_lote_faturamento l
   where not p_final or exists (select from pg_temp.xls_r18_chave c where c.aba = '20')
  union all
  select '30', hashtextextended(l.filial || chr(31) || l.lancamento || chr(31) || l.conta, 0)
    from pg_temp.xls_lote_movimento l
   where not p_final or exists (select from pg_temp.xls_r18_chave c where c.aba = '30');
  return v_n;
end;
$$;
comment on function public.xls_r18_lote(jsonb, boolean) is 'One lot of a RELATORIO18 merge: xls_r18_absorver (bi_faturamento and bi_movimento written diff-aware), then, from the lot''s accepted rows, the reference-table candidates (xls_r18_candidatos) and the hash of each natural key (xls_r18_chave: xls_merge_relatorio18 groups them to find a key repeated across lots, then settles it exactly). p_final: the call of xls_merge_relatorio18 for whatever is still staged. Returns the rows taken. Called through xls_merge_lote / xls_merge.';

comment on function public.xls_r18_absorver(jsonb) is 'One lot of a RELATORIO18 merge: takes the rows staged so far (xls_stg_faturamento, xls_stg_movimento, then emptied), normalises them, sets aside rows without a natural key or date, lets a repeated key''s last row in the lot win (repeats across lots are settled by xls_merge_relatorio18), and writes bi_faturamento and bi_movimento diff-aware in key order; the lot''s accepted rows stay in xls_lote_faturamento / xls_lote_movimento until the next call. The first call of a transaction takes the merge lock and notes whether the period''s scope was empty. Reference tables, the vehicle defence, scope deletes and the result are left to xls_merge_relatorio18. Returns the rows taken. Called through xls_r18_lote.';

create or replace function public.xls_merge_lote(p_processamento_id uuid, p_meta jsonb default '{}')
returns integer
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_tipo text;
  v_status text;
begin
  select p.tipo, p.status into v_tipo, v_status from public.xls_processamento p where p.id = p_processamento_id for update;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_status <> 'PROCESSANDO' then
    raise exception 'processamento % está em %: só se importa um processamento em PROCESSANDO', p_processamento_id, v_status
      using errcode = 'XL409';
  end if;
  if p_meta is not null and jsonb_typeof(p_meta) <> 'object' then
    raise exception 'p_meta deve ser um objeto JSON' using errcode = 'XL400';
  end if;
  if v_tipo = 'RELATORIO18' then
    return public.xls_r18_lote(coalesce(p_meta, '{}'));
  elsif v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  return 0; -- a type without lots: its rows stay staged for xls_merge
end;
$$;
comment on function public.xls_merge_lote(uuid, jsonb) is 'Optional, while the staging tables are being filled: merges the rows staged so far and empties the staging, so the database writes one lot while the edge reads the next (same transaction, before xls_merge). p_meta as for xls_merge (RELATORIO18 needs its period). Types without lots (META) keep their rows staged and return 0. The end result is the same as one xls_merge of every row; xls_merge then finishes (reference tables, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';

create or replace function public.xls_merge_relatorio18(p_meta jsonb)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
set work_mem to '64MB'
as $$
declare
  v_est record;
  v_fat_ef integer := 0;
  v_mov_ef integer := 0;
  v_fat_rm integer := 0;
  v_mov_rm integer := 0;
  v_filial integer;
  v_vendedor integer;
  v_cliente integer;
  v_produto integer;
  v_veiculo integer;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_avisos jsonb := '[]';
  v_aux jsonb;
  v_refazer boolean := false;
begin
  perform public.xls_r18_periodo(p_meta);
  perform public.xls_staging_exigir('RELATORIO18');
  -- whatever is still staged (everything, when no lot was merged while reading)
  perform public.xls_r18_lote(p_meta, true);
  select * into v_est from pg_temp.xls_r18_estado;

  -- A key repeated across lots: its last row stays (the lots wrote it last, so it is what
  -- bi_* holds), the earlier rows give way; a key written by several lots counts once.
  -- The lots kept the hash of each key (xls_r18_chave); the exact grouping runs only when a
  -- hash repeats, and the reference-table candidates are then rebuilt from the surviving rows.
  v_fat_ef := v_est.fat_ef;
  v_mov_ef := v_est.mov_ef;
  if v_est.lotes > 1 and exists (select from (select c.h from pg_temp.xls_r18_chave c where c.aba = '20' group by c.h having count(*) > 1) x) then
    v_refazer := true;
    create temp table xls_rep_faturamento on commit drop as
    select filial, nota_fiscal, serie, item, max(linha) as ultima, count(*) filter (where gravada) as escritas
      from pg_temp.xls_src_faturamento group by 1, 2, 3, 4 having count(*) > 1;
    with d as (
      delete from pg_temp.xls_src_faturamento s using pg_temp.xls_rep_faturamento k
       where k.filial = s.filial and k.nota_fiscal = s.nota_fiscal and k.serie = s.serie and k.item = s.item and s.linha < k.ultima
      returning s.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '20', d.linha, null from d;
    v_fat_ef := v_fat_ef - (select coalesce(sum(greatest(k.escritas - 1, 0)), 0) from pg_temp.xls_rep_faturamento k);
  end if;
  if v_est.lotes > 1 and exists (select from (select c.h from pg_temp.xls_r18_chave c where c.aba = '30' group by c.h having count(*) > 1) x) then
    v_refazer := true;
    create temp table xls_rep_movimento on commit drop as
    select filial, lancamento, conta, max(linha) as ultima, count(*) filter (where gravada) as escritas
      from pg_temp.xls_src_movimento group by 1, 2, 3 having count(*) > 1;
    with d as (
      delete from pg_temp.xls_src_movimento s using pg_temp.xls_rep_movimento k
       where k.filial = s.filial and k.lancamento = s.lancamento and k.conta = s.conta and s.linha < k.ultima
      returning s.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '30', d.linha, null from d;
    v_mov_ef := v_mov_ef - (select coalesce(sum(greatest(k.escritas - 1, 0)), 0) from pg_temp.xls_rep_movimento k);
  end if;

  -- Vehicle-registry defence: the problem rows the lots kept (rows are imported anyway).
  select coalesce(jsonb_agg(jsonb_build_object('categoria', 'veiculo', 'motivo', r.motivo, 'quantidade', r.n, 'linhas', r.linhas)
                            order by r.ordem), '[]')
    into v_aux
    from (select m.ordem, m.motivo, count(*) as n,
                 coalesce(jsonb_agg(jsonb_build_object('aba', m.aba, 'linha', m.linha, 'valor', m.valor) order by m.aba, m.linha)
                            filter (where m.rn <= 1000), '[]') as linhas
            from (select x.*, row_number() over (partition by x.ordem order by x.aba, x.linha) as rn
                    from pg_temp.xls_veiculo_problema x) m
           group by m.ordem, m.motivo) r;
  v_avisos := v_avisos || v_aux;

  -- rows without a natural key or date were set aside by the lots (the reader normally catches them)
  select coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'campo', o.campo, 'valor', '',
                                               'mensagem', format('linha %s: %s '''' inválido', o.linha, o.campo))
                            order by o.aba, o.linha), '[]')
    into v_aux
    from pg_temp.xls_ocorrencia o where o.tipo = 'rejeitada';
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);

  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'valor', null) order by o.aba, o.linha), '[]'))) end
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'duplicada';
  v_avisos := v_avisos || v_aux;

  -- reference tables: upsert only (never deleted by a spreadsheet), in key order; each
  -- value comes from the last row of the sheet (highest row number) that has it: the lots
  -- kept, per code, their last row and their last row with a name (xls_r18_candidatos)
  if v_refazer then
    truncate pg_temp.xls_ref_filial, pg_temp.xls_ref_vendedor, pg_temp.xls_ref_cliente, pg_temp.xls_ref_produto;
    perform public.xls_r18_candidatos('pg_temp.xls_src_faturamento', 'pg_temp.xls_src_movimento');
  end if;

  insert into public.bi_filial (codigo)
  select x.codigo from (select distinct r.codigo from pg_temp.xls_ref_filial r) x
   where not exists (select from public.bi_filial t where t.codigo = x.codigo)
   order by x.codigo
  on conflict (codigo) do nothing;
  get diagnostics v_filial = row_count;

  insert into public.bi_vendedor as t (codigo, nome, filial)
  select u.codigo, n.nome, u.filial
    from (select distinct on (r.codigo) r.codigo, r.filial from pg_temp.xls_ref_vendedor r order by r.codigo, r.lu desc) u
    left join (select distinct on (r.codigo) r.codigo, r.nome from pg_temp.xls_ref_vendedor r
                where r.ln is not null order by r.codigo, r.ln desc) n on n.codigo = u.codigo
   where not exists (select from public.bi_vendedor t where t.codigo = u.codigo
                        and t.nome is not distinct from coalesce(n.nome, t.nome)
                        and t.filial is not distinct from coalesce(u.filial, t.filial))
   order by u.codigo
  on conflict (codigo) do update set nome = coalesce(excluded.nome, t.nome), filial = coalesce(excluded.filial, t.filial)
   where (t.nome, t.filial) is distinct from (coalesce(excluded.nome, t.nome), coalesce(excluded.filial, t.filial));
  get diagnostics v_vendedor = row_count;

  insert into public.bi_cliente as t (codigo, nome)
  select s.codigo, s.nome
    from (select distinct on (r.codigo) r.codigo, r.nome from pg_temp.xls_ref_cliente r order by r.codigo, r.ln desc nulls last) s
   where not exists (select from public.bi_cliente t where t.codigo = s.codigo and t.nome is not distinct from coalesce(s.nome, t.nome))
   order by s.codigo
  on conflict (codigo) do update set nome = coalesce(excluded.nome, t.nome)
   where t.nome is distinct from coalesce(excluded.nome, t.nome);
  get diagnostics v_cliente = row_count;

  insert into public.bi_produto as t (codigo, descricao)
  select s.codigo, s.descricao
    from (select distinct on (r.codigo) r.codigo, r.descricao from pg_temp.xls_ref_produto r order by r.codigo, r.ln desc nulls last) s
   where not exists (select from public.bi_produto t where t.codigo = s.codigo and t.descricao is not distinct from coalesce(s.descricao, t.descricao))
   order by s.codigo
  on conflict (codigo) do update set descricao = coalesce(excluded.descricao, t.descricao)
   where t.descricao is distinct from coalesce(excluded.descricao, t.descricao);
  get diagnostics v_produto = row_count;

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

  -- scope deletes: rows of the period absent from the file, locked in key order. Every key
  -- of the file is now stored with the file's date, so when the period holds as many rows
  -- as the file has in it, none is absent and the anti-join is skipped (an identical
  -- re-import: two counts instead of a join of the period with the file).

  if v_est.fat_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 20: nada removido de bi_faturamento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '20') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 20: remoções de bi_faturamento suspensas; corrija e reenvie'));
  elsif not v_est.fat_vazio
        and (select count(*) from public.bi_faturamento t where t.emissao between v_est.inicio and v_est.fim)
            <> (select count(*) from pg_temp.xls_src_faturamento s where s.emissao between v_est.inicio and v_est.fim) then
    with alvo as (
      select t.id from public.bi_faturamento t
       where t.emissao between v_est.inicio and v_est.fim
         and not exists (select from pg_temp.xls_src_faturamento s
                          where s.filial = t.filial and s.nota_fiscal = t.nota_fiscal and s.serie = t.serie and s.item = t.item)
       order by t.filial, t.nota_fiscal, t.serie, t.item
       for update of t)
    delete from public.bi_faturamento t using alvo where t.id = alvo.id;
    get diagnostics v_fat_rm = row_count;
  end if;

  if v_est.mov_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 30: nada removido de bi_movimento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '30') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 30: remoções de bi_movimento suspensas; corrija e reenvie'));
  elsif not v_est.mov_vazio
        and (select count(*) from public.bi_movimento t where t.data between v_est.inicio and v_est.fim)
            <> (select count(*) from pg_temp.xls_src_movimento s where s.data between v_est.inicio and v_est.fim) then
    with alvo as (
      select t.id from public.bi_movimento t
       where t.data between v_est.inicio and v_est.fim
         and not exists (select from pg_temp.xls_src_movimento s
                          where s.filial = t.filial and s.lancamento = t.lancamento and s.conta = t.conta)
       order by t.filial, t.lancamento, t.conta
       for update of t)
    delete from public.bi_movimento t using alvo where t.id = alvo.id;
    get diagnostics v_mov_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_est.fat_env + v_est.mov_env,
    'linhas_efetivas', v_fat_ef + v_mov_ef,
    'linhas_removidas', v_fat_rm + v_mov_rm,
    'periodo', jsonb_build_object('inicio', v_est.inicio, 'fim', v_est.fim),
    'avisos', public.xls_avisos_normalizar(v_avisos),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object(
      'bi_faturamento', jsonb_build_object('enviadas', v_est.fat_env, 'efetivas', v_fat_ef, 'removidas', v_fat_rm),
      'bi_movimento', jsonb_build_object('enviadas', v_est.mov_env, 'efetivas', v_mov_ef, 'removidas', v_mov_rm),
      'bi_filial', jsonb_build_object('efetivas', v_filial),
      'bi_vendedor', jsonb_build_object('efetivas', v_vendedor),
      'bi_cliente', jsonb_build_object('efetivas', v_cliente),
      'bi_produto', jsonb_build_object('efetivas', v_produto),
      'bi_veiculo', jsonb_build_object('efetivas', v_veiculo)));
end;
$$;
comment on function public.xls_merge_relatorio18(jsonb) is 'Merge of RELATORIO18 from the staging tables faturamento (tab 20) and movimento (tab 30); p_meta = {periodo_inicio, periodo_fim (tab 10, E1/F1), linhas_rejeitadas (the reader''s row errors)}. Takes what is still staged through xls_r18_lote (bi_faturamento and bi_movimento written diff-aware in key order, lot by lot when the edge called xls_merge_lote while reading), then upserts bi_filial (codigo only), bi_vendedor, bi_cliente (codigo, nome), bi_produto, bi_veiculo (valid plates; a missing year or model keeps the stored one) from the last row that has each value (the candidates the lots kept, rebuilt from the surviving rows when a key repeated across lots), then deletes the rows of the period absent from the file (not when a tab came empty or had rejected rows). Vehicle-registry defence reasons go to avisos with row numbers and counts. linhas_efetivas counts the keys written (a key repeated across lots counts once). Returns the metrics; xls_merge records them. XL422 missing or invalid period.';

-- migrate:down
set local lock_timeout = '5s';
create or replace function public.xls_merge_lote(p_processamento_id uuid, p_meta jsonb default '{}')
returns integer
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_tipo text;
  v_status text;
begin
  select p.tipo, p.status into v_tipo, v_status from public.xls_processamento p where p.id = p_processamento_id for update;
  if not found then
    raise exception 'processamento % não existe', p_processamento_id using errcode = 'XL404';
  end if;
  if v_status <> 'PROCESSANDO' then
    raise exception 'processamento % está em %: só se importa um processamento em PROCESSANDO', p_processamento_id, v_status
      using errcode = 'XL409';
  end if;
  if p_meta is not null and jsonb_typeof(p_meta) <> 'object' then
    raise exception 'p_meta deve ser um objeto JSON' using errcode = 'XL400';
  end if;
  if v_tipo = 'RELATORIO18' then
    return public.xls_r18_absorver(coalesce(p_meta, '{}'));
  elsif v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  end if;
  return 0; -- a type without lots: its rows stay staged for xls_merge
end;
$$;
comment on function public.xls_merge_lote(uuid, jsonb) is 'Optional, while the staging tables are being filled: merges the rows staged so far and empties the staging, so the database writes one lot while the edge reads the next (same transaction, before xls_merge). p_meta as for xls_merge (RELATORIO18 needs its period). Types without lots (META) keep their rows staged and return 0. The end result is the same as one xls_merge of every row; xls_merge then finishes (reference tables, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';

create or replace function public.xls_merge_relatorio18(p_meta jsonb)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
set work_mem to '64MB'
as $$
declare
  v_est record;
  v_fat_ef integer := 0;
  v_mov_ef integer := 0;
  v_fat_rm integer := 0;
  v_mov_rm integer := 0;
  v_filial integer;
  v_vendedor integer;
  v_cliente integer;
  v_produto integer;
  v_veiculo integer;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_avisos jsonb := '[]';
  v_aux jsonb;
begin
  perform public.xls_r18_periodo(p_meta);
  perform public.xls_staging_exigir('RELATORIO18');
  -- whatever is still staged (everything, when no lot was merged while reading)
  perform public.xls_r18_absorver(p_meta);
  select * into v_est from pg_temp.xls_r18_estado;

  -- A key repeated across lots: its last row stays (the lots wrote it last, so it is what
  -- bi_* holds), the earlier rows give way; a key written by several lots counts once.
  -- A hash of the key finds candidates in one pass; the exact grouping runs only if any.
  v_fat_ef := v_est.fat_ef;
  v_mov_ef := v_est.mov_ef;
  if v_est.lotes > 1 and exists (
       select from (select hashtextextended(s.filial || chr(31) || s.nota_fiscal || chr(31) || s.serie || chr(31) || s.item, 0)
                      from pg_temp.xls_src_faturamento s group by 1 having count(*) > 1) x) then
    create temp table xls_rep_faturamento on commit drop as
    select filial, nota_fiscal, serie, item, max(linha) as ultima, count(*) filter (where gravada) as escritas
      from pg_temp.xls_src_faturamento group by 1, 2, 3, 4 having count(*) > 1;
    with d as (
      delete from pg_temp.xls_src_faturamento s using pg_temp.xls_rep_faturamento k
       where k.filial = s.filial and k.nota_fiscal = s.nota_fiscal and k.serie = s.serie and k.item = s.item and s.linha < k.ultima
      returning s.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '20', d.linha, null from d;
    v_fat_ef := v_fat_ef - (select coalesce(sum(greatest(k.escritas - 1, 0)), 0) from pg_temp.xls_rep_faturamento k);
  end if;
  if v_est.lotes > 1 and exists (
       select from (select hashtextextended(s.filial || chr(31) || s.lancamento || chr(31) || s.conta, 0)
                      from pg_temp.xls_src_movimento s group by 1 having count(*) > 1) x) then
    create temp table xls_rep_movimento on commit drop as
    select filial, lancamento, conta, max(linha) as ultima, count(*) filter (where gravada) as escritas
      from pg_temp.xls_src_movimento group by 1, 2, 3 having count(*) > 1;
    with d as (
      delete from pg_temp.xls_src_movimento s using pg_temp.xls_rep_movimento k
       where k.filial = s.filial and k.lancamento = s.lancamento and k.conta = s.conta and s.linha < k.ultima
      returning s.linha)
    insert into pg_temp.xls_ocorrencia select 'duplicada', '30', d.linha, null from d;
    v_mov_ef := v_mov_ef - (select coalesce(sum(greatest(k.escritas - 1, 0)), 0) from pg_temp.xls_rep_movimento k);
  end if;

  -- Vehicle-registry defence: the problem rows the lots kept (rows are imported anyway).
  select coalesce(jsonb_agg(jsonb_build_object('categoria', 'veiculo', 'motivo', r.motivo, 'quantidade', r.n, 'linhas', r.linhas)
                            order by r.ordem), '[]')
    into v_aux
    from (select m.ordem, m.motivo, count(*) as n,
                 coalesce(jsonb_agg(jsonb_build_object('aba', m.aba, 'linha', m.linha, 'valor', m.valor) order by m.aba, m.linha)
                            filter (where m.rn <= 1000), '[]') as linhas
            from (select x.*, row_number() over (partition by x.ordem order by x.aba, x.linha) as rn
                    from pg_temp.xls_veiculo_problema x) m
           group by m.ordem, m.motivo) r;
  v_avisos := v_avisos || v_aux;

  -- rows without a natural key or date were set aside by the lots (the reader normally catches them)
  select coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'campo', o.campo, 'valor', '',
                                               'mensagem', format('linha %s: %s '''' inválido', o.linha, o.campo))
                            order by o.aba, o.linha), '[]')
    into v_aux
    from pg_temp.xls_ocorrencia o where o.tipo = 'rejeitada';
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);

  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', coalesce(jsonb_agg(jsonb_build_object('aba', o.aba, 'linha', o.linha, 'valor', null) order by o.aba, o.linha), '[]'))) end
    into v_aux from pg_temp.xls_ocorrencia o where o.tipo = 'duplicada';
  v_avisos := v_avisos || v_aux;

  -- reference tables: upsert only (never deleted by a spreadsheet), in key order; each
  -- value comes from the last row of the sheet (highest row number) that has it
  insert into public.bi_filial (codigo)
  select x.codigo from (select filial as codigo from pg_temp.xls_src_faturamento
                        union select filial from pg_temp.xls_src_movimento) x
   where not exists (select from public.bi_filial t where t.codigo = x.codigo)
   order by x.codigo
  on conflict (codigo) do nothing;
  get diagnostics v_filial = row_count;

  insert into public.bi_vendedor as t (codigo, nome, filial)
  select s.codigo, s.nome, s.filial
    from (select distinct on (m.codigo) m.codigo, n.nome_vendedor as nome, u.filial
            from (select f.vendedor as codigo, max(f.linha) as lu, max(f.linha) filter (where f.nome_vendedor is not null) as ln
                    from pg_temp.xls_src_faturamento f where f.vendedor is not null group by f.vendedor) m
            join pg_temp.xls_src_faturamento u on u.vendedor = m.codigo and u.linha = m.lu
            left join pg_temp.xls_src_faturamento n on n.vendedor = m.codigo and n.linha = m.ln
           order by m.codigo) s
   where not exists (select from public.bi_vendedor t where t.codigo = s.codigo
                        and t.nome is not distinct from coalesce(s.nome, t.nome)
                        and t.filial is not distinct from coalesce(s.filial, t.filial))
   order by s.codigo
  on conflict (codigo) do update set nome = coalesce(excluded.nome, t.nome), filial = coalesce(excluded.filial, t.filial)
   where (t.nome, t.filial) is distinct from (coalesce(excluded.nome, t.nome), coalesce(excluded.filial, t.filial));
  get diagnostics v_vendedor = row_count;

  insert into public.bi_cliente as t (codigo, nome)
  select s.codigo, s.nome
    from (select distinct on (m.codigo) m.codigo, n.nome_cliente as nome
            from (select f.cliente as codigo, max(f.linha) filter (where f.nome_cliente is not null) as ln
                    from pg_temp.xls_src_faturamento f where f.cliente is not null group by f.cliente) m
            left join pg_temp.xls_src_faturamento n on n.cliente = m.codigo and n.linha = m.ln
           order by m.codigo) s
   where not exists (select from public.bi_cliente t where t.codigo = s.codigo and t.nome is not distinct from coalesce(s.nome, t.nome))
   order by s.codigo
  on conflict (codigo) do update set nome = coalesce(excluded.nome, t.nome)
   where t.nome is distinct from coalesce(excluded.nome, t.nome);
  get diagnostics v_cliente = row_count;

  insert into public.bi_produto as t (codigo, descricao)
  select s.codigo, s.descricao
    from (select distinct on (m.codigo) m.codigo, n.descricao_produto as descricao
            from (select f.produto as codigo, max(f.linha) filter (where f.descricao_produto is not null) as ln
                    from pg_temp.xls_src_faturamento f where f.produto is not null group by f.produto) m
            left join pg_temp.xls_src_faturamento n on n.produto = m.codigo and n.linha = m.ln
           order by m.codigo) s
   where not exists (select from public.bi_produto t where t.codigo = s.codigo and t.descricao is not distinct from coalesce(s.descricao, t.descricao))
   order by s.codigo
  on conflict (codigo) do update set descricao = coalesce(excluded.descricao, t.descricao)
   where t.descricao is distinct from coalesce(excluded.descricao, t.descricao);
  get diagnostics v_produto = row_count;

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

  -- scope deletes: rows of the period absent from the file, locked in key order. Every key
  -- of the file is now stored with the file's date, so when the period holds as many rows
  -- as the file has in it, none is absent and the anti-join is skipped (an identical
  -- re-import: two counts instead of a join of the period with the file).

  if v_est.fat_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 20: nada removido de bi_faturamento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '20') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 20: remoções de bi_faturamento suspensas; corrija e reenvie'));
  elsif not v_est.fat_vazio
        and (select count(*) from public.bi_faturamento t where t.emissao between v_est.inicio and v_est.fim)
            <> (select count(*) from pg_temp.xls_src_faturamento s where s.emissao between v_est.inicio and v_est.fim) then
    with alvo as (
      select t.id from public.bi_faturamento t
       where t.emissao between v_est.inicio and v_est.fim
         and not exists (select from pg_temp.xls_src_faturamento s
                          where s.filial = t.filial and s.nota_fiscal = t.nota_fiscal and s.serie = t.serie and s.item = t.item)
       order by t.filial, t.nota_fiscal, t.serie, t.item
       for update of t)
    delete from public.bi_faturamento t using alvo where t.id = alvo.id;
    get diagnostics v_fat_rm = row_count;
  end if;

  if v_est.mov_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 30: nada removido de bi_movimento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '30') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 30: remoções de bi_movimento suspensas; corrija e reenvie'));
  elsif not v_est.mov_vazio
        and (select count(*) from public.bi_movimento t where t.data between v_est.inicio and v_est.fim)
            <> (select count(*) from pg_temp.xls_src_movimento s where s.data between v_est.inicio and v_est.fim) then
    with alvo as (
      select t.id from public.bi_movimento t
       where t.data between v_est.inicio and v_est.fim
         and not exists (select from pg_temp.xls_src_movimento s
                          where s.filial = t.filial and s.lancamento = t.lancamento and s.conta = t.conta)
       order by t.filial, t.lancamento, t.conta
       for update of t)
    delete from public.bi_movimento t using alvo where t.id = alvo.id;
    get diagnostics v_mov_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_est.fat_env + v_est.mov_env,
    'linhas_efetivas', v_fat_ef + v_mov_ef,
    'linhas_removidas', v_fat_rm + v_mov_rm,
    'periodo', jsonb_build_object('inicio', v_est.inicio, 'fim', v_est.fim),
    'avisos', public.xls_avisos_normalizar(v_avisos),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object(
      'bi_faturamento', jsonb_build_object('enviadas', v_est.fat_env, 'efetivas', v_fat_ef, 'removidas', v_fat_rm),
      'bi_movimento', jsonb_build_object('enviadas', v_est.mov_env, 'efetivas', v_mov_ef, 'removidas', v_mov_rm),
      'bi_filial', jsonb_build_object('efetivas', v_filial),
      'bi_vendedor', jsonb_build_object('efetivas', v_vendedor),
      'bi_cliente', jsonb_build_object('efetivas', v_cliente),
      'bi_produto', jsonb_build_object('efetivas', v_produto),
      'bi_veiculo', jsonb_build_object('efetivas', v_veiculo)));
end;
$$;
comment on function public.xls_merge_relatorio18(jsonb) is 'Merge of RELATORIO18 from the staging tables faturamento (tab 20) and movimento (tab 30); p_meta = {periodo_inicio, periodo_fim (tab 10, E1/F1), linhas_rejeitadas (the reader''s row errors)}. Takes what is still staged through xls_r18_absorver (bi_faturamento and bi_movimento written diff-aware in key order, lot by lot when the edge called xls_merge_lote while reading), then upserts bi_filial (codigo only), bi_vendedor, bi_cliente (codigo, nome), bi_produto, bi_veiculo (valid plates; a missing year or model keeps the stored one) from the last row that has each value, then deletes the rows of the period absent from the file (not when a tab came empty or had rejected rows). Vehicle-registry defence reasons go to avisos with row numbers and counts. linhas_efetivas counts the keys written (a key repeated across lots counts once). Returns the metrics; xls_merge records them. XL422 missing or invalid period.';

comment on function public.xls_r18_absorver(jsonb) is 'One lot of a RELATORIO18 merge: takes the rows staged so far (xls_stg_faturamento, xls_stg_movimento, then emptied), normalises them, sets aside rows without a natural key or date, lets a repeated key''s last row in the lot win (repeats across lots are settled by xls_merge_relatorio18), and writes bi_faturamento and bi_movimento diff-aware in key order. The first call of a transaction takes the merge lock and notes whether the period''s scope was empty. Reference tables, the vehicle defence, scope deletes and the result are left to xls_merge_relatorio18, which calls this for whatever is still staged. Returns the rows taken. Called through xls_merge_lote / xls_merge.';
drop function public.xls_r18_lote(jsonb, boolean);
drop function public.xls_r18_candidatos(regclass, regclass);
