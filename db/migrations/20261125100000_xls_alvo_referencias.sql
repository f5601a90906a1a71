-- migrate:up

-- Reference tables as description rows (docs/xls-merge.md): a target may be fed by another
-- target's accepted rows (fonte) and never deleted from (escopo nenhum); its manter columns
-- keep the stored value when the sheet's is empty. The nine hand-written upserts of the hooks
-- (bi_filial twice, bi_cliente twice, bi_vendedor, bi_produto, bi_fornecedor, bi_centro_custo)
-- become rows; MARGEM_CONSOLIDADA and MARGEM_DIA lose their hooks.
alter table app.xls_alvo
  add column fonte text,
  add column manter text[] not null default '{}',
  add column manter_ultimo_valor boolean not null default false,
  drop constraint xls_alvo_escopo_check,
  drop constraint xls_alvo_check,
  add constraint xls_alvo_escopo_check check (escopo in ('periodo', 'valores', 'meses', 'tudo', 'nenhum')),
  add constraint xls_alvo_check check ((escopo in ('tudo', 'nenhum')) = (escopo_coluna is null)),
  add constraint xls_alvo_fonte_check check (fonte is null or escopo = 'nenhum'),
  add constraint xls_alvo_fonte_fkey foreign key (tipo, fonte) references app.xls_alvo (tipo, staging);
comment on column app.xls_alvo.fonte is 'A reference table: the staging of the target whose accepted rows feed it (one row per key; rows without key name nothing). Written chunk by chunk when that target''s table has a foreign key to it, else at the end from the surviving rows (pg_temp.xls_aceitas_<fonte>, where the merge keeps for it the columns its expressions name and the columns named like its own). Requires escopo nenhum.';
comment on column app.xls_alvo.manter is 'Columns that keep the stored value when the sheet''s is empty (a new key gets NULL).';
comment on column app.xls_alvo.manter_ultimo_valor is 'For a reference table: each manter column takes the last row of the file that has a value, instead of the value of the key''s last row.';

update app.xls_alvo set ordem = 1 where tipo = 'COMPRAS';
insert into app.xls_alvo (tipo, staging, tabela, ordem, aba, escopo, escopo_coluna, fonte, expressoes, manter, manter_ultimo_valor, reter) values
  ('MARGEM_CONSOLIDADA', 'filial', 'bi_filial', 2, null, 'nenhum', null, 'margem_consolidada', '{"codigo": "filial"}', '{}', false, '{}'),
  ('MARGEM_DIA', 'cliente', 'bi_cliente', 2, null, 'nenhum', null, 'margem_dia',
   jsonb_build_object('codigo', 'cliente', 'nome', 'nome_cliente', 'cnpj_cpf', $e$nullif(regexp_replace(cnpj_cpf, '\D', '', 'g'), '')$e$, 'uf', 'upper(uf)'),
   '{nome,cnpj_cpf,classe,municipio,uf}', false, '{}'),
  ('COMPRAS', 'fornecedor', 'bi_fornecedor', 2, null, 'nenhum', null, 'compra', '{"cnpj": "cnpj_fornecedor", "nome": "fornecedor"}', '{nome}', false, '{}'),
  ('FLUXO_PAGAR_RECEBER', 'centro_custo', 'bi_centro_custo', 2, null, 'nenhum', null, 'titulo',
   '{"codigo": "centro_custo", "descricao": "descricao_centro_custo"}', '{descricao}', false, '{}'),
  ('RELATORIO18', 'filial_faturamento', 'bi_filial', 3, null, 'nenhum', null, 'faturamento', '{"codigo": "filial"}', '{}', false, '{}'),
  ('RELATORIO18', 'filial_movimento', 'bi_filial', 4, null, 'nenhum', null, 'movimento', '{"codigo": "filial"}', '{}', false, '{}'),
  ('RELATORIO18', 'vendedor', 'bi_vendedor', 5, null, 'nenhum', null, 'faturamento', '{"codigo": "vendedor", "nome": "nome_vendedor"}', '{nome,filial}', true, '{}'),
  ('RELATORIO18', 'cliente', 'bi_cliente', 6, null, 'nenhum', null, 'faturamento', '{"codigo": "cliente", "nome": "nome_cliente"}', '{nome}', true, '{}'),
  ('RELATORIO18', 'produto', 'bi_produto', 7, null, 'nenhum', null, 'faturamento', '{"codigo": "produto", "descricao": "descricao_produto"}', '{descricao}', true, '{}');

-- FLUXO's position and whether it is the newest: from p_meta and the table, not the hook's temp table
update app.xls_alvo
   set expressoes = expressoes || jsonb_build_object(
         'posicao', $e$(p_meta ->> 'posicao')::date$e$,
         'atual', $e$(select coalesce((p_meta ->> 'posicao')::date >= max(t.posicao), true) from public.bi_titulo t)$e$),
       reter = '{tipo,saldo}'
 where tipo = 'FLUXO_PAGAR_RECEBER' and staging = 'titulo';
-- what a reference table written at the end reads is kept for it by the merge: reter is what the hooks read
update app.xls_alvo set reter = '{}' where (tipo, staging) in (('RELATORIO18', 'faturamento'), ('MARGEM_DIA', 'margem_dia'));

update app.xls_tipo set hook = null where tipo in ('MARGEM_CONSOLIDADA', 'MARGEM_DIA');
drop function if exists app.xls_hook_margem_consolidada(text, text, jsonb);
drop function if exists app.xls_hook_margem_dia(text, text, jsonb);
drop function if exists app.xls_r18_candidatos(text, regclass);

-- each normalisation in one place, the reader's parsers (src/xlsx/cells.ts competencia: the
-- first day of the month; readers/parsers.ts tipoTitulo: P/R -> PAGAR/RECEBER); the staging
-- holds normalised values, the description no longer repeats them
update app.xls_alvo set expressoes = expressoes - 'competencia' where tipo in ('MARGEM_CONSOLIDADA', 'META_CARTEIRA', 'META');
update app.xls_alvo set expressoes = expressoes - 'tipo' where tipo = 'FLUXO_PAGAR_RECEBER' and staging = 'titulo';

-- FLUXO's rule 4 (any invalid row refuses the whole file) as a description of the type
alter table app.xls_tipo add column recusa_total boolean not null default false;
comment on column app.xls_tipo.recusa_total is 'Any invalid row (the reader''s or SQL''s) refuses the whole file: XL422 ''<tipo> recusado, nada gravado: <n> linha(s) inválida(s): <every message>'', nothing written.';
update app.xls_tipo set recusa_total = true where tipo = 'FLUXO_PAGAR_RECEBER';

-- app.xls_tipo is the list of types: xls_processamento.tipo references it (xls_tipo_valido reads it)
alter table app.xls_tipo drop constraint xls_tipo_tipo_check;
alter table public.xls_processamento
  drop constraint xls_processamento_tipo_valido,
  add constraint xls_processamento_tipo_fkey foreign key (tipo) references app.xls_tipo (tipo);

-- migrate:down
alter table public.xls_processamento
  drop constraint xls_processamento_tipo_fkey,
  add constraint xls_processamento_tipo_valido check (tipo is null or public.xls_tipo_valido(tipo)) not valid;
alter table app.xls_tipo add constraint xls_tipo_tipo_check check (public.xls_tipo_valido(tipo)) not valid;
alter table app.xls_tipo drop column recusa_total;
update app.xls_alvo set expressoes = expressoes || jsonb_build_object('competencia', $e$date_trunc('month', competencia)::date$e$)
 where tipo in ('MARGEM_CONSOLIDADA', 'META_CARTEIRA', 'META');
update app.xls_alvo set expressoes = expressoes || jsonb_build_object('tipo', $e$case upper(tipo) when 'P' then 'PAGAR' when 'PAGAR' then 'PAGAR' when 'R' then 'RECEBER' when 'RECEBER' then 'RECEBER' end$e$)
 where tipo = 'FLUXO_PAGAR_RECEBER' and staging = 'titulo';
update app.xls_tipo set hook = 'app.xls_hook_margem_consolidada' where tipo = 'MARGEM_CONSOLIDADA';
update app.xls_tipo set hook = 'app.xls_hook_margem_dia' where tipo = 'MARGEM_DIA';
update app.xls_alvo
   set expressoes = expressoes || jsonb_build_object('posicao', '(select e.posicao from pg_temp.xls_fluxo_estado e)', 'atual', '(select e.atual from pg_temp.xls_fluxo_estado e)')
 where tipo = 'FLUXO_PAGAR_RECEBER' and staging = 'titulo';
update app.xls_alvo set reter = '{cliente, nome_cliente, vendedor, nome_vendedor, produto, descricao_produto}' where tipo = 'RELATORIO18' and staging = 'faturamento';
update app.xls_alvo set reter = '{nome_cliente,cnpj_cpf,classe,municipio,uf}' where tipo = 'MARGEM_DIA' and staging = 'margem_dia';
update app.xls_alvo set reter = '{tipo,saldo,centro_custo,descricao_centro_custo}' where tipo = 'FLUXO_PAGAR_RECEBER' and staging = 'titulo';
delete from app.xls_alvo where fonte is not null;
alter table app.xls_alvo
  drop constraint xls_alvo_fonte_fkey,
  drop constraint xls_alvo_fonte_check,
  drop constraint xls_alvo_check,
  drop constraint xls_alvo_escopo_check,
  drop column fonte,
  drop column manter,
  drop column manter_ultimo_valor,
  add constraint xls_alvo_escopo_check check (escopo in ('periodo', 'valores', 'meses', 'tudo')),
  add constraint xls_alvo_check check ((escopo = 'tudo') = (escopo_coluna is null));
