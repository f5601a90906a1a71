-- migrate:up
-- "lote" meant both the zip batch and a chunk of rows: the batch's table is xls_conjunto, as
-- staff call it. The old name stays readable and writable as a view (db/views/public.
-- xls_conjunto_lote.sql) for callers written before the rename.
alter table public.xls_conjunto_lote rename to xls_conjunto;
alter table public.xls_conjunto rename constraint xls_conjunto_lote_pkey to xls_conjunto_pkey;
alter table public.xls_conjunto rename constraint xls_conjunto_lote_fechamento to xls_conjunto_fechamento;
alter table public.xls_conjunto rename constraint xls_conjunto_lote_total_check to xls_conjunto_total_check;

-- migrate:down
drop view if exists public.xls_conjunto_lote;
alter table public.xls_conjunto rename constraint xls_conjunto_total_check to xls_conjunto_lote_total_check;
alter table public.xls_conjunto rename constraint xls_conjunto_fechamento to xls_conjunto_lote_fechamento;
alter table public.xls_conjunto rename constraint xls_conjunto_pkey to xls_conjunto_lote_pkey;
alter table public.xls_conjunto rename to xls_conjunto_lote;
