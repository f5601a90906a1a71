/**
 * Staff's corrections reach the phones through the real sync engine: undoing a processing
 * (the rows it changed go back, the rows it inserted leave), and approving a file the
 * mass-deletion guard held (nothing reaches a phone while it is held; the approval does).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { API_TOKEN } from '../harness/service.js';
import { abrirCelular, aguardarCelularIgual, dumpCelular, operacoesDesde, startMotor, type CelularDeTeste, type Motor } from '../harness/motor.js';
import { buildRelatorio18 } from '../fixtures/builder.js';
import { H, escrever, tabela } from '../fixtures/tipos.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let p: Pipeline;
let motor: Motor;
let celular: CelularDeTeste;
beforeAll(async () => {
  db = await createTestDatabase();
  motor = await startMotor(db);
  // the held file's ERROR line is expected here
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', LOG_LEVEL: 'fatal' } });
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
  return (await db.pool.query('select id, status, erro_mensagem, exclusao_retida from xls_processamento where id = $1', [id])).rows[0];
}
const api = (url: string, body?: unknown) => p.app.inject({ method: 'POST', url,
  headers: { authorization: `Bearer ${API_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
  ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });

it('undoing a processing reaches the phone: the values before it come back, then its rows leave', async () => {
  const cota = (v: number) => escrever([{ name: '2030', rows: tabela(H.COTA, [['Betim', 'Gasolina C', v, v + 1]]) }], 'exceljs');
  const a = await enviar('cota-a.xlsx', await cota(7));
  const b = await enviar('cota-b.xlsx', await cota(9));
  expect([a.status, b.status]).toEqual(['SUCESSO', 'SUCESSO']);
  await aguardarCelularIgual(db, celular);
  const quantidades = async () => (await dumpCelular(db, celular, 'bi_cota_fornecedor')).map((r) => `${r.mes}:${r.quantidade}`).sort();
  expect(await quantidades()).toEqual(['1:9', '2:10']);

  const desfeito = await api(`/api/comercial/processamentos/${b.id}/desfazer`);
  expect(desfeito.statusCode, desfeito.body).toBe(200);
  await aguardarCelularIgual(db, celular);
  expect(await quantidades()).toEqual(['1:7', '2:8']);

  expect((await api(`/api/comercial/processamentos/${a.id}/desfazer`)).statusCode).toBe(200);
  await aguardarCelularIgual(db, celular);
  expect(await quantidades()).toEqual([]);
});

it('a file held by the mass-deletion guard changes nothing on the phone; its approval does', async () => {
  const completo = await enviar('r18-completo.xlsx', await buildRelatorio18({ rows: 1200 }));
  expect(completo.status).toBe('SUCESSO');
  await aguardarCelularIgual(db, celular);
  const faturamento = async () => (await celular.contagens()).bi_faturamento;
  expect(await faturamento()).toBe(600);

  const antes = await motor.aguardarReplicacao();
  const truncado = await enviar('r18-truncado.xlsx', await buildRelatorio18({ rows: 26 }));
  expect(truncado).toMatchObject({ status: 'ERRO', exclusao_retida: true });
  await motor.aguardarReplicacao();
  expect(await operacoesDesde(motor, antes)).toEqual({});
  await aguardarCelularIgual(db, celular);
  expect(await faturamento()).toBe(600);

  const aprovado = await api(`/api/comercial/processamentos/${truncado.id}/reprocessar`, { aprovarExclusoes: true });
  expect(aprovado.statusCode, aprovado.body).toBe(202);
  await p.drain();
  await aguardarCelularIgual(db, celular);
  expect(await faturamento()).toBe(13);
  expect((await celular.contagens()).bi_movimento).toBe(13);
});
