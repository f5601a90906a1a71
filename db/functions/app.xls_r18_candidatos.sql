CREATE OR REPLACE FUNCTION app.xls_r18_candidatos(p_staging text, p_origem regclass)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
begin
  execute format('insert into pg_temp.xls_ref_filial select distinct filial from %s', p_origem);
  if p_staging <> 'faturamento' then
    return;
  end if;
  execute format($q$
    insert into pg_temp.xls_ref_vendedor
    select m.codigo, m.lu, u.filial, m.ln, left(n.nome_vendedor, %2$s)
      from (select f.vendedor as codigo, max(f.linha) as lu, max(f.linha) filter (where f.nome_vendedor is not null) as ln
              from %1$s f where f.vendedor is not null group by f.vendedor) m
      join %1$s u on u.vendedor = m.codigo and u.linha = m.lu
      left join %1$s n on n.vendedor = m.codigo and n.linha = m.ln$q$, p_origem, app.xls_tamanho('bi_vendedor', 'nome'));
  execute format($q$
    insert into pg_temp.xls_ref_cliente
    select m.codigo, m.ln, left(n.nome_cliente, %2$s)
      from (select f.cliente as codigo, max(f.linha) filter (where f.nome_cliente is not null) as ln
              from %1$s f where f.cliente is not null group by f.cliente) m
      left join %1$s n on n.cliente = m.codigo and n.linha = m.ln$q$, p_origem, app.xls_tamanho('bi_cliente', 'nome'));
  execute format($q$
    insert into pg_temp.xls_ref_produto
    select m.codigo, m.ln, left(n.descricao_produto, %2$s)
      from (select f.produto as codigo, max(f.linha) filter (where f.descricao_produto is not null) as ln
              from %1$s f where f.produto is not null group by f.produto) m
      left join %1$s n on n.produto = m.codigo and n.linha = m.ln$q$, p_origem, app.xls_tamanho('bi_produto', 'descricao'));
end;
$function$
;

comment on function app.xls_r18_candidatos(text,regclass) is 'RELATORIO18 reference-table candidates of some accepted rows of staging p_staging (a chunk''s pg_temp.xls_chunk_<staging>, or every surviving row in xls_aceitas_<staging>): appends to the hook''s temp tables xls_ref_filial (codes of both tabs), and from billing rows xls_ref_vendedor (per seller, its last row with that row''s filial and its last row with a name), xls_ref_cliente and xls_ref_produto (per code, its last row with a name); names cut to the reference columns'' lengths. app.xls_hook_relatorio18 upserts the reference tables from the latest candidate of each code, so the chunks do this work while the edge reads.';
