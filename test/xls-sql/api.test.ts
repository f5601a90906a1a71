import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { xlsConcluir, xlsConjuntoAbrir, xlsConjuntoRecebido, xlsFalhar, xlsReceberIgnorado } from '../../src/planilhas/db.js';
import { completeJobs, iniciar, receberAvulso } from './helpers.js';

let db: TestDatabase;
let app: FastifyInstance;
const ids: Record<string, string> = {};
let conjunto: string;

const LIST_KEYS = ['id', 'status', 'tipo', 'arquivo', 'checksum', 'recebidoEm', 'iniciadoEm', 'finalizadoEm', 'conjuntoId',
  'linhasEnviadas', 'linhasEfetivas', 'linhasRemovidas', 'erroMensagem'];
const DETAIL_KEYS = [...LIST_KEYS, 'objetoBucket', 'objetoChave', 'objetoTamanhoBytes', 'logArquivo', 'avisos', 'linhasRejeitadas', 'uploader', 'conjunto',
  'desfeitoEm', 'desfeitoPor', 'exclusaoRetida', 'exclusoesAprovadasEm', 'exclusoesAprovadasPor', 'alteracoesExpiradasEm'];

async function setRecebido(id: string, iso: string) {
  await db.pool.query('update xls_processamento set recebido_em = $2 where id = $1', [id, iso]);
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await testApp(db);
  // a: loose, SUCESSO (META); b: in a batch, ERRO (META); c: ERRO (RELATORIO18); d: PENDENTE
  const a = await receberAvulso(db.pool, 'api-a', 'a.xlsx');
  await iniciar(db.pool, a.processamentoId!, 'w', 'META');
  await xlsConcluir(db.pool, a.processamentoId!, 'w', { avisos: ['aviso de teste'], linhasRejeitadas: [{ linha: 3, campo: 'meta_volume', valor: 'x' }] });
  conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'lote.zip' });
  const b = await receberAvulso(db.pool, 'api-b', 'b.xlsx', { conjuntoId: conjunto });
  await xlsReceberIgnorado(db.pool, conjunto, 'nota.pdf', 'não é .xlsx');
  await xlsConjuntoRecebido(db.pool, conjunto);
  await iniciar(db.pool, b.processamentoId!, 'w', 'META');
  await xlsFalhar(db.pool, b.processamentoId!, 'w', { motivo: 'formato não suportado: teste' });
  const c = await receberAvulso(db.pool, 'api-c', 'c.xlsx');
  await iniciar(db.pool, c.processamentoId!, 'w', 'RELATORIO18');
  await xlsFalhar(db.pool, c.processamentoId!, 'w', { motivo: 'período ausente' });
  const d = await receberAvulso(db.pool, 'api-d', 'd.xlsx', { objetoBucket: 'planilhas' });
  await completeJobs(db.pool, 'w');
  Object.assign(ids, { a: a.processamentoId!, b: b.processamentoId!, c: c.processamentoId!, d: d.processamentoId! });
  await db.pool.query(`update xls_processamento set uploader_id = 'u1', uploader_nome = 'Ana' where id = $1`, [ids.a]);
  await setRecebido(ids.a!, '2026-11-01T10:00:00Z');
  await setRecebido(ids.b!, '2026-11-02T10:00:00Z');
  await setRecebido(ids.c!, '2026-11-03T10:00:00Z');
  await setRecebido(ids.d!, '2026-11-04T10:00:00Z');
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code?: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status });
  if (code) expect(body.code).toBe(code);
  return body;
}

const get = (url: string) => app.inject({ url, headers: bearer() });
const post = (url: string) => app.inject({ method: 'POST', url, headers: bearer() });

describe('GET /api/comercial/processamentos', () => {
  it('a Page of summaries with every key, fixed order recebido_em desc, no bytes', async () => {
    const res = await get('/api/comercial/processamentos');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.totalSize).toBe(4);
    expect(body.pageable).toMatchObject({ number: 0, size: 20, sort: { orderBy: [{ property: 'recebidoEm', direction: 'DESC', ignoreCase: false }] } });
    expect(body.content.map((p: { id: string }) => p.id)).toEqual([ids.d, ids.c, ids.b, ids.a]);
    for (const item of body.content) expect(Object.keys(item).sort()).toEqual([...LIST_KEYS].sort());
    expect(body.content[3]).toMatchObject({
      id: ids.a, status: 'SUCESSO', tipo: 'META', arquivo: 'a.xlsx', recebidoEm: '2026-11-01T10:00:00.000Z',
      conjuntoId: null, linhasEnviadas: null, erroMensagem: null,
    });
    expect(body.content[0]).toMatchObject({ status: 'PENDENTE', tipo: null, iniciadoEm: null, finalizadoEm: null });
    expect(res.body).not.toMatch(/arquivo_?[bB]ytes/);
  });

  it('filters by tipo and status, combined; ignores the client sort; pages base 0', async () => {
    const ids_ = async (qs: string) => (await get(`/api/comercial/processamentos${qs}`)).json().content.map((p: { id: string }) => p.id);
    expect(await ids_('?status=ERRO')).toEqual([ids.c, ids.b]);
    expect(await ids_('?tipo=META')).toEqual([ids.b, ids.a]);
    expect(await ids_('?tipo=META&status=ERRO')).toEqual([ids.b]);
    expect(await ids_('?tipo=COMPRAS')).toEqual([]);
    expect(await ids_('?tipo=&status=')).toEqual([ids.d, ids.c, ids.b, ids.a]);
    expect(await ids_('?sort=recebidoEm,asc')).toEqual([ids.d, ids.c, ids.b, ids.a]);
    const p1 = (await get('/api/comercial/processamentos?size=3&page=1')).json();
    expect(p1.content.map((p: { id: string }) => p.id)).toEqual([ids.a]);
    expect(p1.totalSize).toBe(4);
    expect((await get('/api/comercial/processamentos?size=0')).json().pageable.size).toBe(20);
    expect((await get('/api/comercial/processamentos?size=500')).json().pageable.size).toBe(100);
  });

  it('400 problem for an unknown status or tipo, or a bad page; 401 without Bearer', async () => {
    expectProblem(await get('/api/comercial/processamentos?status=FEITO'), 400);
    expectProblem(await get('/api/comercial/processamentos?tipo=PLANILHA'), 400);
    expectProblem(await get('/api/comercial/processamentos?page=x'), 400);
    expectProblem(await app.inject({ url: '/api/comercial/processamentos' }), 401);
  });
});

describe('GET /api/comercial/processamentos/{id}', () => {
  it('the detail: every key, metrics, warnings, rejected rows, uploader; no bytes; conjunto null when loose', async () => {
    const res = await get(`/api/comercial/processamentos/${ids.a}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([...DETAIL_KEYS].sort());
    expect(body).toMatchObject({
      id: ids.a, status: 'SUCESSO', objetoBucket: null, objetoChave: null, objetoTamanhoBytes: 5,
      avisos: [{ categoria: 'geral', motivo: 'aviso de teste', quantidade: 1, linhas: [] }],
      linhasRejeitadas: [{ aba: null, linha: 3, campo: 'meta_volume', valor: 'x', mensagem: "linha 3: meta_volume 'x' inválido" }],
      uploader: { id: 'u1', nome: 'Ana' }, conjunto: null,
    });
    expect(body.logArquivo).toMatch(new RegExp(`^\\d{4}/\\d{2}/${ids.a}\\.log$`));
    expect(res.body).not.toMatch(/bytes"?:\s*"|arquivo_?[bB]ytes/);
  });

  it('a batch member shows its batch with every entry; an object-store file shows its key', async () => {
    const b = (await get(`/api/comercial/processamentos/${ids.b}`)).json();
    expect(b).toMatchObject({ status: 'ERRO', erroMensagem: 'formato não suportado: teste', conjuntoId: conjunto, uploader: null });
    expect(b.conjunto).toEqual({
      id: conjunto, total: 2,
      itens: [
        { arquivo: 'b.xlsx', processamentoId: ids.b, status: 'ENFILEIRADO', motivo: null },
        { arquivo: 'nota.pdf', processamentoId: null, status: 'IGNORADO', motivo: 'não é .xlsx' },
      ],
    });
    const d = (await get(`/api/comercial/processamentos/${ids.d}`)).json();
    expect(d).toMatchObject({ objetoBucket: 'planilhas', objetoChave: expect.stringMatching(/^\d{4}\/\d{2}\/[0-9a-f]{64}\.xlsx$/) });
  });

  it('an ERRO keeps its refused rows: the reader\'s given to xls_falhar, and those a missing-registration message names', async () => {
    const e = await receberAvulso(db.pool, `api-e-${Math.random()}`, 'e.xlsx');
    await iniciar(db.pool, e.processamentoId!, 'w', 'META');
    await xlsFalhar(db.pool, e.processamentoId!, 'w', { motivo: 'vendedor não cadastrado em bi_vendedor: 999 (linha 5)', sqlstate: 'XL424',
      linhasRejeitadas: [{ aba: 'Metas', linha: 9, campo: 'Meta Volume', valor: 'x', mensagem: "linha 9: Meta Volume 'x' inválido" }] });
    await completeJobs(db.pool, 'w');
    const body = (await get(`/api/comercial/processamentos/${e.processamentoId}`)).json();
    expect(body.status).toBe('ERRO');
    expect(body.linhasRejeitadas).toEqual([
      { aba: null, linha: 5, campo: 'vendedor', valor: '999', mensagem: 'vendedor 999 não cadastrado' },
      { aba: 'Metas', linha: 9, campo: 'Meta Volume', valor: 'x', mensagem: "linha 9: Meta Volume 'x' inválido" },
    ]);
    await db.pool.query('delete from xls_processamento where id = $1', [e.processamentoId]);
  });

  it('404 problem for an unknown id; 400 problem for a malformed one', async () => {
    expectProblem(await get('/api/comercial/processamentos/00000000-0000-4000-8000-000000000000'), 404, 'XL404');
    expectProblem(await get('/api/comercial/processamentos/nao-e-uuid'), 400);
  });
});

describe('GET /api/comercial/processamentos/{id}/logs', () => {
  it('404 problem while the log does not exist, then the file as text/plain', async () => {
    const url = `/api/comercial/processamentos/${ids.a}/logs`;
    expectProblem(await get(url), 404);
    const { rows: [p] } = await db.pool.query('select log_arquivo from xls_processamento where id = $1', [ids.a]);
    const file = join(app.ctx.config.logsDir, p.log_arquivo);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '2026-11-01 07:00:00.000 início\n2026-11-01 07:00:01.000 SUCESSO\n');
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('SUCESSO');
  });

  it('404 for an unknown processing, 400 for a malformed id, 401 without Bearer', async () => {
    expectProblem(await get('/api/comercial/processamentos/00000000-0000-4000-8000-000000000000/logs'), 404, 'XL404');
    expectProblem(await get('/api/comercial/processamentos/x/logs'), 400);
    expectProblem(await app.inject({ url: `/api/comercial/processamentos/${ids.a}/logs` }), 401);
  });
});

describe('reprocess endpoints', () => {
  it('one processing: 202 with its id; a second click 409 problem XL409; unknown 404; SUCESSO 409', async () => {
    const url = `/api/comercial/processamentos/${ids.c}/reprocessar`;
    const res = await post(url);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ reprocessados: [ids.c] });
    expectProblem(await post(url), 409, 'XL409');
    expectProblem(await post(`/api/comercial/processamentos/${ids.a}/reprocessar`), 409, 'XL409');
    expectProblem(await post('/api/comercial/processamentos/00000000-0000-4000-8000-000000000000/reprocessar'), 404, 'XL404');
    expectProblem(await post('/api/comercial/processamentos/123/reprocessar'), 400);
    const { rows: [p] } = await db.pool.query('select status from xls_processamento where id = $1', [ids.a]);
    expect(p.status).toBe('SUCESSO');
  });

  it('the errors of a batch: 202 with the ids (none the second time); unknown batch 404', async () => {
    const url = `/api/comercial/conjuntos/${conjunto}/reprocessar-erros`;
    const res = await post(url);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ reprocessados: [ids.b] });
    expect((await post(url)).json()).toEqual({ reprocessados: [] });
    expectProblem(await post('/api/comercial/conjuntos/00000000-0000-4000-8000-000000000000/reprocessar-erros'), 404, 'XL404');
  });

  it('all errors of the list, honouring tipo; 400 for an unknown tipo; 401 without Bearer', async () => {
    for (const [k, tipo] of [['b', 'META'], ['c', 'RELATORIO18']] as const) {
      await iniciar(db.pool, ids[k]!, 'w2', tipo);
      await xlsFalhar(db.pool, ids[k]!, 'w2', { motivo: 'de novo' });
    }
    await completeJobs(db.pool, 'w2');
    const res = await post('/api/comercial/processamentos/reprocessar-erros?tipo=RELATORIO18');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ reprocessados: [ids.c] });
    expect((await post('/api/comercial/processamentos/reprocessar-erros')).json()).toEqual({ reprocessados: [ids.b] });
    expectProblem(await post('/api/comercial/processamentos/reprocessar-erros?tipo=X'), 400);
    expectProblem(await app.inject({ method: 'POST', url: '/api/comercial/processamentos/reprocessar-erros' }), 401);
  });
});
