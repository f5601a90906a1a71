/**
 * The IP recorded in partner_webhook comes from X-Forwarded-For only when the request came
 * through a proxy listed in TRUST_PROXY; by default no proxy is trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testApp } from '../harness/service.js';
import { event, order } from '../harness/partner.js';
import { ConfigError, loadConfig } from '../../src/config.js';

let db: TestDatabase;
const apps: FastifyInstance[] = [];

beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => {
  for (const a of apps) await a.close();
  await db?.drop();
});

async function storedIp(app: FastifyInstance, remoteAddress: string, forwardedFor: string): Promise<string | null> {
  const res = await app.inject({
    method: 'POST', url: '/webhook/partner', remoteAddress,
    payload: event(order(`P-${Math.random()}`, 'waiting_payment', '2026-11-20T10:00:00Z')),
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
  });
  expect(res.statusCode).toBe(200);
  const { rows } = await db.pool.query('select ip from partner_webhook where id = $1', [res.json().id]);
  return rows[0].ip;
}

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, the peer address is recorded', async () => {
    const app = await testApp(db);
    apps.push(app);
    expect(await storedIp(app, '127.0.0.1', '6.6.6.6')).toBe('127.0.0.1');
    expect(await storedIp(app, '10.1.2.3', '6.6.6.6, 10.9.9.9')).toBe('10.1.2.3');
  });

  it('set: only the listed proxies may name the client', async () => {
    const app = await testApp(db, { TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' });
    apps.push(app);
    expect(await storedIp(app, '10.1.2.3', '6.6.6.6')).toBe('6.6.6.6');
    expect(await storedIp(app, '192.168.1.1', '7.7.7.7')).toBe('7.7.7.7');
    // a client outside the list writing the header itself
    expect(await storedIp(app, '127.0.0.1', '6.6.6.6')).toBe('127.0.0.1');
    // a chain: the hop before the trusted proxy is untrusted and is the client
    expect(await storedIp(app, '10.1.2.3', '6.6.6.6, 8.8.8.8')).toBe('8.8.8.8');
  });

  it('refuses a malformed list at boot, naming the variable', () => {
    const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 't', S3_FILE_STORAGE: 'PSQL' };
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.local', '10.0.0.1/8/1', '::1/129']) {
      expect(() => loadConfig({ ...base, TRUST_PROXY: bad })).toThrowError(ConfigError);
      expect(() => loadConfig({ ...base, TRUST_PROXY: bad })).toThrowError(/TRUST_PROXY/);
    }
    expect(loadConfig({ ...base, TRUST_PROXY: 'loopback, ::1, fd00::/8' }).config.trustProxy).toEqual(['loopback', '::1', 'fd00::/8']);
    expect(loadConfig(base).config.trustProxy).toEqual([]);
  });
});
