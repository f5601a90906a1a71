import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';

let db: TestDatabase;
let app: FastifyInstance;
let receiver: ErrtrackerReceiver;

beforeAll(async () => {
  receiver = await startErrtrackerReceiver();
  initErrtracker({ dsn: receiver.dsn, release: '0.0.0-test', environment: 'test', commit: null });
  db = await createTestDatabase();
  app = await testApp(db, { ERRTRACKER_DSN: receiver.dsn });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
  await receiver?.close();
});

describe('error tracker', () => {
  it('an unhandled route error arrives as an event, with its exception', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/errtracker', headers: bearer() });
    expect(res.statusCode).toBe(500);
    await flushErrtracker();
    const isDiag = (e: { exception?: { values?: Array<{ type?: string }> } }) => e.exception?.values?.some((v) => v.type === 'DiagnosticError') ?? false;
    const ev = await receiver.waitFor(isDiag);
    expect(ev.level).toBe('error');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.events.filter(isDiag)).toHaveLength(1); // reported once, not by two paths
  });

  it('the diagnostic route refuses anonymous callers', async () => {
    const before = receiver.events.length;
    const res = await app.inject({ method: 'POST', url: '/test/errtracker' });
    expect(res.statusCode).toBe(401);
    await flushErrtracker();
    expect(receiver.events.length).toBe(before);
  });

  it('an ERROR-level log is reported; a warning is not', async () => {
    app.log.warn('aviso que não vira evento');
    app.log.error({ contexto: 'teste' }, 'falha registrada no log');
    await flushErrtracker();
    const ev = await receiver.waitFor((e) => e.message === 'falha registrada no log');
    expect(ev.level).toBe('error');
    expect(receiver.events.some((e) => e.message === 'aviso que não vira evento')).toBe(false);
  });

  it('an unmatched route (even under Basic authorization) sends nothing', async () => {
    const before = receiver.events.length;
    const res = await app.inject({ url: '/wp-login.php', headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
    expect(res.statusCode).toBe(404);
    // a later, real error proves the pipe works, and nothing arrived in between
    app.log.error('marcador depois do 404');
    await flushErrtracker();
    await receiver.waitFor((e) => e.message === 'marcador depois do 404');
    const between = receiver.events.slice(before).filter((e) => e.message !== 'marcador depois do 404');
    expect(between).toEqual([]);
  });
});
