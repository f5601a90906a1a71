-- migrate:up
-- The description of the eight types of issue 12 for the declarative merge: the staging columns (app.xls_staging_coluna: what each
-- reader COPYs, in COPY order; docs/xls-merge.md). COTA_FORNECEDOR's aba is the year tab's
-- name and mes 1..12 the unpivoted month columns.
insert into app.xls_staging_coluna (tipo, staging, ordem, coluna, tipo_sql) values
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 1, 'linha', 'integer'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 2, 'competencia', 'date'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 3, 'filial', 'text'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 4, 'produto', 'text'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 5, 'volume', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 6, 'receita_liquida', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 7, 'cmv', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 8, 'margem_total', 'numeric'),
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 9, 'margem_por_litro', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 1, 'linha', 'integer'),
  ('MARGEM_DIA', 'margem_dia', 2, 'data', 'date'),
  ('MARGEM_DIA', 'margem_dia', 3, 'filial', 'text'),
  ('MARGEM_DIA', 'margem_dia', 4, 'cliente', 'text'),
  ('MARGEM_DIA', 'margem_dia', 5, 'nome_cliente', 'text'),
  ('MARGEM_DIA', 'margem_dia', 6, 'vendedor', 'text'),
  ('MARGEM_DIA', 'margem_dia', 7, 'produto', 'text'),
  ('MARGEM_DIA', 'margem_dia', 8, 'volume', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 9, 'preco_medio', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 10, 'custo_medio', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 11, 'margem', 'numeric'),
  ('MARGEM_DIA', 'margem_dia', 12, 'cnpj_cpf', 'text'),
  ('MARGEM_DIA', 'margem_dia', 13, 'classe', 'text'),
  ('MARGEM_DIA', 'margem_dia', 14, 'municipio', 'text'),
  ('MARGEM_DIA', 'margem_dia', 15, 'uf', 'text'),
  ('MARGEM_DIA', 'margem_dia', 16, 'prazo', 'numeric'),
  ('META_CARTEIRA', 'meta_carteira', 1, 'linha', 'integer'),
  ('META_CARTEIRA', 'meta_carteira', 2, 'competencia', 'date'),
  ('META_CARTEIRA', 'meta_carteira', 3, 'cliente', 'text'),
  ('META_CARTEIRA', 'meta_carteira', 4, 'produto', 'text'),
  ('META_CARTEIRA', 'meta_carteira', 5, 'meta_volume', 'numeric'),
  ('POSTOS', 'posto', 1, 'linha', 'integer'),
  ('POSTOS', 'posto', 2, 'cnpj', 'text'),
  ('POSTOS', 'posto', 3, 'razao_social', 'text'),
  ('POSTOS', 'posto', 4, 'nome_fantasia', 'text'),
  ('POSTOS', 'posto', 5, 'bandeira', 'text'),
  ('POSTOS', 'posto', 6, 'endereco', 'text'),
  ('POSTOS', 'posto', 7, 'bairro', 'text'),
  ('POSTOS', 'posto', 8, 'municipio', 'text'),
  ('POSTOS', 'posto', 9, 'uf', 'text'),
  ('POSTOS', 'posto', 10, 'cep', 'text'),
  ('POSTOS', 'posto', 11, 'tipo_instalacao', 'text'),
  ('TRR', 'trr', 1, 'linha', 'integer'),
  ('TRR', 'trr', 2, 'cnpj', 'text'),
  ('TRR', 'trr', 3, 'razao_social', 'text'),
  ('TRR', 'trr', 4, 'municipio', 'text'),
  ('TRR', 'trr', 5, 'uf', 'text'),
  ('TRR', 'trr', 6, 'tipo_instalacao', 'text'),
  ('TRR', 'trr', 7, 'qualificacao_empresa', 'text'),
  ('TRR', 'trr', 8, 'capacidade_m3', 'numeric'),
  ('COMPRAS', 'compra', 1, 'linha', 'integer'),
  ('COMPRAS', 'compra', 2, 'data', 'date'),
  ('COMPRAS', 'compra', 3, 'cnpj_fornecedor', 'text'),
  ('COMPRAS', 'compra', 4, 'fornecedor', 'text'),
  ('COMPRAS', 'compra', 5, 'nota_fiscal', 'text'),
  ('COMPRAS', 'compra', 6, 'produto', 'text'),
  ('COMPRAS', 'compra', 7, 'codigo_onu', 'text'),
  ('COMPRAS', 'compra', 8, 'quantidade', 'numeric'),
  ('COMPRAS', 'compra', 9, 'valor_total', 'numeric'),
  ('COTA_FORNECEDOR', 'cota', 1, 'linha', 'integer'),
  ('COTA_FORNECEDOR', 'cota', 2, 'aba', 'text'),
  ('COTA_FORNECEDOR', 'cota', 3, 'polo', 'text'),
  ('COTA_FORNECEDOR', 'cota', 4, 'produto', 'text'),
  ('COTA_FORNECEDOR', 'cota', 5, 'mes', 'integer'),
  ('COTA_FORNECEDOR', 'cota', 6, 'quantidade', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 1, 'linha', 'integer'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 2, 'tipo', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 3, 'documento', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 4, 'parcela', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 5, 'pessoa', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 6, 'cnpj_cpf', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 7, 'emissao', 'date'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 8, 'vencimento', 'date'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 9, 'valor', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 10, 'saldo', 'numeric'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 11, 'centro_custo', 'text'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 12, 'descricao_centro_custo', 'text');

-- One row per target (docs/xls-merge.md): the natural key, lengths, required columns and
-- foreign keys come from the catalog; the expressions say what trimming does not.
insert into app.xls_alvo (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, expressoes, reter) values
  ('MARGEM_CONSOLIDADA', 'margem_consolidada', 'bi_margem_consolidada', 1, null, 'valores', 'competencia',
   jsonb_build_object('competencia', $e$date_trunc('month', competencia)::date$e$), '{}'),
  ('MARGEM_DIA', 'margem_dia', 'bi_margem_dia', 1, null, 'valores', 'data',
   '{}', '{nome_cliente,cnpj_cpf,classe,municipio,uf}'),
  ('META_CARTEIRA', 'meta_carteira', 'bi_meta_carteira', 1, null, 'valores', 'competencia',
   jsonb_build_object('competencia', $e$date_trunc('month', competencia)::date$e$), '{}'),
  ('POSTOS', 'posto', 'bi_posto', 1, null, 'tudo', null, '{}', '{}'),
  ('TRR', 'trr', 'bi_trr', 1, null, 'tudo', null, '{}', '{}'),
  ('COMPRAS', 'compra', 'bi_compra', 1, 'Compras', 'meses', 'data',
   jsonb_build_object(
     'codigo_onu', $e$case when regexp_replace(coalesce(codigo_onu, ''), '\D', '', 'g') ~ '^\d{1,4}$' then regexp_replace(codigo_onu, '\D', '', 'g')::smallint end$e$,
     'onu_texto', 'codigo_onu'), '{}'),
  ('COTA_FORNECEDOR', 'cota', 'bi_cota_fornecedor', 1, null, 'tudo', null,
   jsonb_build_object('ano', $e$case when aba ~ '^\d{4}$' then aba::smallint end$e$), '{}'),
  ('FLUXO_PAGAR_RECEBER', 'titulo', 'bi_titulo', 1, 'SemQuebras', 'valores', 'posicao',
   jsonb_build_object(
     'posicao', '(select e.posicao from pg_temp.xls_fluxo_estado e)',
     'atual', '(select e.atual from pg_temp.xls_fluxo_estado e)',
     'parcela', $e$coalesce(parcela, '')$e$,
     'tipo', $e$case upper(tipo) when 'P' then 'PAGAR' when 'PAGAR' then 'PAGAR' when 'R' then 'RECEBER' when 'RECEBER' then 'RECEBER' end$e$), '{tipo,saldo,centro_custo,descricao_centro_custo}');

-- what belongs to one type only
update app.xls_tipo set hook = 'app.xls_hook_margem_consolidada' where tipo = 'MARGEM_CONSOLIDADA';
update app.xls_tipo set hook = 'app.xls_hook_margem_dia' where tipo = 'MARGEM_DIA';
update app.xls_tipo set hook = 'app.xls_hook_compras' where tipo = 'COMPRAS';
update app.xls_tipo set hook = 'app.xls_hook_fluxo' where tipo = 'FLUXO_PAGAR_RECEBER';

-- migrate:down
update app.xls_tipo set hook = null
 where tipo in ('MARGEM_CONSOLIDADA', 'MARGEM_DIA', 'COMPRAS', 'FLUXO_PAGAR_RECEBER');
delete from app.xls_alvo
 where tipo in ('MARGEM_CONSOLIDADA', 'MARGEM_DIA', 'META_CARTEIRA', 'POSTOS', 'TRR', 'COMPRAS', 'COTA_FORNECEDOR', 'FLUXO_PAGAR_RECEBER');
delete from app.xls_staging_coluna
 where tipo in ('MARGEM_CONSOLIDADA', 'MARGEM_DIA', 'META_CARTEIRA', 'POSTOS', 'TRR', 'COMPRAS', 'COTA_FORNECEDOR', 'FLUXO_PAGAR_RECEBER');
