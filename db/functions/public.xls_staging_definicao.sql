CREATE OR REPLACE FUNCTION public.xls_staging_definicao(p_tipo text)
 RETURNS TABLE(staging text, ordem integer, coluna text, tipo_sql text)
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
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
$function$
;

comment on function public.xls_staging_definicao(text) is 'The staging tables of a spreadsheet type and their typed columns, in COPY order (the contract between the reader and the merges; field names = normalised headers). Every table starts with linha, the sheet''s own 1-based row number.';
