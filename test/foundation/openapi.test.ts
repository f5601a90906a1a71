/**
 * GET /openapi.json: generated from the route schemas, anonymous, and in step with the
 * app: every route under /api, /sync and /webhook (whoever adds it) has a schema with its
 * responses and is in the document; the document names no route the app does not have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testApp } from '../harness/service.js';

const CONTRACT = /^\/(api|sync|webhook)(\/|$)/;
type Doc = { openapi: string; info: { version: string }; paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

let db: TestDatabase;
let app: FastifyInstance;
let doc: Doc;
beforeAll(async () => {
  db = await createTestDatabase();
  app = await testApp(db);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => { await app?.close(); await db?.drop(); });

const key = (method: string, url: string) => `${method.toUpperCase()} ${url.replace(/\{([^}]+)\}/g, ':$1')}`;

describe('OpenAPI', () => {
  it('is served anonymously as OpenAPI 3 with the service version', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('0.0.0-test');
  });

  it('every route under /api, /sync and /webhook has a schema with its responses', () => {
    const rotas = app.rotas.filter((r) => CONTRACT.test(r.url));
    expect(rotas.length).toBeGreaterThan(5);
    const semSchema = rotas.filter((r) => !r.schema?.response || Object.keys(r.schema.response as object).length === 0)
      .map((r) => `${r.method} ${r.url}`);
    expect(semSchema).toEqual([]);
  });

  it('the document names exactly those routes, with their responses', () => {
    const rotas = new Set(app.rotas.filter((r) => CONTRACT.test(r.url)).map((r) => key(r.method, r.url)));
    const documentadas = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        documentadas.add(key(method, path));
        expect(Object.keys(op.responses ?? {}), `${method} ${path}`).not.toHaveLength(0);
      }
    }
    expect([...documentadas].sort()).toEqual([...rotas].sort());
    expect(documentadas.has('POST /sync/erp')).toBe(true);
    expect(documentadas.has('GET /health')).toBe(false);
  });
});
