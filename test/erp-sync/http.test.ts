/** POST /sync/erp through the real app: Bearer, envelope, response shape, modes, idempotency. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { API_TOKEN, bearer, testApp } from '../harness/service.js';
import { EAN, item, loadCatalogue, variantes, wrongCheckDigit } from './helpers.js';

const ERP_TOKEN = 'erp-token-0123456789abcdef';

let db: TestDatabase;
let dry: FastifyInstance;
let real: FastifyInstance;
let noToken: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  dry = await testApp(db, { ERP_SYNC_ACCESS_TOKEN: ERP_TOKEN });
  real = await testApp(db, { ERP_SYNC_ACCESS_TOKEN: ERP_TOKEN, ERP_SYNC_DRY_RUN: 'false' });
  noToken = await testApp(db, { ERP_SYNC_ACCESS_TOKEN: undefined });
});
afterAll(async () => {
  await Promise.all([dry?.close(), real?.close(), noToken?.close()]);
  await db?.drop();
});
beforeEach(async () => {
  await db.pool.query('truncate produto, variante, erp_sync_audit, erp_sync_audit_variante restart identity cascade');
  await loadCatalogue(db.pool);
});

type Res = { statusCode: number; headers: Record<string, unknown>; json(): any; body: string };

function post(app: FastifyInstance, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST', url: '/sync/erp',
    headers: { 'content-type': 'application/json', ...bearer(ERP_TOKEN), ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

function expectProblem(res: Res, status: number, instance = '/sync/erp') {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), instance });
  expect(Object.keys(body)).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance']));
  return body;
}

const RESPONSE_KEYS = ['ambiguos', 'atualizados', 'casados', 'dry_run', 'erros', 'itens', 'nao_encontrados', 'recebidos'];
const ITEM_KEYS = ['ean', 'estoque_atual', 'estoque_recebido', 'idx', 'preco_atual', 'preco_cheio_atual', 'preco_cheio_recebido',
  'preco_recebido', 'sku', 'vai_atualizar_estoque', 'vai_atualizar_preco'];

describe('Bearer ERP_SYNC_ACCESS_TOKEN', () => {
  const body = [item({ ean: EAN.arla }, 90, 85)];

  it('401 problem without credential, with WWW-Authenticate', async () => {
    const res = await dry.inject({ method: 'POST', url: '/sync/erp', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ items: body }) });
    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('401 for a wrong token, a token of another length, a prefix, another scheme, the /api token', async () => {
    for (const authorization of ['Bearer nope', `Bearer ${ERP_TOKEN}x`, `Bearer ${ERP_TOKEN.slice(0, -1)}`, `Bearer ${ERP_TOKEN.toUpperCase()}`,
      `Basic ${ERP_TOKEN}`, 'Bearer ', `Bearer ${API_TOKEN}`, `Bearer ${'x'.repeat(4096)}`]) {
      expectProblem(await post(dry, { items: body }, { authorization }), 401);
    }
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit')).rows[0].n).toBe(0);
  });

  it('the ERP token does not open /api/**', async () => {
    expectProblem(await dry.inject({ url: '/api/comercial/configuracoes', headers: bearer(ERP_TOKEN) }), 401, '/api/comercial/configuracoes');
  });

  it('200 with the token', async () => {
    expect((await post(dry, { items: body })).statusCode).toBe(200);
  });

  it('unset token: every call is 401 (and the rest of the service works)', async () => {
    for (const authorization of ['Bearer ', 'Bearer undefined', 'Bearer null', `Bearer ${ERP_TOKEN}`]) {
      expectProblem(await post(noToken, { items: body }, { authorization }), 401);
    }
    expect((await noToken.inject({ url: '/health' })).statusCode).toBe(200);
  });

  it('auth comes before the body: a malformed body without token is 401', async () => {
    const res = await dry.inject({ method: 'POST', url: '/sync/erp', headers: { 'content-type': 'application/json' }, payload: '{nope' });
    expectProblem(res, 401);
  });

  it('an unknown /sync route is 401 without token, 404 with it', async () => {
    expectProblem(await dry.inject({ url: '/sync/outra' }), 401, '/sync/outra');
    expectProblem(await dry.inject({ url: '/sync/outra', headers: bearer(ERP_TOKEN) }), 404, '/sync/outra');
  });
});

describe('envelope', () => {
  it('0 items: 400 naming items', async () => {
    const b = expectProblem(await post(dry, { items: [] }), 400);
    expect(b.campo).toBe('items');
  });

  it('1 item: 200', async () => {
    const res = await post(dry, { items: [item({ ean: EAN.arla }, 90, 85)] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ recebidos: 1, casados: 1 });
  });

  it('200 items: 200, every item answered', async () => {
    const items = Array.from({ length: 200 }, (_, i) => item({ sku: `NAO-${i}` }, 1, 1));
    items[7] = item({ ean: EAN.oleo1l }, 40, 36.5);
    const res = await post(dry, { items });
    expect(res.statusCode).toBe(200);
    const b = res.json();
    expect(b).toMatchObject({ recebidos: 200, casados: 1, atualizados: 0 });
    expect(b.nao_encontrados).toHaveLength(199);
    expect(b.itens[0]).toMatchObject({ idx: 7, sku: 'OLEO-1L' });
  });

  it('201 items: 413 problem whose detail says the limit and the count; audited as a refusal, nothing applied', async () => {
    const items = Array.from({ length: 201 }, () => item({ ean: EAN.arla }, 90, 85));
    const b = expectProblem(await post(dry, { items }), 413);
    expect(b.detail).toMatch(/201/);
    expect(b.detail).toMatch(/200/);
    expect(b).toMatchObject({ limite: 200, recebidos: 201 });
    const audit = (await db.pool.query('select recusa_status, recusa_detalhe, recebidos, atualizados, response, request_sha256 from erp_sync_audit')).rows;
    expect(audit).toEqual([{ recusa_status: 413, recusa_detalhe: b.detail, recebidos: 201, atualizados: 0, response: null, request_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
  });

  it('a body that is not JSON, or empty: 400 naming the body', async () => {
    for (const payload of ['{nope', '', '   ', '{"items": [}']) {
      const b = expectProblem(await post(dry, payload), 400);
      expect(b.campo).toBe('corpo');
    }
  });

  it('a JSON body that is not an object: 400 naming the body', async () => {
    for (const payload of ['[]', '"x"', '1', 'null']) {
      expect(expectProblem(await post(dry, payload), 400).campo).toBe('corpo');
    }
  });

  it('items missing, null or not a list: 400 naming items', async () => {
    for (const payload of [{}, { itens: [] }, { items: null }, { items: {} }, { items: 'a' }, { items: 3 }]) {
      const b = expectProblem(await post(dry, payload), 400);
      expect(b.campo).toBe('items');
      expect(b.detail).toMatch(/items/);
    }
  });

  it('an item that is not an object: 400 naming items[i]', async () => {
    const b = expectProblem(await post(dry, { items: [item({ ean: EAN.arla }), 'x'] }), 400);
    expect(b.campo).toBe('items[1]');
    expect(b.detail).toMatch(/items\[1\]/);
    expect(expectProblem(await post(dry, { items: [null] }), 400).campo).toBe('items[0]');
    expect(expectProblem(await post(dry, { items: [[1]] }), 400).campo).toBe('items[0]');
  });

  it('another content type: 415 problem', async () => {
    const res = await dry.inject({ method: 'POST', url: '/sync/erp', headers: { ...bearer(ERP_TOKEN), 'content-type': 'text/plain' }, payload: 'items' });
    expectProblem(res, 415);
  });

  it('a body over 1 MiB: 413 problem', async () => {
    const items = [item({ ean: EAN.arla }, 90, 85, { nome: 'x'.repeat(1_100_000) })];
    expectProblem(await post(dry, { items }), 413);
  });
});

describe('response', () => {
  it('emits every key, empty lists included', async () => {
    const res = await post(dry, { items: [item({ ean: EAN.semCadastro })] });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`{"dry_run":true,"recebidos":1,"casados":0,"atualizados":0,"nao_encontrados":["${EAN.semCadastro}"],"ambiguos":[],"erros":[],"itens":[]}`);
  });

  it('carries per-item errors, ambiguous EANs and matched items with all their keys', async () => {
    const res = await post(dry, { items: [
      item({ ean: EAN.oleo1l }, 41, 36.5, { estoque: 10, codigo_erp: 'E1', nome: 'Óleo' }),
      item({ ean: wrongCheckDigit(EAN.arla) }, 90, 85),
      item({}, 1, 1),
      item({ ean: EAN.partilhado }, 1, 1),
      item({ sku: 'FLANELA' }, 5, 4.5),
      item({ ean: EAN.oleo1l }, 41, 36.5),
    ] });
    expect(res.statusCode).toBe(200);
    const b = res.json();
    expect(Object.keys(b).sort()).toEqual(RESPONSE_KEYS);
    expect(b.erros).toEqual([{ idx: 1, erro: 'ean_invalido' }, { idx: 2, erro: 'sem_ean_nem_sku' }, { idx: 5, erro: 'item_duplicado' }]);
    expect(b.ambiguos).toEqual([{ idx: 3, ean: EAN.partilhado, skus: ['FILTRO-KIT', 'FILTRO-UN'] }]);
    expect(b.itens).toHaveLength(2);
    for (const i of b.itens) expect(Object.keys(i).sort()).toEqual(ITEM_KEYS);
    expect(b.itens[0]).toEqual({ idx: 0, ean: EAN.oleo1l, sku: 'OLEO-1L', preco_recebido: 36.5, preco_cheio_recebido: 41, estoque_recebido: 10,
      preco_atual: 36.5, preco_cheio_atual: 40, estoque_atual: 10, vai_atualizar_preco: true, vai_atualizar_estoque: false });
    expect(b.itens[1]).toMatchObject({ idx: 4, ean: null, sku: 'FLANELA', estoque_recebido: null, vai_atualizar_preco: false });
  });
});

describe('modes', () => {
  const items = [item({ ean: EAN.arla }, 95, 88, { estoque: 9 }), item({ ean: EAN.oleo1l }, 40, 36.5, { estoque: 10 })];

  it('ERP_SYNC_DRY_RUN unset (true): reports and writes nothing', async () => {
    const before = await variantes(db.pool);
    const b = (await post(dry, { items })).json();
    expect(b).toMatchObject({ dry_run: true, casados: 2, atualizados: 0 });
    expect(b.itens[0]).toMatchObject({ vai_atualizar_preco: true, vai_atualizar_estoque: true });
    expect(await variantes(db.pool)).toEqual(before);
  });

  it('ERP_SYNC_DRY_RUN=false: applies, counts atualizados, audits before/after', async () => {
    const b = (await post(real, { items })).json();
    expect(b).toMatchObject({ dry_run: false, casados: 2, atualizados: 1 });
    expect((await variantes(db.pool))['ARLA-20L']).toMatchObject({ preco_cheio: '95.00', preco_desconto: '88.00', estoque: 9 });
    const audit = (await db.pool.query('select dry_run, atualizados, application_name from erp_sync_audit')).rows;
    expect(audit).toEqual([{ dry_run: false, atualizados: 1, application_name: 'bi-test' }]);
    const changes = (await db.pool.query('select sku, estoque_antes, estoque_depois from erp_sync_audit_variante')).rows;
    expect(changes).toEqual([{ sku: 'ARLA-20L', estoque_antes: 7, estoque_depois: 9 }]);
  });
});

describe('Idempotency-Key', () => {
  const items = [item({ ean: EAN.arla }, 95, 88, { estoque: 9 })];

  it('the same key and body replay the stored response and apply nothing twice', async () => {
    const first = await post(real, { items }, { 'idempotency-key': 'lote-2026-11-22-001' });
    expect(first.json().atualizados).toBe(1);
    await db.pool.query("update variante set estoque = 1 where sku = 'ARLA-20L'");
    const again = await post(real, { items }, { 'idempotency-key': 'lote-2026-11-22-001' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect((await variantes(db.pool))['ARLA-20L']!.estoque).toBe(1);
  });

  it('the same key with another body: 422 problem ES422, nothing applied', async () => {
    await post(real, { items }, { 'idempotency-key': 'k1' });
    const before = await variantes(db.pool);
    const b = expectProblem(await post(real, { items: [item({ ean: EAN.arla }, 1, 1)] }, { 'idempotency-key': 'k1' }), 422);
    expect(b.code).toBe('ES422');
    expect(await variantes(db.pool)).toEqual(before);
  });

  it('a malformed key: 400 naming the header; audited as a refusal without the key', async () => {
    const b = expectProblem(await post(real, { items }, { 'idempotency-key': 'x'.repeat(256) }), 400);
    expect(b.campo).toBe('Idempotency-Key');
    expect((await db.pool.query('select recusa_status, idempotency_key, dry_run from erp_sync_audit')).rows)
      .toEqual([{ recusa_status: 400, idempotency_key: null, dry_run: false }]);
  });

  it('a key first used in dry run and retried after the switch to real writes: 422, the dry-run answer is not replayed', async () => {
    const before = await variantes(db.pool);
    const first = await post(dry, { items }, { 'idempotency-key': 'k-modo' });
    expect(first.statusCode).toBe(200);
    expect(first.json().dry_run).toBe(true);
    const b = expectProblem(await post(real, { items }, { 'idempotency-key': 'k-modo' }), 422);
    expect(b.code).toBe('ES422');
    expect(b.detail).toMatch(/modo/);
    expect(await variantes(db.pool)).toEqual(before);
    const audit = (await db.pool.query('select dry_run, recusa_status, idempotency_key from erp_sync_audit order by id')).rows;
    expect(audit).toEqual([
      { dry_run: true, recusa_status: null, idempotency_key: 'k-modo' },
      { dry_run: false, recusa_status: 422, idempotency_key: 'k-modo' },
    ]);
    // the key still answers its first (dry-run) call in dry-run mode
    expect((await post(dry, { items }, { 'idempotency-key': 'k-modo' })).json()).toEqual(first.json());
  });

  it('refusals audited: a body that is not JSON (400) and a reused key with another body (422); a 401 leaves no row', async () => {
    expectProblem(await post(dry, '{items: ['), 400);
    await post(dry, { items }, { 'idempotency-key': 'k-corpo' });
    expectProblem(await post(dry, { items: [item({ ean: EAN.arla }, 1, 1)] }, { 'idempotency-key': 'k-corpo' }), 422);
    expectProblem(await post(dry, { items }, { authorization: 'Bearer errado' }), 401);
    const audit = (await db.pool.query('select recusa_status, recebidos, request_sha256 is null as sem_hash from erp_sync_audit where recusa_status is not null order by id')).rows;
    expect(audit).toEqual([
      { recusa_status: 400, recebidos: 0, sem_hash: true },
      { recusa_status: 422, recebidos: 1, sem_hash: false },
    ]);
  });
});
