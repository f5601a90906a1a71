-- migrate:up
-- The comment of app.xls_tipo names the project's own layouts (docs/formatos.md), and says the
-- table is the type list the processings reference.
comment on table app.xls_tipo is 'The spreadsheet types (docs/formatos.md), in detection order (ordem): the one list of types; xls_processamento.tipo references it and public.xls_tipo_valido reads it. mestre: the batch''s master report (its success closes the batch). hook: optional function app.<name>(p_fase text, p_staging text, p_meta jsonb) returns jsonb, called by the generic merge at its phases (docs/xls-merge.md) for what belongs to one type only. Checked once against TIPOS_PLANILHA (TypeScript) by the tests.';

-- migrate:down
comment on table app.xls_tipo is 'The spreadsheet types, in detection order (ordem). mestre: the batch''s master report (its success closes the batch). hook: optional function app.<name>(p_fase text, p_staging text, p_meta jsonb) returns jsonb, called by the generic merge at its phases (docs/xls-merge.md) for what belongs to one type only. Checked against TIPOS_PLANILHA (TypeScript) and public.xls_tipo_valido by the tests.';
