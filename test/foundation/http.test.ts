import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp, API_TOKEN } from '../harness/service.js';
import { obj, str, nullable, arr } from '../../src/schemas.js';
import problemPlugin from '../../src/web/error-handler.js';
import { safeEqual } from '../../src/web/bearer.js';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await testApp(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String) });
  expect(Object.keys(body)).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance']));
  return body;
}

describe('GET /health', () => {
  it('answers status, versao and commit', async () => {
    const res = await app.inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'UP', versao: '0.0.0-test', commit: 'testcommit' });
  });
});

describe('Bearer on /api/**', () => {
  it('401 problem without credential, with WWW-Authenticate', async () => {
    const res = await app.inject({ url: '/api/comercial/configuracoes' });
    const body = expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(body.instance).toBe('/api/comercial/configuracoes');
  });

  it('401 with a wrong token, a token of another length, a prefix of the token, or another scheme', async () => {
    for (const authorization of ['Bearer nope', `Bearer ${API_TOKEN}x`, `Bearer ${API_TOKEN.slice(0, 5)}`, `Basic ${API_TOKEN}`, 'Bearer ']) {
      expectProblem(await app.inject({ url: '/api/comercial/configuracoes', headers: { authorization } }), 401);
    }
  });

  it('200 with the configured token', async () => {
    const res = await app.inject({ url: '/api/comercial/configuracoes', headers: bearer() });
    expect(res.statusCode).toBe(200);
  });

  it('unknown /api route without credential is 401, with credential 404 problem', async () => {
    expectProblem(await app.inject({ url: '/api/nao-existe' }), 401);
    expectProblem(await app.inject({ url: '/api/nao-existe', headers: bearer() }), 404);
  });

  it('safeEqual compares hashed values', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('', '')).toBe(false);
    expect(safeEqual('a'.repeat(1000), 'abc')).toBe(false);
  });
});

describe('problem+json', () => {
  it('404 for an unmatched route', async () => {
    const body = expectProblem(await app.inject({ url: '/nada/aqui' }), 404);
    expect(body.detail).toContain('/nada/aqui');
  });

  it('400 from schema validation names the field', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/comercial/configuracoes/slow_query_timeout_ms', headers: bearer(), payload: { outro: 1 } });
    const body = expectProblem(res, 400);
    expect(JSON.stringify(body.erros)).toContain('valor');
  });

  it('400 for a body that is not JSON', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/comercial/configuracoes/slow_query_timeout_ms', headers: { ...bearer(), 'content-type': 'application/json' }, payload: '{nope' });
    expectProblem(res, 400);
  });

  it('413 for a body over the limit', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/comercial/configuracoes/slow_query_timeout_ms', headers: bearer(), payload: { valor: 'x'.repeat(1_100_000) } });
    expectProblem(res, 413);
  });

  it('500 carries no internals', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/errtracker', headers: bearer() });
    const body = expectProblem(res, 500);
    expect(JSON.stringify(body)).not.toMatch(/diagn|stack|DiagnosticError|\.ts/i);
  });

  it('SQL error codes keep their status (CF404, CF403, CF400)', async () => {
    const put = (chave: string, valor: string) => app.inject({ method: 'PUT', url: `/api/comercial/configuracoes/${chave}`, headers: bearer(), payload: { valor } });
    expect(expectProblem(await put('nao_existe', '1'), 404).code).toBe('CF404');
    expect(expectProblem(await put('ultimo_nuke', '2030-01-01T00:00:00.000Z'), 403).code).toBe('CF403');
    expect(expectProblem(await put('slow_query_timeout_ms', 'muito'), 400).code).toBe('CF400');
    const ok = await put('slow_query_timeout_ms', '7000');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ chave: 'slow_query_timeout_ms', valor: '7000', tipo: 'integer', sistema: false });
  });
});

describe('every key is emitted, enforced by the response schema', () => {
  it('a handler that omits a key fails loudly instead of dropping it', async () => {
    const f = Fastify({ logger: false });
    await f.register(problemPlugin);
    const schema = { response: { 200: obj({ a: str(), b: nullable(str()), c: arr(str()) }) } };
    f.get('/ok', { schema }, async () => ({ a: 'x', b: null, c: [] }));
    f.get('/missing', { schema }, async () => ({ a: 'x', c: [] }));
    const ok = await f.inject({ url: '/ok' });
    expect(ok.body).toBe('{"a":"x","b":null,"c":[]}');
    const bad = await f.inject({ url: '/missing' });
    expect(bad.statusCode).toBe(500);
    await f.close();
  });
});

describe('Page', () => {
  const list = (qs: string) => app.inject({ url: `/api/comercial/configuracoes${qs}`, headers: bearer() });

  it('has the spec shape with every key', async () => {
    const body = (await list('')).json();
    expect(Object.keys(body).sort()).toEqual(['content', 'pageable', 'totalSize']);
    expect(Object.keys(body.pageable).sort()).toEqual(['mode', 'number', 'size', 'sort']);
    expect(body.pageable).toMatchObject({ number: 0, size: 20, mode: 'OFFSET' });
    expect(body.totalSize).toBe(5);
    expect(body.content.map((c: { chave: string }) => c.chave)).toEqual(['slow_query_timeout_ms', 'ultimo_nuke', 'xls_alteracoes_retencao_dias', 'xls_exclusao_limite_linhas', 'xls_exclusao_limite_percentual']);
    expect(Object.keys(body.content[0]).sort()).toEqual(['atualizadoEm', 'chave', 'descricao', 'sistema', 'tipo', 'valor']);
  });

  it.each([
    ['?size=0', 0, 20], ['?size=-1', 0, 20], ['?size=101', 0, 100], ['?size=100', 0, 100], ['?size=1&page=1', 1, 1],
    ['?page=-3&size=5', 0, 5], ['?page=7', 7, 20],
  ])('%s -> page %i, size %i', async (qs, number, size) => {
    const res = await list(qs);
    expect(res.statusCode).toBe(200);
    expect(res.json().pageable).toMatchObject({ number, size });
  });

  it('page base 0 and totalSize across pages', async () => {
    const p0 = (await list('?size=1&page=0')).json();
    const p1 = (await list('?size=1&page=1')).json();
    const p2 = (await list('?size=2&page=2')).json();
    const p3 = (await list('?size=2&page=3')).json();
    expect(p0.content[0].chave).toBe('slow_query_timeout_ms');
    expect(p1.content[0].chave).toBe('ultimo_nuke');
    expect(p2.content.map((c: { chave: string }) => c.chave)).toEqual(['xls_exclusao_limite_percentual']);
    expect(p3.content).toEqual([]);
    expect([p0.totalSize, p1.totalSize, p2.totalSize, p3.totalSize]).toEqual([5, 5, 5, 5]);
  });

  it('ignores the client sort', async () => {
    const body = (await list('?sort=chave,desc&sort=valor')).json();
    expect(body.content.map((c: { chave: string }) => c.chave)).toEqual(['slow_query_timeout_ms', 'ultimo_nuke', 'xls_alteracoes_retencao_dias', 'xls_exclusao_limite_linhas', 'xls_exclusao_limite_percentual']);
    expect(body.pageable.sort.orderBy).toEqual([{ property: 'chave', direction: 'ASC', ignoreCase: false }]);
  });

  it('400 problem for a page or size that is not an integer', async () => {
    expectProblem(await list('?size=abc'), 400);
    expectProblem(await list('?page=1.5'), 400);
  });
});
