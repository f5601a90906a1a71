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
