CREATE OR REPLACE FUNCTION public.xls_merge_relatorio18(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
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
$function$
;

comment on function public.xls_merge_relatorio18(jsonb) is 'Merge of RELATORIO18 from the staging tables faturamento (tab 20) and movimento (tab 30); p_meta = {periodo_inicio, periodo_fim (tab 10, E1/F1), linhas_rejeitadas (the reader''s row errors)}. Takes what is still staged through xls_r18_lote (bi_faturamento and bi_movimento written diff-aware in key order, lot by lot when the edge called xls_merge_lote while reading), then upserts bi_filial (codigo only), bi_vendedor, bi_cliente (codigo, nome), bi_produto, bi_veiculo (valid plates; a missing year or model keeps the stored one) from the last row that has each value (the candidates the lots kept, rebuilt from the surviving rows when a key repeated across lots), then deletes the rows of the period absent from the file (not when a tab came empty or had rejected rows). Vehicle-registry defence reasons go to avisos with row numbers and counts. linhas_efetivas counts the keys written (a key repeated across lots counts once). Returns the metrics; xls_merge records them. XL422 missing or invalid period.';
