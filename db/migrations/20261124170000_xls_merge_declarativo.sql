-- migrate:up
-- One merge, described by data (issue 12, section 1). Three tables a DBA can read:
--   app.xls_tipo            the spreadsheet types (one SQL list, checked against the TS one)
--   app.xls_staging_coluna  the staging tables of each type and their typed columns (COPY order)
--   app.xls_alvo            which staging table feeds which bi_* table, with which scope
-- The generic, chunk-aware procedure (db/functions/app.xls_merge_*.sql) applies any row of
-- app.xls_alvo; natural keys come from the target's UNIQUE constraint and string lengths from
-- its column types. docs/xls-merge.md describes the format.

create table app.xls_tipo (
  tipo text primary key check (public.xls_tipo_valido(tipo)),
  ordem integer not null unique check (ordem > 0),
  mestre boolean not null default false,
  hook text check (hook ~ '^app\.[a-z_][a-z0-9_]*$'),
  descricao text not null
);
comment on table app.xls_tipo is 'The spreadsheet types of formats.md, in detection order (ordem). mestre: the batch''s master report (its success closes the batch). hook: optional function app.<name>(p_fase text, p_staging text, p_meta jsonb) returns jsonb, called by the generic merge at its phases (docs/xls-merge.md) for what belongs to one type only. Checked against TIPOS_PLANILHA (TypeScript) and public.xls_tipo_valido by the tests.';
create unique index xls_tipo_um_mestre on app.xls_tipo (mestre) where mestre;

insert into app.xls_tipo (tipo, ordem, mestre, descricao) values
  ('FLUXO_PAGAR_RECEBER', 1, false, 'Títulos a pagar e a receber por posição (bi_titulo, bi_centro_custo)'),
  ('COMPRAS', 2, false, 'Compras de combustível (bi_fornecedor, bi_compra)'),
  ('RELATORIO18', 3, true, 'Relatório mestre mensal: faturamento (aba 20) e movimento contábil (aba 30)'),
  ('COTA_FORNECEDOR', 4, false, 'Matriz de cotas do fornecedor (bi_cota_fornecedor)'),
  ('POSTOS', 5, false, 'Cadastro de postos (bi_posto)'),
  ('TRR', 6, false, 'Cadastro de TRRs (bi_trr)'),
  ('MARGEM_CONSOLIDADA', 7, false, 'Margem consolidada por competência (bi_margem_consolidada)'),
  ('META_CARTEIRA', 8, false, 'Metas por cliente (bi_meta_carteira)'),
  ('META', 9, false, 'Metas por vendedor (bi_meta)'),
  ('MARGEM_DIA', 10, false, 'Margem diária por cliente (bi_margem_dia, bi_cliente)');

create table app.xls_staging_coluna (
  tipo text not null references app.xls_tipo (tipo),
  staging text not null check (staging ~ '^[a-z][a-z0-9_]*$'),
  ordem integer not null check (ordem > 0),
  coluna text not null check (coluna ~ '^[a-z][a-z0-9_]*$'),
  tipo_sql text not null check (tipo_sql in ('integer', 'text', 'date', 'numeric', 'boolean')),
  primary key (tipo, staging, ordem),
  unique (tipo, staging, coluna),
  check ((ordem = 1) = (coluna = 'linha')),
  check (coluna <> 'linha' or tipo_sql = 'integer')
);
comment on table app.xls_staging_coluna is 'The staging tables of each spreadsheet type and their typed columns, in COPY order: the contract between the reader (src/xlsx/readers, field = column) and the merge. Column 1 is always linha, the sheet''s own 1-based row number. xls_staging_preparar creates pg_temp.xls_stg_<staging> from these rows; a test checks every reader''s fields against them.';

insert into app.xls_staging_coluna (tipo, staging, ordem, coluna, tipo_sql) values
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
  ('META', 'meta', 6, 'meta_margem', 'numeric');

create table app.xls_alvo (
  tipo text not null references app.xls_tipo (tipo),
  staging text not null check (staging ~ '^[a-z][a-z0-9_]*$'),
  tabela text not null check (tabela ~ '^bi_[a-z0-9_]+$'),
  ordem integer not null default 1 check (ordem > 0),
  aba text,
  escopo text not null check (escopo in ('periodo', 'valores', 'meses', 'tudo')),
  escopo_coluna text check (escopo_coluna ~ '^[a-z][a-z0-9_]*$'),
  comparar text[],
  expressoes jsonb not null default '{}' check (jsonb_typeof(expressoes) = 'object'),
  reter text[] not null default '{}',
  primary key (tipo, staging),
  unique (tipo, ordem),
  check ((escopo = 'tudo') = (escopo_coluna is null))
);
comment on table app.xls_alvo is 'One row per target table of a spreadsheet type: staging table pg_temp.xls_stg_<staging> feeds public.<tabela>. The natural key is the target''s UNIQUE constraint, string lengths its varchar(n). escopo: which stored rows one file may delete — periodo (escopo_coluna between p_meta periodo_inicio and periodo_fim), valores (the values of escopo_coluna present in the file), meses (the calendar months the dates of escopo_coluna cover), tudo (the whole table). comparar: the columns whose change rewrites a row (null: every written non-key column). expressoes: target or extra column -> SQL expression over the normalised staging columns (trimmed, empty -> NULL), applied before the cut to the column length. reter: extra columns of accepted rows kept until the end of the merge for the type''s hook. aba: the tab named in messages and matched by rejected rows. Applied by app.xls_merge_chunk / app.xls_merge_fim; see docs/xls-merge.md.';
comment on column app.xls_alvo.ordem is 'Order of the targets of one type: chunks, deletes and metrics follow it (a target another one references comes first).';

insert into app.xls_alvo (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, comparar, expressoes) values
  ('META', 'meta', 'bi_meta', 1, null, 'valores', 'competencia', null,
   '{"competencia": "date_trunc(''month'', competencia)::date"}');

-- migrate:down
drop table app.xls_alvo;
drop table app.xls_staging_coluna;
drop table app.xls_tipo;
