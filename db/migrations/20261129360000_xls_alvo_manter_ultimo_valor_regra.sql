-- migrate:up

-- A reference table's manter columns always take the last row of the file that has a value
-- (app.xls_merge_preparar): a value given on an earlier row of a key is no longer lost when the
-- key's last row leaves the cell empty (MARGEM_DIA's customers, COMPRAS' suppliers, FLUXO's cost
-- centres, as RELATORIO18's already did). The rule of the mechanism, not a per-row flag.
alter table app.xls_alvo drop column manter_ultimo_valor;
comment on column app.xls_alvo.manter is 'Columns that keep the stored value when the sheet''s is empty (a new key gets NULL). For a reference table (fonte), each takes the last row of the file that has a value, not only the key''s last row.';

-- migrate:down
alter table app.xls_alvo add column manter_ultimo_valor boolean not null default false;
comment on column app.xls_alvo.manter_ultimo_valor is 'For a reference table: each manter column takes the last row of the file that has a value, instead of the value of the key''s last row.';
comment on column app.xls_alvo.manter is 'Columns that keep the stored value when the sheet''s is empty (a new key gets NULL).';
update app.xls_alvo set manter_ultimo_valor = true where tipo = 'RELATORIO18' and staging in ('vendedor', 'cliente', 'produto');
