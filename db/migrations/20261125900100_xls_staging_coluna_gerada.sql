-- migrate:up
-- The staging columns are the readers' fields: app.xls_staging_coluna becomes a view generated
-- from the readers (db/views/app.xls_staging_coluna.sql, by `npm run db:generate`; a test fails
-- when it is stale) instead of rows written by hand beside them. The view file re-creates the
-- name right after this migration, with the same 111 rows.
drop table app.xls_staging_coluna;

-- migrate:down
create temp table xls_staging_coluna_gerada on commit drop as select * from app.xls_staging_coluna;
drop view app.xls_staging_coluna;
CREATE TABLE app.xls_staging_coluna (
    tipo text NOT NULL,
    staging text NOT NULL,
    ordem integer NOT NULL,
    coluna text NOT NULL,
    tipo_sql text NOT NULL,
    CONSTRAINT xls_staging_coluna_check CHECK (((ordem = 1) = (coluna = 'linha'::text))),
    CONSTRAINT xls_staging_coluna_check1 CHECK (((coluna <> 'linha'::text) OR (tipo_sql = 'integer'::text))),
    CONSTRAINT xls_staging_coluna_coluna_check CHECK ((coluna ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_staging_coluna_ordem_check CHECK ((ordem > 0)),
    CONSTRAINT xls_staging_coluna_staging_check CHECK ((staging ~ '^[a-z][a-z0-9_]*$'::text)),
    CONSTRAINT xls_staging_coluna_tipo_sql_check CHECK ((tipo_sql = ANY (ARRAY['integer'::text, 'text'::text, 'date'::text, 'numeric'::text, 'boolean'::text])))
);
COMMENT ON TABLE app.xls_staging_coluna IS 'The staging tables of each spreadsheet type and their typed columns, in COPY order: the contract between the reader (src/xlsx/readers, field = column) and the merge. Column 1 is always linha, the sheet''s own 1-based row number. xls_staging_preparar creates pg_temp.xls_stg_<staging> from these rows; a test checks every reader''s fields against them.';
insert into app.xls_staging_coluna (tipo, staging, ordem, coluna, tipo_sql)
select tipo, staging, ordem, coluna, tipo_sql from pg_temp.xls_staging_coluna_gerada;
ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_pkey PRIMARY KEY (tipo, staging, ordem);
ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_tipo_staging_coluna_key UNIQUE (tipo, staging, coluna);
ALTER TABLE ONLY app.xls_staging_coluna ADD CONSTRAINT xls_staging_coluna_tipo_fkey FOREIGN KEY (tipo) REFERENCES app.xls_tipo(tipo);
