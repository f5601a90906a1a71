/**
 * Imports reach a phone through the real sync engine: each of the ten spreadsheet types,
 * table by table equal to Postgres (the synced columns, under the sync configuration's
 * filters); a change of 1 % of an import sends only what changed (the operations the engine
 * wrote for it are the rows the import recorded as changed); FLUXO_PAGAR_RECEBER (bi_titulo):
 * a phone holds only the current position (`atual = true`), an older position imported later
 * enters the history on the server and changes nothing on the phone (the engine writes no
 * operation for it), a newer one replaces the phone's titles.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { abrirCelular, aguardarCelularIgual, dumpCelular, dumpPostgres, operacoesDesde, startMotor, type CelularDeTeste, type Motor } from '../harness/motor.js';
import { arquivosDosDezTipos } from '../fixtures/dez-tipos.js';
import { buildRelatorio18, generatedFaturamento, generatedMovimento } from '../fixtures/builder.js';
import { escrever, fluxoSheets, titulo, utc } from '../fixtures/tipos.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let p: Pipeline;
let motor: Motor;
let celular: CelularDeTeste;
beforeAll(async () => {
  db = await createTestDatabase();
  motor = await startMotor(db);
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' } });
  celular = await abrirCelular(motor);
});
afterAll(async (suite) => {
  await celular?.fechar();
  await p?.close();
  await motor?.close(suite);
  await db?.drop();
});

async function enviar(nome: string, bytes: Buffer) {
  const res = await p.upload(nome, bytes, XLSX);
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().itens[0].processamentoId as string;
  await p.drain();
  const [r] = (await db.pool.query('select id, tipo, status, erro_mensagem from xls_processamento where id = $1', [id])).rows;
  expect(r.status, `${nome}: ${r.erro_mensagem}`).toBe('SUCESSO');
  return r as { id: string; tipo: string };
}

/** The rows an import recorded as changed, by table: inserted, changed, removed. */
async function alteradas(id: string): Promise<Record<string, number>> {
  const { rows } = await db.pool.query(`select tabela, sum(coalesce(cardinality(linha_ids), 1))::int n
    from app.xls_alteracao where processamento_id = $1 group by 1 order by 1`, [id]);
  return Object.fromEntries(rows.map((r) => [r.tabela, r.n]));
}

it('each of the ten spreadsheet types reaches the phone, every synced table equal to Postgres', async () => {
  await aguardarCelularIgual(db, celular);
  const tipos = new Set<string>();
  for (const [nome, bytes] of await arquivosDosDezTipos()) {
    tipos.add((await enviar(nome, bytes)).tipo);
    await aguardarCelularIgual(db, celular);
  }
  expect(tipos.size).toBe(10);
  const cont = await celular.contagens();
  for (const t of ['bi_faturamento', 'bi_movimento', 'bi_meta', 'bi_meta_carteira', 'bi_margem_consolidada', 'bi_margem_dia',
    'bi_posto', 'bi_trr', 'bi_compra', 'bi_cota_fornecedor', 'bi_titulo', 'bi_cliente', 'bi_produto', 'bi_configuracao']) {
    expect(cont[t], t).toBeGreaterThan(0);
  }
});

it('a change of 1 % of a RELATORIO18 sends only the rows that changed', async () => {
  const n = 1000;
  const fat = Array.from({ length: n }, (_, i) => ({ ...generatedFaturamento(i), nota_fiscal: 900000 + i, emissao: new Date(Date.UTC(2026, 11, 1 + (i % 28))) }));
  const mov = Array.from({ length: n }, (_, i) => ({ ...generatedMovimento(i), lancamento: 900000 + i, data: new Date(Date.UTC(2026, 11, 1 + (i % 28))) }));
  const periodo = { inicio: new Date(Date.UTC(2026, 11, 1)), fim: new Date(Date.UTC(2026, 11, 31)) };
  await enviar('r18-dezembro.xlsx', await buildRelatorio18({ faturamento: fat, movimento: mov, periodo }));
  await aguardarCelularIgual(db, celular);
  const antes = await motor.aguardarReplicacao();

  // 1 %: ten billing rows change their quantity, ten accounting rows their history
  const fat2 = fat.map((r, i) => (i % 100 === 7 ? { ...r, quantidade: (r.quantidade as number) + 1, valor_total: (r.valor_total as number) + 1 } : r));
  const mov2 = mov.map((r, i) => (i % 100 === 3 ? { ...r, historico: `${r.historico} (corrigido)` } : r));
  const segundo = await enviar('r18-dezembro-corrigido.xlsx', await buildRelatorio18({ faturamento: fat2, movimento: mov2, periodo }));
  expect(await alteradas(segundo.id)).toEqual({ bi_faturamento: 10, bi_movimento: 10 });
  await aguardarCelularIgual(db, celular);
  await motor.aguardarReplicacao();
  // what the engine wrote for the change: one PUT per changed row, nothing else
  expect(await operacoesDesde(motor, antes)).toEqual({ bi_faturamento: { PUT: 10 }, bi_movimento: { PUT: 10 } });
});

async function fluxo(posicao: string, documentos: string[]) {
  const bytes = await escrever(fluxoSheets({ posicao, titulos: documentos.map((d, i) => titulo({ documento: d, vencimento: utc(2027, 2, 1 + i), saldo: 100 + i })) }), 'exceljs');
  const res = await p.upload(`fluxo-${posicao.replaceAll('/', '-')}.xlsx`, bytes, XLSX);
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().itens[0].processamentoId as string;
  await p.drain();
  const [r] = (await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id])).rows;
  expect(r.status, r.erro_mensagem).toBe('SUCESSO');
}

const noCelular = async () => (await dumpCelular(db, celular, 'bi_titulo')).map((r) => `${r.posicao} ${r.documento} atual=${r.atual}`).sort();
const posicoes = async () => (await db.pool.query(`select to_char(posicao, 'YYYY-MM-DD') p, atual, count(*)::int n from bi_titulo where posicao >= '2027-01-15' group by 1, 2 order by 1`)).rows;

it('FLUXO: the phone holds only the current position; an older one imported later changes nothing on it; a newer one replaces it', async () => {
  await fluxo('20/01/2027', ['R1', 'R2', 'R3']);
  await aguardarCelularIgual(db, celular);
  expect(await noCelular()).toEqual(['2027-01-20 R1 atual=1', '2027-01-20 R2 atual=1', '2027-01-20 R3 atual=1']);

  // an older position: into the server's history only
  const antes = await motor.aguardarReplicacao();
  const celularAntes = await dumpCelular(db, celular, 'bi_titulo');
  await fluxo('18/01/2027', ['A1', 'A2']);
  expect(await posicoes()).toEqual([{ p: '2027-01-18', atual: false, n: 2 }, { p: '2027-01-20', atual: true, n: 3 }]);
  await motor.aguardarReplicacao();
  expect(await operacoesDesde(motor, antes)).toEqual({});
  await aguardarCelularIgual(db, celular);
  expect(await dumpCelular(db, celular, 'bi_titulo')).toEqual(celularAntes);

  // a newer position: it replaces the phone's titles (the engine removes the old ones from the bucket)
  const antesNova = await motor.aguardarReplicacao();
  await fluxo('25/01/2027', ['N1', 'N2']);
  expect(await posicoes()).toEqual([{ p: '2027-01-18', atual: false, n: 2 }, { p: '2027-01-20', atual: false, n: 3 }, { p: '2027-01-25', atual: true, n: 2 }]);
  await aguardarCelularIgual(db, celular);
  expect(await noCelular()).toEqual(['2027-01-25 N1 atual=1', '2027-01-25 N2 atual=1']);
  expect(await dumpCelular(db, celular, 'bi_titulo')).toEqual(await dumpPostgres(db, 'bi_titulo'));
  await motor.aguardarReplicacao();
  expect(await operacoesDesde(motor, antesNova)).toEqual({ bi_titulo: { PUT: 2, REMOVE: 3 } });
});
