CREATE OR REPLACE FUNCTION public.xls_merge_compras(p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_res jsonb;
  v_forn integer;
  v_filtro jsonb;
  v_n integer;
begin
  perform public.xls_staging_exigir('COMPRAS');
  perform public.xls_travar(array['bi_compra']);
  drop table if exists pg_temp.xls_src_compra_todas;
  create temp table xls_src_compra_todas on commit drop as
  select s.linha, s.data, nullif(regexp_replace(s.cnpj_fornecedor, '\D', '', 'g'), '') as cnpj_fornecedor,
         nullif(btrim(s.fornecedor), '') as fornecedor, nullif(btrim(s.nota_fiscal), '') as nota_fiscal,
         nullif(btrim(s.produto), '') as produto, s.codigo_onu as onu_texto,
         case when regexp_replace(coalesce(s.codigo_onu, ''), '\D', '', 'g') ~ '^\d{1,4}$'
              then regexp_replace(s.codigo_onu, '\D', '', 'g')::smallint end as codigo_onu,
         s.quantidade, s.valor_total
    from pg_temp.xls_stg_compra s;
  -- only fuels enter; the other rows are counted (not errors)
  select count(*), jsonb_agg(jsonb_build_object('aba', 'Compras', 'linha', t.linha, 'valor', t.onu_texto) order by t.linha)
    into v_n, v_filtro
    from pg_temp.xls_src_compra_todas t
   where t.codigo_onu is null or t.codigo_onu not in (1170, 1202, 1203, 1223, 1863, 3475);
  drop table if exists pg_temp.xls_src_compra;
  create temp table xls_src_compra on commit drop as
  select t.linha, t.data, t.cnpj_fornecedor, t.fornecedor, t.nota_fiscal, t.produto, t.codigo_onu, t.quantidade, t.valor_total
    from pg_temp.xls_src_compra_todas t
   where t.codigo_onu in (1170, 1202, 1203, 1223, 1863, 3475);
  -- hook: the suppliers first (bi_compra references them); an empty name keeps the stored one
  insert into public.bi_fornecedor as f (cnpj, nome)
  select c.cnpj, c.nome
    from (select distinct on (left(s.cnpj_fornecedor, 14)) left(s.cnpj_fornecedor, 14) as cnpj, left(s.fornecedor, 150) as nome
            from pg_temp.xls_src_compra s where s.cnpj_fornecedor is not null
           order by left(s.cnpj_fornecedor, 14), s.linha desc) c
   order by c.cnpj
  on conflict (cnpj) do update set nome = coalesce(excluded.nome, f.nome)
   where f.nome is distinct from coalesce(excluded.nome, f.nome);
  get diagnostics v_forn = row_count;
  -- scope: the calendar months covered by the dates of every row of the file (fuel or not)
  v_res := app.xls_aplicar('public.bi_compra', 'pg_temp.xls_src_compra', 'meses', 'data', p_meta -> 'linhas_rejeitadas',
                           'pg_temp.xls_src_compra_todas');
  if v_n > 0 then
    v_res := jsonb_set(v_res, '{avisos}', (v_res -> 'avisos') || jsonb_build_array(jsonb_build_object(
      'categoria', 'filtrada', 'quantidade', v_n, 'linhas', v_filtro,
      'motivo', 'código ONU fora dos combustíveis (1170, 1202, 1203, 1223, 1863, 3475): linha não importada')));
  end if;
  v_res := jsonb_set(v_res, '{tabelas,bi_compra,filtradas}', to_jsonb(v_n));
  return jsonb_set(v_res, '{tabelas,bi_fornecedor}', jsonb_build_object('efetivas', v_forn));
end;
$function$
;

comment on function public.xls_merge_compras(jsonb) is 'Merge of COMPRAS from the staging table compra. Only fuels enter (Código ONU in 1170, 1202, 1203, 1223, 1863, 3475): the other rows are counted in a warning (categoria filtrada) and in tabelas.bi_compra.filtradas, not as errors. Hook: bi_fornecedor upsert by CNPJ (an empty name keeps the stored one). bi_compra through app.xls_aplicar; scope: the calendar months covered by the file''s dates. p_meta = {linhas_rejeitadas}.';
