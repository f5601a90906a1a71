-- migrate:up
set local lock_timeout = '5s';

-- Staging and merges. The edge, in ONE transaction: xls_staging_preparar(tipo) creates
-- ON COMMIT DROP temp tables; it COPYs the reader's rows into them; xls_merge(id, meta)
-- writes the bi_* tables diff-aware; xls_concluir(id, worker) ends the processing.
--
-- Writing rules (measured by the issue author on 200k rows): a bare ON CONFLICT DO UPDATE
-- WHERE IS DISTINCT FROM still locks and dirties every matching page, so every upsert
-- here is preceded by an anti-join that keeps only new or changed rows; the scope DELETE
-- is a hash anti-join too; both write in natural-key order. Merges of the same scoped
-- table are serialised by a transaction advisory lock (xls_travar): key order alone
-- cannot prevent a cycle between one processing's upsert pass and another's delete pass.

create function public.xls_staging_definicao(p_tipo text)
returns table (staging text, ordem integer, coluna text, tipo_sql text)
language sql immutable
set search_path to pg_catalog, pg_temp
as $$
  select d.staging, d.ordem, d.coluna, d.tipo_sql
    from (values
      ('RELATORIO18', 'faturamento', 1, 'linha', 'integer'),
      ('RELATORIO18', 'faturamento', 2, 'filial', 'text'),
      ('RELATORIO18', 'faturamento', 3, 'nota_fiscal', 'text'),
      ('RELATORIO18', 'faturamento', 4, 'serie', 'text'),
      ('RELATORIO18', 'faturamento', 5, 'item', 'text'),
      ('RELATORIO18', 'faturamento', 6, 'emissao', 'date'),
      ('RELATORIO18', 'faturamento', 7, 'cliente', 'text'),
      ('RELATORIO18', 'faturamento', 8, 'nome_cliente', 'text'),
      ('RELATORIO18', 'faturamento', 9, 'vendedor', 'text'),
      ('RELATORIO18', 'faturamento', 10, 'nome_vendedor', 'text'),
      ('RELATORIO18', 'faturamento', 11, 'produto', 'text'),
      ('RELATORIO18', 'faturamento', 12, 'descricao_produto', 'text'),
      ('RELATORIO18', 'faturamento', 13, 'quantidade', 'numeric'),
      ('RELATORIO18', 'faturamento', 14, 'valor_unitario', 'numeric'),
      ('RELATORIO18', 'faturamento', 15, 'valor_total', 'numeric'),
      ('RELATORIO18', 'faturamento', 16, 'placa', 'text'),
      ('RELATORIO18', 'faturamento', 17, 'ano_veiculo', 'text'),
      ('RELATORIO18', 'faturamento', 18, 'modelo_veiculo', 'text'),
      ('RELATORIO18', 'movimento', 1, 'linha', 'integer'),
      ('RELATORIO18', 'movimento', 2, 'filial', 'text'),
      ('RELATORIO18', 'movimento', 3, 'data', 'date'),
      ('RELATORIO18', 'movimento', 4, 'lancamento', 'text'),
      ('RELATORIO18', 'movimento', 5, 'conta', 'text'),
      ('RELATORIO18', 'movimento', 6, 'descricao_conta', 'text'),
      ('RELATORIO18', 'movimento', 7, 'historico', 'text'),
      ('RELATORIO18', 'movimento', 8, 'debito', 'numeric'),
      ('RELATORIO18', 'movimento', 9, 'credito', 'numeric'),
      ('RELATORIO18', 'movimento', 10, 'placa', 'text'),
      ('RELATORIO18', 'movimento', 11, 'ano_veiculo', 'text'),
      ('META', 'meta', 1, 'linha', 'integer'),
      ('META', 'meta', 2, 'competencia', 'date'),
      ('META', 'meta', 3, 'vendedor', 'text'),
      ('META', 'meta', 4, 'produto', 'text'),
      ('META', 'meta', 5, 'meta_volume', 'numeric'),
      ('META', 'meta', 6, 'meta_margem', 'numeric')
    ) d (tipo, staging, ordem, coluna, tipo_sql)
   where d.tipo = p_tipo
   order by d.staging, d.ordem;
$$;
comment on function public.xls_staging_definicao(text) is 'The staging tables of a spreadsheet type and their typed columns, in COPY order (the contract between the reader and the merges; field names = normalised headers). Every table starts with linha, the sheet''s own 1-based row number.';

create function public.xls_staging_preparar(p_tipo text)
returns table (staging text, tabela text, colunas text[])
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
#variable_conflict use_column
declare
  v record;
begin
  if p_tipo is null or not public.xls_tipo_valido(p_tipo) then
    raise exception 'tipo de planilha desconhecido: %', coalesce(p_tipo, 'null') using errcode = 'XL400';
  end if;
  if not exists (select from public.xls_staging_definicao(p_tipo)) then
    raise exception 'o tipo % ainda não tem importação' , p_tipo using errcode = 'XL422';
  end if;
  for v in
    select d.staging,
           array_agg(d.coluna order by d.ordem) as colunas,
           string_agg(format('%I %s%s', d.coluna, d.tipo_sql, case when d.coluna = 'linha' then ' not null' else '' end),
                      ', ' order by d.ordem) as ddl
      from public.xls_staging_definicao(p_tipo) d
     group by d.staging
     order by d.staging
  loop
    execute format('drop table if exists pg_temp.%I', 'xls_stg_' || v.staging);
    execute format('create temp table %I (%s) on commit drop', 'xls_stg_' || v.staging, v.ddl);
    staging := v.staging;
    tabela := 'pg_temp.xls_stg_' || v.staging;
    colunas := v.colunas;
    return next;
  end loop;
end;
$$;
comment on function public.xls_staging_preparar(text) is 'Creates the staging temp tables of a type (ON COMMIT DROP: call it inside the merge transaction) and returns, per staging name (faturamento, movimento, meta), the table to COPY into and its columns in COPY order. Values: COPY text format, codes as text, numbers with ''.'', dates YYYY-MM-DD, NULL for empty. XL400 unknown type, XL422 type without import yet.';

create function public.xls_staging_exigir(p_tipo text) returns void
language plpgsql stable
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_staging text;
begin
  for v_staging in select distinct d.staging from public.xls_staging_definicao(p_tipo) d loop
    if to_regclass('pg_temp.xls_stg_' || v_staging) is null then
      raise exception 'staging % ausente: chame xls_staging_preparar(%) e o COPY na mesma transação do merge', v_staging, p_tipo
        using errcode = 'XL500';
    end if;
  end loop;
end;
$$;
comment on function public.xls_staging_exigir(text) is 'Raises XL500 unless every staging temp table of the type exists in this transaction.';

create function public.xls_travar(p_tabelas text[]) returns void
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_tabela text;
begin
  for v_tabela in select distinct t from unnest(p_tabelas) t order by t loop
    perform pg_advisory_xact_lock(hashtextextended('xls_merge:' || v_tabela, 0));
  end loop;
end;
$$;
comment on function public.xls_travar(text[]) is 'Serialises merges that delete within a scope of the same tables: one transaction advisory lock per table name (taken in name order, released at commit). Reading, parsing and COPY of concurrent processings still run in parallel.';

create function public.xls_suspender_remocoes(p_rejeitadas jsonb, p_aba text) returns boolean
language sql immutable
set search_path to pg_catalog, pg_temp
as $$
  select exists (select from jsonb_array_elements(coalesce(p_rejeitadas, '[]')) e
                  where e ->> 'aba' is null or e ->> 'aba' = p_aba or p_aba is null);
$$;
comment on function public.xls_suspender_remocoes(jsonb, text) is 'True when a rejected row could belong to tab p_aba (its aba is unknown or equal): its natural key is unknown, so deleting rows of the scope absent from the file could delete that row''s stored version. Deletions of that tab are then suspended (a warning says so) and nothing stored is lost.';

create function public.xls_merge_relatorio18(p_meta jsonb)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
set work_mem to '64MB'
as $$
declare
  v_ini date;
  v_fim date;
  v_fat_env integer;
  v_mov_env integer;
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
  v_n integer;
  v_fat_vazio boolean;
  v_mov_vazio boolean;
begin
  begin
    v_ini := (p_meta ->> 'periodo_inicio')::date;
    v_fim := (p_meta ->> 'periodo_fim')::date;
  exception when data_exception then
    raise exception 'período do relatório inválido (aba 10, células E1 e F1): % a %',
      coalesce(p_meta ->> 'periodo_inicio', '?'), coalesce(p_meta ->> 'periodo_fim', '?') using errcode = 'XL422';
  end;
  if v_ini is null or v_fim is null then
    raise exception 'período do relatório ausente (aba 10, células E1 e F1)' using errcode = 'XL422';
  end if;
  if v_fim < v_ini then
    raise exception 'período do relatório inválido: fim % antes do início %', v_fim, v_ini using errcode = 'XL422';
  end if;
  perform public.xls_staging_exigir('RELATORIO18');
  perform public.xls_travar(array['bi_faturamento', 'bi_movimento']);
  -- was the period's scope empty before this merge (a first import)? Then, after the
  -- upserts, every row of the scope came from this file and the scope delete is skipped.
  -- (Sound under the advisory lock: only merges write these tables.)
  v_fat_vazio := not exists (select from public.bi_faturamento t where t.emissao between v_ini and v_fim);
  v_mov_vazio := not exists (select from public.bi_movimento t where t.data between v_ini and v_fim);

  -- normalised sources: trimmed, empty -> null, truncated to the column maximum
  drop table if exists pg_temp.xls_src_faturamento;
  create temp table xls_src_faturamento on commit drop as
  select s.linha,
         left(nullif(btrim(s.filial), ''), 20) as filial,
         left(nullif(btrim(s.nota_fiscal), ''), 20) as nota_fiscal,
         coalesce(left(nullif(btrim(s.serie), ''), 5), '') as serie,
         coalesce(left(nullif(btrim(s.item), ''), 10), '') as item,
         s.emissao,
         left(nullif(btrim(s.cliente), ''), 20) as cliente,
         left(nullif(btrim(s.nome_cliente), ''), 150) as nome_cliente,
         left(nullif(btrim(s.vendedor), ''), 20) as vendedor,
         left(nullif(btrim(s.nome_vendedor), ''), 120) as nome_vendedor,
         left(nullif(btrim(s.produto), ''), 20) as produto,
         left(nullif(btrim(s.descricao_produto), ''), 150) as descricao_produto,
         s.quantidade, s.valor_unitario, s.valor_total,
         nullif(btrim(s.placa), '') as placa_bruta,
         left(upper(regexp_replace(nullif(btrim(s.placa), ''), '[-[:space:]]', '', 'g')), 10) as placa,
         nullif(btrim(s.ano_veiculo), '') as ano_bruto,
         left(nullif(btrim(s.modelo_veiculo), ''), 80) as modelo
    from pg_temp.xls_stg_faturamento s;
  get diagnostics v_fat_env = row_count;
  analyze pg_temp.xls_src_faturamento;

  drop table if exists pg_temp.xls_src_movimento;
  create temp table xls_src_movimento on commit drop as
  select s.linha,
         left(nullif(btrim(s.filial), ''), 20) as filial,
         s.data,
         left(nullif(btrim(s.lancamento), ''), 20) as lancamento,
         left(nullif(btrim(s.conta), ''), 40) as conta,
         left(nullif(btrim(s.descricao_conta), ''), 120) as descricao_conta,
         left(nullif(btrim(s.historico), ''), 250) as historico,
         s.debito, s.credito,
         nullif(btrim(s.placa), '') as placa_bruta,
         left(upper(regexp_replace(nullif(btrim(s.placa), ''), '[-[:space:]]', '', 'g')), 10) as placa,
         nullif(btrim(s.ano_veiculo), '') as ano_bruto
    from pg_temp.xls_stg_movimento s;
  get diagnostics v_mov_env = row_count;
  analyze pg_temp.xls_src_movimento;

  -- Vehicle-registry defence: every row with any vehicle column is inspected (rows are
  -- imported anyway).
  drop table if exists pg_temp.xls_src_veiculo;
  create temp table xls_src_veiculo on commit drop as
  select v.*,
         v.placa ~ '^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$' as placa_valida,
         case when v.ano_ok then v.fab_txt::smallint end as fab,
         case when v.ano_ok then v.mod_txt::smallint end as mod
    from (select u.*,
                 u.ano_bruto ~ '^(19|20)[0-9]{2}[[:space:]]*/[[:space:]]*(19|20)[0-9]{2}$' as ano_ok,
                 substring(u.ano_bruto from '^([0-9]{4})') as fab_txt,
                 substring(u.ano_bruto from '([0-9]{4})$') as mod_txt
            from (select '20'::text as aba, f.linha, f.emissao as data, f.placa_bruta, f.placa, f.ano_bruto, f.modelo
                    from pg_temp.xls_src_faturamento f
                   where f.placa_bruta is not null or f.ano_bruto is not null or f.modelo is not null
                  union all
                  select '30', m.linha, m.data, m.placa_bruta, m.placa, m.ano_bruto, null
                    from pg_temp.xls_src_movimento m
                   where m.placa_bruta is not null or m.ano_bruto is not null) u) v;

  select coalesce(jsonb_agg(jsonb_build_object('categoria', 'veiculo', 'motivo', r.motivo, 'quantidade', r.n, 'linhas', r.linhas)
                            order by r.ordem), '[]')
    into v_aux
    from (select m.ordem, m.motivo, count(*) as n,
                 coalesce(jsonb_agg(jsonb_build_object('aba', m.aba, 'linha', m.linha, 'valor', m.valor) order by m.aba, m.linha)
                            filter (where m.rn <= 1000), '[]') as linhas
            from (select x.*, row_number() over (partition by x.ordem order by x.aba, x.linha) as rn
                    from (select 1 as ordem, 'placa inválida' as motivo, aba, linha, placa_bruta as valor
                            from pg_temp.xls_src_veiculo where placa_bruta is not null and not placa_valida
                          union all
                          select 2, 'placa ausente', aba, linha, coalesce(ano_bruto, modelo)
                            from pg_temp.xls_src_veiculo where placa_bruta is null
                          union all
                          select 3, 'ano do veículo inválido', aba, linha, ano_bruto
                            from pg_temp.xls_src_veiculo where ano_bruto is not null and not ano_ok
                          union all
                          select 4, 'ano modelo incoerente', aba, linha, ano_bruto
                            from pg_temp.xls_src_veiculo where ano_ok and (mod < fab or mod > fab + 1)) x) m
           group by m.ordem, m.motivo) r;
  v_avisos := v_avisos || v_aux;

  -- rows without a natural key or date are rejected (the reader normally catches them)
  select coalesce(jsonb_agg(jsonb_build_object('aba', r.aba, 'linha', r.linha, 'campo', r.campo, 'valor', '',
                                               'mensagem', format('linha %s: %s '''' inválido', r.linha, r.campo))
                            order by r.aba, r.linha), '[]')
    into v_aux
    from (select '20' as aba, f.linha,
                 case when f.filial is null then 'filial' when f.nota_fiscal is null then 'nota_fiscal' else 'emissao' end as campo
            from pg_temp.xls_src_faturamento f where f.filial is null or f.nota_fiscal is null or f.emissao is null
          union all
          select '30', m.linha,
                 case when m.filial is null then 'filial' when m.data is null then 'data'
                      when m.lancamento is null then 'lancamento' else 'conta' end
            from pg_temp.xls_src_movimento m
           where m.filial is null or m.data is null or m.lancamento is null or m.conta is null) r;
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);
  delete from pg_temp.xls_src_faturamento where filial is null or nota_fiscal is null or emissao is null;
  delete from pg_temp.xls_src_movimento where filial is null or data is null or lancamento is null or conta is null;

  -- a key repeated in the file: the last row wins (a hash aggregate finds the repeated
  -- keys; only their rows are sorted)
  with dup_f as (
    select filial, nota_fiscal, serie, item from pg_temp.xls_src_faturamento group by 1, 2, 3, 4 having count(*) > 1
  ), d as (
    delete from pg_temp.xls_src_faturamento f
     using (select s.ctid, row_number() over (partition by s.filial, s.nota_fiscal, s.serie, s.item order by s.linha desc, s.ctid desc) as rn
              from pg_temp.xls_src_faturamento s
              join dup_f k on k.filial = s.filial and k.nota_fiscal = s.nota_fiscal and k.serie = s.serie and k.item = s.item) x
     where f.ctid = x.ctid and x.rn > 1
    returning '20'::text as aba, f.linha
  ), dup_m as (
    select filial, lancamento, conta from pg_temp.xls_src_movimento group by 1, 2, 3 having count(*) > 1
  ), m as (
    delete from pg_temp.xls_src_movimento s
     using (select s2.ctid, row_number() over (partition by s2.filial, s2.lancamento, s2.conta order by s2.linha desc, s2.ctid desc) as rn
              from pg_temp.xls_src_movimento s2
              join dup_m k on k.filial = s2.filial and k.lancamento = s2.lancamento and k.conta = s2.conta) x
     where s.ctid = x.ctid and x.rn > 1
    returning '30'::text as aba, s.linha
  ), todas as (select * from d union all select * from m)
  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', coalesce(jsonb_agg(jsonb_build_object('aba', aba, 'linha', linha, 'valor', null) order by aba, linha), '[]'))) end
    into v_aux from todas;
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
                 (array_agg(v.fab order by v.data desc nulls last, v.aba, v.linha desc) filter (where v.ano_ok))[1] as fab,
                 (array_agg(v.mod order by v.data desc nulls last, v.aba, v.linha desc) filter (where v.ano_ok))[1] as mod,
                 (array_agg(v.modelo order by v.data desc nulls last, v.aba, v.linha desc) filter (where v.modelo is not null))[1] as modelo
            from pg_temp.xls_src_veiculo v where v.placa_valida group by v.placa) s
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

  -- data tables: one left join per table keeps only the new (novo) or changed rows of the
  -- file. New keys go in with a plain INSERT (no speculative insertion: the advisory lock
  -- excludes a concurrent writer, and a unique violation would abort without losing
  -- anything); changed rows go through the diff-aware upsert. Both write in key order.
  drop table if exists pg_temp.xls_dif_faturamento;
  create temp table xls_dif_faturamento on commit drop as
  select s.filial, s.nota_fiscal, s.serie, s.item, s.emissao, s.cliente, s.vendedor, s.produto,
         s.quantidade, s.valor_unitario, s.valor_total, s.placa, t.id is null as novo
    from pg_temp.xls_src_faturamento s
    left join public.bi_faturamento t
      on t.filial = s.filial and t.nota_fiscal = s.nota_fiscal and t.serie = s.serie and t.item = s.item
   where t.id is null
      or (t.emissao, t.cliente, t.vendedor, t.produto, t.quantidade, t.valor_unitario, t.valor_total, t.placa)
         is distinct from
         (s.emissao, s.cliente, s.vendedor, s.produto, s.quantidade, s.valor_unitario, s.valor_total, s.placa);
  get diagnostics v_n = row_count;
  if v_n > 0 then
    insert into public.bi_faturamento (filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto,
                                       quantidade, valor_unitario, valor_total, placa)
    select s.filial, s.nota_fiscal, s.serie, s.item, s.emissao, s.cliente, s.vendedor, s.produto,
           s.quantidade, s.valor_unitario, s.valor_total, s.placa
      from pg_temp.xls_dif_faturamento s
     where s.novo
     order by s.filial, s.nota_fiscal, s.serie, s.item;
    get diagnostics v_fat_ef = row_count;

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
    get diagnostics v_n = row_count;
    v_fat_ef := v_fat_ef + v_n;
  end if;

  drop table if exists pg_temp.xls_dif_movimento;
  create temp table xls_dif_movimento on commit drop as
  select s.filial, s.data, s.lancamento, s.conta, s.descricao_conta, s.historico, s.debito, s.credito, s.placa,
         t.id is null as novo
    from pg_temp.xls_src_movimento s
    left join public.bi_movimento t on t.filial = s.filial and t.lancamento = s.lancamento and t.conta = s.conta
   where t.id is null
      or (t.data, t.descricao_conta, t.historico, t.debito, t.credito, t.placa)
         is distinct from (s.data, s.descricao_conta, s.historico, s.debito, s.credito, s.placa);
  get diagnostics v_n = row_count;
  if v_n > 0 then
    insert into public.bi_movimento (filial, data, lancamento, conta, descricao_conta, historico, debito, credito, placa)
    select s.filial, s.data, s.lancamento, s.conta, s.descricao_conta, s.historico, s.debito, s.credito, s.placa
      from pg_temp.xls_dif_movimento s
     where s.novo
     order by s.filial, s.lancamento, s.conta;
    get diagnostics v_mov_ef = row_count;

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
    get diagnostics v_n = row_count;
    v_mov_ef := v_mov_ef + v_n;
  end if;

  -- scope deletes: rows of the period absent from the file, locked in key order
  if v_fat_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 20: nada removido de bi_faturamento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '20') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 20: remoções de bi_faturamento suspensas; corrija e reenvie'));
  elsif not v_fat_vazio then
    with alvo as (
      select t.id from public.bi_faturamento t
       where t.emissao between v_ini and v_fim
         and not exists (select from pg_temp.xls_src_faturamento s
                          where s.filial = t.filial and s.nota_fiscal = t.nota_fiscal and s.serie = t.serie and s.item = t.item)
       order by t.filial, t.nota_fiscal, t.serie, t.item
       for update of t)
    delete from public.bi_faturamento t using alvo where t.id = alvo.id;
    get diagnostics v_fat_rm = row_count;
  end if;

  if v_mov_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio na aba 30: nada removido de bi_movimento'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, '30') then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas na aba 30: remoções de bi_movimento suspensas; corrija e reenvie'));
  elsif not v_mov_vazio then
    with alvo as (
      select t.id from public.bi_movimento t
       where t.data between v_ini and v_fim
         and not exists (select from pg_temp.xls_src_movimento s
                          where s.filial = t.filial and s.lancamento = t.lancamento and s.conta = t.conta)
       order by t.filial, t.lancamento, t.conta
       for update of t)
    delete from public.bi_movimento t using alvo where t.id = alvo.id;
    get diagnostics v_mov_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_fat_env + v_mov_env,
    'linhas_efetivas', v_fat_ef + v_mov_ef,
    'linhas_removidas', v_fat_rm + v_mov_rm,
    'periodo', jsonb_build_object('inicio', v_ini, 'fim', v_fim),
    'avisos', public.xls_avisos_normalizar(v_avisos),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object(
      'bi_faturamento', jsonb_build_object('enviadas', v_fat_env, 'efetivas', v_fat_ef, 'removidas', v_fat_rm),
      'bi_movimento', jsonb_build_object('enviadas', v_mov_env, 'efetivas', v_mov_ef, 'removidas', v_mov_rm),
      'bi_filial', jsonb_build_object('efetivas', v_filial),
      'bi_vendedor', jsonb_build_object('efetivas', v_vendedor),
      'bi_cliente', jsonb_build_object('efetivas', v_cliente),
      'bi_produto', jsonb_build_object('efetivas', v_produto),
      'bi_veiculo', jsonb_build_object('efetivas', v_veiculo)));
end;
$$;
comment on function public.xls_merge_relatorio18(jsonb) is 'Merge of RELATORIO18 from the staging tables faturamento (tab 20) and movimento (tab 30); p_meta = {periodo_inicio, periodo_fim (tab 10, E1/F1), linhas_rejeitadas (the reader''s row errors)}. Upserts bi_filial (codigo only), bi_vendedor, bi_cliente (codigo, nome), bi_produto, bi_veiculo (valid plates; a missing year or model keeps the stored one), then bi_faturamento and bi_movimento diff-aware in key order, then deletes the rows of the period absent from the file (not when a tab came empty or had rejected rows). Vehicle-registry defence reasons go to avisos with row numbers and counts. Returns the metrics; xls_merge records them. XL422 missing or invalid period.';

create function public.xls_merge_meta(p_meta jsonb)
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_env integer;
  v_ef integer := 0;
  v_rm integer := 0;
  v_rejeitadas jsonb := public.xls_rejeitadas_normalizar(p_meta -> 'linhas_rejeitadas');
  v_avisos jsonb := '[]';
  v_aux jsonb;
  v_faltam text;
  v_n integer;
begin
  perform public.xls_staging_exigir('META');
  perform public.xls_travar(array['bi_meta']);
  analyze pg_temp.xls_stg_meta;
  select count(*) into v_env from pg_temp.xls_stg_meta;

  drop table if exists pg_temp.xls_src_meta;
  create temp table xls_src_meta on commit drop as
  select s.linha,
         date_trunc('month', s.competencia)::date as competencia,
         left(nullif(btrim(s.vendedor), ''), 20) as vendedor,
         left(nullif(btrim(s.produto), ''), 20) as produto,
         s.meta_volume, s.meta_margem
    from pg_temp.xls_stg_meta s;

  select coalesce(jsonb_agg(jsonb_build_object('aba', null, 'linha', r.linha, 'campo', r.campo, 'valor', '',
                                               'mensagem', format('linha %s: %s '''' inválido', r.linha, r.campo)) order by r.linha), '[]')
    into v_aux
    from (select m.linha, case when m.competencia is null then 'competencia' when m.vendedor is null then 'vendedor' else 'produto' end as campo
            from pg_temp.xls_src_meta m where m.competencia is null or m.vendedor is null or m.produto is null) r;
  v_rejeitadas := public.xls_rejeitadas_normalizar(v_rejeitadas || v_aux);
  delete from pg_temp.xls_src_meta where competencia is null or vendedor is null or produto is null;

  with d as (
    delete from pg_temp.xls_src_meta m
     using (select ctid, row_number() over (partition by competencia, vendedor, produto order by linha desc) as rn
              from pg_temp.xls_src_meta) x
     where m.ctid = x.ctid and x.rn > 1
    returning m.linha)
  select case when count(*) = 0 then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
           'categoria', 'duplicada', 'motivo', 'chave repetida no arquivo: vale a última linha com a mesma chave',
           'quantidade', count(*),
           'linhas', jsonb_agg(jsonb_build_object('aba', null, 'linha', linha, 'valor', null) order by linha))) end
    into v_aux from d;
  v_avisos := v_avisos || v_aux;
  analyze pg_temp.xls_src_meta;

  -- The seller must exist (created by the batch's master report): a clear, distinct
  -- error the batch logic treats as transient.
  select count(*), string_agg(format('%s (%s %s)', f.vendedor, case when f.n = 1 then 'linha' else 'linhas' end, f.linhas), ', ' order by f.vendedor)
                     filter (where f.ordem <= 20)
    into v_n, v_faltam
    from (select s.vendedor, count(*) as n,
                 array_to_string((array_agg(s.linha order by s.linha))[1:10], ', ') || case when count(*) > 10 then ', …' else '' end as linhas,
                 row_number() over (order by s.vendedor) as ordem
            from pg_temp.xls_src_meta s
           where not exists (select from public.bi_vendedor v where v.codigo = s.vendedor)
           group by s.vendedor) f;
  if v_n > 0 then
    v_faltam := v_faltam || case when v_n > 20 then format(' e mais %s', v_n - 20) else '' end;
    raise exception 'vendedor não cadastrado em bi_vendedor: %', v_faltam
      using errcode = 'XL424',
            hint = 'o vendedor é criado pelo RELATORIO18; dentro de um lote a META é refeita depois que o relatório mestre concluir';
  end if;

  begin
    insert into public.bi_meta as t (competencia, vendedor, produto, meta_volume, meta_margem)
    select s.competencia, s.vendedor, s.produto, s.meta_volume, s.meta_margem
      from pg_temp.xls_src_meta s
     where not exists (select from public.bi_meta t
                        where t.competencia = s.competencia and t.vendedor = s.vendedor and t.produto = s.produto
                          and (t.meta_volume, t.meta_margem) is not distinct from (s.meta_volume, s.meta_margem))
     order by s.competencia, s.vendedor, s.produto
    on conflict (competencia, vendedor, produto) do update
       set meta_volume = excluded.meta_volume, meta_margem = excluded.meta_margem
     where (t.meta_volume, t.meta_margem) is distinct from (excluded.meta_volume, excluded.meta_margem);
    get diagnostics v_ef = row_count;
  exception when foreign_key_violation then
    raise exception 'vendedor não cadastrado em bi_vendedor (%)', sqlerrm using errcode = 'XL424';
  end;

  if v_env = 0 then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'envio vazio: nada removido de bi_meta'));
  elsif public.xls_suspender_remocoes(v_rejeitadas, null) then
    v_avisos := v_avisos || jsonb_build_array(jsonb_build_object('categoria', 'remocao', 'quantidade', 1, 'linhas', '[]'::jsonb,
      'motivo', 'há linhas rejeitadas: remoções de bi_meta suspensas; corrija e reenvie'));
  else
    with alvo as (
      select t.id from public.bi_meta t
       where t.competencia in (select distinct s.competencia from pg_temp.xls_src_meta s)
         and not exists (select from pg_temp.xls_src_meta s
                          where s.competencia = t.competencia and s.vendedor = t.vendedor and s.produto = t.produto)
       order by t.competencia, t.vendedor, t.produto
       for update of t)
    delete from public.bi_meta t using alvo where t.id = alvo.id;
    get diagnostics v_rm = row_count;
  end if;

  return jsonb_build_object(
    'linhas_enviadas', v_env,
    'linhas_efetivas', v_ef,
    'linhas_removidas', v_rm,
    'avisos', public.xls_avisos_normalizar(v_avisos),
    'linhas_rejeitadas', v_rejeitadas,
    'tabelas', jsonb_build_object('bi_meta', jsonb_build_object('enviadas', v_env, 'efetivas', v_ef, 'removidas', v_rm)));
end;
$$;
comment on function public.xls_merge_meta(jsonb) is 'Merge of META from the staging table meta; p_meta = {linhas_rejeitadas}. Every seller must exist in bi_vendedor, else XL424 (transient FK failure: the batch logic retries it once after the master report) naming the sellers and rows. Upserts bi_meta diff-aware in key order, then deletes rows of the competências present in the file that the file no longer has. Returns the metrics; xls_merge records them.';

create function public.xls_merge(p_processamento_id uuid, p_meta jsonb default '{}')
returns jsonb
language plpgsql volatile
set search_path to pg_catalog, public, pg_temp
as $$
declare
  v_tipo text;
  v_status text;
  v_res jsonb;
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
    v_res := public.xls_merge_relatorio18(coalesce(p_meta, '{}'));
  elsif v_tipo = 'META' then
    v_res := public.xls_merge_meta(coalesce(p_meta, '{}'));
  elsif v_tipo is null then
    raise exception 'processamento % sem tipo: chame xls_definir_tipo antes do merge', p_processamento_id using errcode = 'XL409';
  else
    raise exception 'o tipo % ainda não tem importação', v_tipo using errcode = 'XL422';
  end if;
  update public.xls_processamento p
     set linhas_enviadas = (v_res ->> 'linhas_enviadas')::integer,
         linhas_efetivas = (v_res ->> 'linhas_efetivas')::integer,
         linhas_removidas = (v_res ->> 'linhas_removidas')::integer,
         metricas = v_res -> 'tabelas',
         avisos = v_res -> 'avisos',
         linhas_rejeitadas = v_res -> 'linhas_rejeitadas'
   where p.id = p_processamento_id;
  return v_res;
end;
$$;
comment on function public.xls_merge(uuid, jsonb) is 'Merge of a PROCESSANDO processing, dispatched by its tipo (xls_merge_relatorio18, xls_merge_meta), from the staging tables filled in this transaction. Records linhas_enviadas, linhas_efetivas, linhas_removidas, metricas, avisos and linhas_rejeitadas on the processing and returns {linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas, tabelas}. Pass the reader''s row errors in p_meta.linhas_rejeitadas. Errors: XL404, XL409 (not PROCESSANDO / no tipo), XL422 (type without import, invalid period), XL424 (seller missing: transient FK), XL500 (staging not prepared).';

-- migrate:down
set local lock_timeout = '5s';
drop function public.xls_merge(uuid, jsonb);
drop function public.xls_merge_meta(jsonb);
drop function public.xls_merge_relatorio18(jsonb);
drop function public.xls_suspender_remocoes(jsonb, text);
drop function public.xls_travar(text[]);
drop function public.xls_staging_exigir(text);
drop function public.xls_staging_preparar(text);
drop function public.xls_staging_definicao(text);
