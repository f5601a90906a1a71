/**
 * Malformed ERP requests found by the issue-11 probe: each is a 400 problem (never a 500,
 * so never an error-tracker event), and `estoque: 1e400` is a per-item estoque_invalido.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import { logCapture } from '../harness/partner.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { EAN, loadCatalogue } from './helpers.js';

const ERP_TOKEN = 'erp-token-0123456789abcdef';
let db: TestDatabase;
let app: FastifyInstance;
const logs = logCapture();

beforeAll(async () => {
  db = await createTestDatabase();
  const { config } = loadConfig(testEnv(db, { ERP_SYNC_ACCESS_TOKEN: ERP_TOKEN, LOG_LEVEL: 'info' }));
  app = await buildApp({ config, pool: db.pool, version: 'test', commit: null, objstore: null }, { logStream: logs.stream });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});
beforeEach(async () => {
  await db.pool.query('truncate produto, variante, erp_sync_audit, erp_sync_audit_variante restart identity cascade');
  await loadCatalogue(db.pool);
  logs.lines.length = 0;
});

const post = (raw: string) => app.inject({
  method: 'POST', url: '/sync/erp', payload: raw,
  headers: { 'content-type': 'application/json', authorization: `Bearer ${ERP_TOKEN}` },
});

function expect400(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, campo?: string) {
  expect(res.statusCode).toBe(400);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  if (campo) expect(res.json().campo).toBe(campo);
  // a 400 is logged at info: no error line, so nothing for the error tracker
  expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);
}

const good = (extra: string) => `{"ean":"${EAN.oleo1l}","preco_cheio":10,"preco_desconto":9${extra}}`;

describe('POST /sync/erp: hostile bodies', () => {
  it('an item nested 10,000 levels deep is a 400 naming the item, not a stack overflow', async () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect400(await post(`{"items":[${good(`,"extra":${deep}`)}]}`), 'items[0].extra');
    expect400(await post(`{"items":[${good('')}, ${'['.repeat(10_000)}${']'.repeat(10_000)}]}`), 'items[1]');
  });

  it('a moderately nested extra field is still accepted', async () => {
    const res = await post(`{"items":[${good(`,"extra":${'{"a":'.repeat(10)}1${'}'.repeat(10)}`)}]}`);
    expect(res.statusCode).toBe(200);
  });

  it('\\u0000 in a string (value or key) is a 400 naming the field', async () => {
    expect400(await post(`{"items":[{"ean":"${EAN.oleo1l}","nome":"óleo\\u0000","preco_cheio":10,"preco_desconto":9}]}`), 'items[0].nome');
    expect400(await post(`{"items":[${good('')},{"ean":"${EAN.oleo20l}","x\\u0000":1,"preco_cheio":10,"preco_desconto":9}]}`), 'items[1]');
  });

  it('a lone surrogate in a string is a 400 naming the field', async () => {
    expect400(await post(`{"items":[{"ean":"${EAN.oleo1l}","nome":"a\\ud800b","preco_cheio":10,"preco_desconto":9}]}`), 'items[0].nome');
    expect400(await post(`{"items":[{"ean":"${EAN.oleo1l}","codigo_erp":"\\udc00","preco_cheio":10,"preco_desconto":9}]}`), 'items[0].codigo_erp');
    // a well-formed pair is fine
    const ok = await post(`{"items":[{"ean":"${EAN.oleo1l}","nome":"\\ud83d\\ude00","preco_cheio":10,"preco_desconto":9}]}`);
    expect(ok.statusCode).toBe(200);
  });

  it('estoque 1e400 (Infinity once parsed) is estoque_invalido, not "not sent"; a price 1e400 is preco_invalido', async () => {
    const res = await post(`{"items":[${good(',"estoque":1e400')},{"ean":"${EAN.oleo20l}","preco_cheio":1e400,"preco_desconto":9,"estoque":-1e400}]}`);
    expect(res.statusCode).toBe(200);
    const erros = res.json().erros as Array<{ idx: number; erro: string }>;
    expect(erros).toContainEqual({ idx: 0, erro: 'estoque_invalido' });
    expect(erros).toContainEqual({ idx: 1, erro: 'preco_invalido' });
    expect(erros).toContainEqual({ idx: 1, erro: 'estoque_invalido' });
    expect(res.json().casados).toBe(0);
  });
});

describe('any /api JSON body: a character the database refuses is a 400, not a 500', () => {
  it('\\u0000 in a configuration value', async () => {
    const res = await app.inject({
      method: 'PUT', url: '/api/comercial/configuracoes/slow_query_timeout_ms',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${(app.ctx.config.apiToken)}` },
      payload: '{"valor":"50\\u00000"}',
    });
    expect400(res);
    expect(res.json().detail).toMatch(/caractere/);
  });
});
