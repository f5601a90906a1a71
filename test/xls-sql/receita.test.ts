/**
 * docs/xls-merge.md's recipe for a new type, followed once: a throwaway simple type created in
 * a test database with nothing but its reader, a table and description rows (no hook, no
 * function, no change to the merge). The SQL below is what a migration of the recipe holds.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';
import { code, number, text } from '../../src/xlsx/cells.js';
import type { TypeSpec } from '../../src/xlsx/readers/engine.js';
import { processarNovo, stagingComLeitores } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

/** The recipe's reader (step 2): what src/xlsx/readers/deposito.ts would hold; its fields are the staging columns. */
export const DEPOSITO: TypeSpec = {
  tipo: 'TESTE_DEPOSITO' as TipoPlanilha,
  tabs: [{ sheet: 'Depósitos', staging: 'deposito', columns: [
    { header: 'Código', parse: code, required: true },
    { header: 'Nome', parse: text },
    { header: 'Filial', parse: code, required: true },
    { header: 'Capacidade', parse: number },
  ] }],
};

/** The recipe's migration for the type TESTE_DEPOSITO: its table (step 3) and its description rows (steps 1 and 4). */
export const RECEITA = `
create table public.bi_deposito (
  id uuid primary key default app.uuid_v7(),
  codigo varchar(8) not null unique,
  nome varchar(12),
  filial varchar(20) not null,
  capacidade numeric,
  atualizado_em timestamptz not null default now()
);
insert into app.xls_tipo (tipo, ordem, descricao) values ('TESTE_DEPOSITO', 99, 'Depósitos (bi_deposito, bi_filial)');
insert into app.xls_alvo (tipo, staging, tabela, ordem, escopo, escopo_coluna, fonte, expressoes, manter) values
  ('TESTE_DEPOSITO', 'deposito', 'bi_deposito', 1, 'tudo', null, null, '{"nome": "initcap(nome)"}', '{}'),
  ('TESTE_DEPOSITO', 'filial', 'bi_filial', 2, 'nenhum', null, 'deposito', '{"codigo": "filial"}', '{}');
`;

it('a new simple type is a table and description rows: merged, cut, keys checked, scope deleted, reference table fed', async () => {
  // step 6: npm run db:generate writes the staging columns of the registered reader
  await stagingComLeitores(db.pool, [DEPOSITO]);
  expect((await db.pool.query(`select coluna, tipo_sql from app.xls_staging_coluna where tipo = 'TESTE_DEPOSITO' order by ordem`)).rows).toEqual([
    { coluna: 'linha', tipo_sql: 'integer' }, { coluna: 'codigo', tipo_sql: 'text' }, { coluna: 'nome', tipo_sql: 'text' },
    { coluna: 'filial', tipo_sql: 'text' }, { coluna: 'capacidade', tipo_sql: 'numeric' },
  ]);
  await db.pool.query(RECEITA);
  const tipo = 'TESTE_DEPOSITO' as TipoPlanilha;
  const linha = (l: number, codigo: string | null, nome: string | null, filial: string, capacidade: string) => ({ linha: l, codigo, nome, filial, capacidade });

  const a = await processarNovo(db.pool, 'receita-1', tipo, { staging: { deposito: [
    linha(2, 'D1', 'depósito central de cuiabá', 'F1', '100'), linha(3, 'D2', null, 'F2', '50'),
    linha(4, 'D3', 'sul', 'F1', '7'), linha(5, 'D-LONGO-DEMAIS', 'x', 'F1', '1'), linha(6, null, 'sem código', 'F1', '1'),
  ] } });
  expect(a.desfecho).toMatchObject({ status: 'SUCESSO' });
  expect(a.merge.linhasRejeitadas).toEqual([
    { aba: null, linha: 5, campo: 'codigo', valor: 'D-LONGO-DEMAIS', mensagem: "linha 5: codigo 'D-LONGO-DEMAIS' longo demais" },
    { aba: null, linha: 6, campo: 'codigo', valor: '', mensagem: "linha 6: codigo '' inválido" },
  ]);
  expect(a.merge.tabelas).toEqual({ bi_deposito: { enviadas: 5, efetivas: 3, removidas: 0 }, bi_filial: { efetivas: 2 } });
  expect((await db.pool.query(`select codigo, nome, filial, capacidade::text from bi_deposito order by codigo`)).rows).toEqual([
    { codigo: 'D1', nome: 'Depósito Cen', filial: 'F1', capacidade: '100' },
    { codigo: 'D2', nome: null, filial: 'F2', capacidade: '50' },
    { codigo: 'D3', nome: 'Sul', filial: 'F1', capacidade: '7' },
  ]);
  expect((await db.pool.query(`select codigo from bi_filial order by codigo`)).rows).toEqual([{ codigo: 'F1' }, { codigo: 'F2' }]);

  // the whole table is the scope: the next file replaces it (D3 absent: deleted); unchanged rows are not written
  const b = await processarNovo(db.pool, 'receita-2', tipo, { staging: { deposito: [
    linha(2, 'D1', 'depósito central de cuiabá', 'F1', '100'), linha(3, 'D2', 'norte', 'F3', '50'),
  ] } });
  expect(b.merge.tabelas).toEqual({ bi_deposito: { enviadas: 2, efetivas: 1, removidas: 1 }, bi_filial: { efetivas: 1 } });
  expect((await db.pool.query(`select codigo, nome, filial from bi_deposito order by codigo`)).rows).toEqual([
    { codigo: 'D1', nome: 'Depósito Cen', filial: 'F1' }, { codigo: 'D2', nome: 'Norte', filial: 'F3' },
  ]);
  // the reference table is never deleted from
  expect((await db.pool.query(`select codigo from bi_filial order by codigo`)).rows).toEqual([{ codigo: 'F1' }, { codigo: 'F2' }, { codigo: 'F3' }]);
});
