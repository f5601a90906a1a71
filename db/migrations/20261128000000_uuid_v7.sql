-- migrate:up
-- Every generated uuid primary key takes a UUIDv7 (app.uuid_v7(): time-ordered, in
-- db/functions, applied before the migrations) instead of a random one: a new row lands at the
-- right edge of its primary key's index instead of on a random page (fewer pages touched and
-- written, less WAL after a checkpoint). Rows already stored keep their ids; only defaults change.
alter table public.partner_pedido alter column id set default app.uuid_v7();
alter table public.xls_resetar_replicator alter column id set default app.uuid_v7();
alter table app.sessao alter column id set default app.uuid_v7();
alter table public.bi_configuracao alter column id set default app.uuid_v7();
alter table public.destinatario alter column id set default app.uuid_v7();
alter table public.bi_centro_custo alter column id set default app.uuid_v7();
alter table public.bi_cliente alter column id set default app.uuid_v7();
alter table public.bi_compra alter column id set default app.uuid_v7();
alter table public.bi_cota_fornecedor alter column id set default app.uuid_v7();
alter table public.bi_faturamento alter column id set default app.uuid_v7();
alter table public.bi_filial alter column id set default app.uuid_v7();
alter table public.bi_fornecedor alter column id set default app.uuid_v7();
alter table public.bi_margem_consolidada alter column id set default app.uuid_v7();
alter table public.bi_margem_dia alter column id set default app.uuid_v7();
alter table public.bi_meta alter column id set default app.uuid_v7();
alter table public.bi_meta_carteira alter column id set default app.uuid_v7();
alter table public.bi_movimento alter column id set default app.uuid_v7();
alter table public.bi_posto alter column id set default app.uuid_v7();
alter table public.bi_produto alter column id set default app.uuid_v7();
alter table public.bi_titulo alter column id set default app.uuid_v7();
alter table public.bi_trr alter column id set default app.uuid_v7();
alter table public.bi_veiculo alter column id set default app.uuid_v7();
alter table public.bi_vendedor alter column id set default app.uuid_v7();
alter table public.partner_webhook alter column id set default app.uuid_v7();
alter table public.xls_conjunto alter column id set default app.uuid_v7();
alter table public.xls_processamento alter column id set default app.uuid_v7();
alter table public.xls_upload_recusa alter column id set default app.uuid_v7();

-- migrate:down
alter table public.partner_pedido alter column id set default gen_random_uuid();
alter table public.xls_resetar_replicator alter column id set default gen_random_uuid();
alter table app.sessao alter column id set default gen_random_uuid();
alter table public.bi_configuracao alter column id set default gen_random_uuid();
alter table public.destinatario alter column id set default gen_random_uuid();
alter table public.bi_centro_custo alter column id set default gen_random_uuid();
alter table public.bi_cliente alter column id set default gen_random_uuid();
alter table public.bi_compra alter column id set default gen_random_uuid();
alter table public.bi_cota_fornecedor alter column id set default gen_random_uuid();
alter table public.bi_faturamento alter column id set default gen_random_uuid();
alter table public.bi_filial alter column id set default gen_random_uuid();
alter table public.bi_fornecedor alter column id set default gen_random_uuid();
alter table public.bi_margem_consolidada alter column id set default gen_random_uuid();
alter table public.bi_margem_dia alter column id set default gen_random_uuid();
alter table public.bi_meta alter column id set default gen_random_uuid();
alter table public.bi_meta_carteira alter column id set default gen_random_uuid();
alter table public.bi_movimento alter column id set default gen_random_uuid();
alter table public.bi_posto alter column id set default gen_random_uuid();
alter table public.bi_produto alter column id set default gen_random_uuid();
alter table public.bi_titulo alter column id set default gen_random_uuid();
alter table public.bi_trr alter column id set default gen_random_uuid();
alter table public.bi_veiculo alter column id set default gen_random_uuid();
alter table public.bi_vendedor alter column id set default gen_random_uuid();
alter table public.partner_webhook alter column id set default gen_random_uuid();
alter table public.xls_conjunto alter column id set default gen_random_uuid();
alter table public.xls_processamento alter column id set default gen_random_uuid();
alter table public.xls_upload_recusa alter column id set default gen_random_uuid();
