/**
 * Every secret a request carries is compared in constant time (safeEqual: both sides hashed,
 * then node:crypto's timingSafeEqual), never with `===`: the ERP's Bearer token, the webhook's
 * X-Partner-Secret, the reset's X-Confirm-Nuke (API) and its confirmation secret (screen).
 * timingSafeEqual is wrapped in a spy; a secret compared otherwise leaves no call with its pair.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { appHabilitado, navegador, sessao, type SessaoTeste } from '../web/helpers.js';

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) };
});

const ERP = 'erp-token-0123456789abcdef';
const PARTNER = 'segredo-do-parceiro-0123456789';
const NUKE = 'confirma-nuke-0123456789';

let db: TestDatabase;
let app: FastifyInstance;
let telas: FastifyInstance;
let s: SessaoTeste;
beforeAll(async () => {
  db = await createTestDatabase();
  const env = { ERP_SYNC_ACCESS_TOKEN: ERP, PARTNER_WEBHOOK_SECRET: PARTNER, REPLICATOR_CONFIRM_SECRET: NUKE };
  [app, telas, s] = await Promise.all([testApp(db, env), appHabilitado(db, env), sessao(db)]);
});
afterAll(async () => {
  await Promise.all([app?.close(), telas?.close()]);
  await db?.drop();
});
beforeEach(() => { vi.mocked(timingSafeEqual).mockClear(); });

const sha = (v: string) => createHash('sha256').update(v).digest();
/** Whether timingSafeEqual compared what was given with the expected secret (as safeEqual hashes them). */
function comparouEmTempoConstante(dado: string, esperado: string): boolean {
  return vi.mocked(timingSafeEqual).mock.calls.some(([a, b]) =>
    Buffer.from(a as Uint8Array).equals(sha(dado)) && Buffer.from(b as Uint8Array).equals(sha(esperado)));
}

describe('secrets compared in constant time', () => {
  // a wrong value of the same length: refused, nothing starts, and the comparison is the one that refused it
  const errado = (v: string) => `${v.slice(0, -1)}${v.endsWith('x') ? 'y' : 'x'}`;

  it('the ERP token (Bearer of POST /sync/erp)', async () => {
    const res = await app.inject({ method: 'POST', url: '/sync/erp', headers: { ...bearer(errado(ERP)), 'content-type': 'application/json' }, payload: '{"items":[]}' });
    expect(res.statusCode).toBe(401);
    expect(comparouEmTempoConstante(errado(ERP), ERP)).toBe(true);
  });

  it('X-Partner-Secret of POST /webhook/partner', async () => {
    const res = await app.inject({ method: 'POST', url: '/webhook/partner', headers: { 'x-partner-secret': errado(PARTNER), 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(401);
    expect(comparouEmTempoConstante(errado(PARTNER), PARTNER)).toBe(true);
  });

  it('X-Confirm-Nuke of the reset API', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/transporte/admin/resetar-replicator',
      headers: { ...bearer(), 'x-confirm-nuke': errado(NUKE), 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(403);
    expect(comparouEmTempoConstante(errado(NUKE), NUKE)).toBe(true);
  });

  it('the confirmation secret of the reset screen', async () => {
    const { post } = navegador(() => telas, () => s);
    const res = await post('/admin/replicacao', { motivo: 'teste', confirmo: 'sim', segredo: errado(NUKE) });
    expect(res.statusCode).toBe(403);
    expect(comparouEmTempoConstante(errado(NUKE), NUKE)).toBe(true);
    expect((await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n).toBe(0);
  });
});
