-- migrate:up
-- RELATORIO18 on the declarative merge (docs/xls-merge.md): its two targets described as rows,
-- what belongs to it alone in its hook (app.xls_hook_relatorio18: period, vehicle-registry
-- defence, reference tables). The hand-written merges it replaces are dropped; the chunk entry
-- point is renamed xls_merge_lote -> xls_merge_chunk ("lote" meant both the zip batch and a
-- group of rows merged together: the batch is the conjunto, the group a chunk).

insert into app.xls_alvo (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, expressoes, reter) values
  ('RELATORIO18', 'faturamento', 'bi_faturamento', 1, '20', 'periodo', 'emissao',
   '{"serie": "coalesce(serie, '''')", "item": "coalesce(item, '''')", "placa": "upper(regexp_replace(placa, ''[-[:space:]]'', '''', ''g''))", "placa_bruta": "placa"}',
   '{cliente, nome_cliente, vendedor, nome_vendedor, produto, descricao_produto}'),
  ('RELATORIO18', 'movimento', 'bi_movimento', 2, '30', 'periodo', 'data',
   '{"placa": "upper(regexp_replace(placa, ''[-[:space:]]'', '''', ''g''))", "placa_bruta": "placa"}',
   '{}');
update app.xls_tipo set hook = 'app.xls_hook_relatorio18' where tipo = 'RELATORIO18';

drop function public.xls_merge_relatorio18(jsonb);
drop function public.xls_merge_meta(jsonb);
drop function public.xls_r18_lote(jsonb,boolean);
drop function public.xls_r18_absorver(jsonb);
drop function public.xls_r18_candidatos(regclass,regclass);
drop function public.xls_suspender_remocoes(jsonb,text);
drop function public.xls_merge_lote(uuid,jsonb);

-- migrate:down
update app.xls_tipo set hook = null where tipo = 'RELATORIO18';
delete from app.xls_alvo where tipo = 'RELATORIO18';

CREATE OR REPLACE FUNCTION public.xls_merge_lote(p_processamento_id uuid, p_meta jsonb DEFAULT '{}'::jsonb)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_merge_lote(uuid,jsonb) is 'Optional, while the staging tables are being filled: merges the rows staged so far and empties the staging, so the database writes one lot while the edge reads the next (same transaction, before xls_merge). p_meta as for xls_merge (RELATORIO18 needs its period). Types without lots (META) keep their rows staged and return 0. The end result is the same as one xls_merge of every row; xls_merge then finishes (reference tables, scope deletes, metrics). Returns the rows taken. Errors as xls_merge.';

CREATE OR REPLACE FUNCTION public.xls_suspender_remocoes(p_rejeitadas jsonb, p_aba text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select exists (select from jsonb_array_elements(coalesce(p_rejeitadas, '[]')) e
                  where e ->> 'aba' is null or e ->> 'aba' = p_aba or p_aba is null);
$function$
;

comment on function public.xls_suspender_remocoes(jsonb,text) is 'True when a rejected row could belong to tab p_aba (its aba is unknown or equal): its natural key is unknown, so deleting rows of the scope absent from the file could delete that row''s stored version. Deletions of that tab are then suspended (a warning says so) and nothing stored is lost.';

CREATE OR REPLACE FUNCTION public.xls_r18_candidatos(p_faturamento regclass, p_movimento regclass)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
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
$function$
;

comment on function public.xls_r18_candidatos(regclass,regclass) is 'RELATORIO18 reference-table candidates of some accepted rows (a lot''s xls_lote_faturamento / xls_lote_movimento, or every surviving row in xls_src_*): appends to the temp tables xls_ref_filial (codes), xls_ref_vendedor (per seller, its last row with that row''s filial and its last row with a name), xls_ref_cliente and xls_ref_produto (per code, its last row with a name). xls_merge_relatorio18 upserts bi_filial, bi_vendedor, bi_cliente and bi_produto from the latest candidate of each code, so the lots do this work while the edge reads and the end of the merge reads a few rows per lot. Creates the temp tables (ON COMMIT DROP) on first use.';

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

CREATE OR REPLACE FUNCTION public.xls_r18_lote(p_meta jsonb, p_final boolean DEFAULT false)
 RETURNS integer
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
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
$function$
;

comment on function public.xls_r18_lote(jsonb,boolean) is 'One lot of a RELATORIO18 merge: xls_r18_absorver (bi_faturamento and bi_movimento written diff-aware), then, from the lot''s accepted rows, the reference-table candidates (xls_r18_candidatos) and the hash of each natural key (xls_r18_chave: xls_merge_relatorio18 groups them to find a key repeated across lots, then settles it exactly). p_final: the call of xls_merge_relatorio18 for whatever is still staged. Returns the rows taken. Called through xls_merge_lote / xls_merge.';

CREATE OR REPLACE FUNCTION public.xls_merge_meta(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_merge_meta(jsonb) is 'Merge of META from the staging table meta; p_meta = {linhas_rejeitadas}. Every seller must exist in bi_vendedor, else XL424 (transient FK failure: the batch logic retries it once after the master report) naming the sellers and rows. Upserts bi_meta diff-aware in key order, then deletes rows of the competências present in the file that the file no longer has. Returns the metrics; xls_merge records them.';

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

