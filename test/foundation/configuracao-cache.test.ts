import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { ConfiguracaoCache } from '../../src/configuracao/cache.js';
import { createListener } from '../../src/jobs/listener.js';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const setDirect = (valor: string) =>
  // bypass the trigger to simulate a change whose notification was lost
  db.pool.query(`begin; alter table bi_configuracao disable trigger _900_notify;
    update bi_configuracao set valor = '${valor}' where chave = 'slow_query_timeout_ms';
    alter table bi_configuracao enable trigger _900_notify; commit;`);

describe('configuration cache', () => {
  it('serves from cache for 30 s, then re-reads', async () => {
    let now = 1_000_000;
    const cache = new ConfiguracaoCache(db.pool, 30_000, () => now);
    expect(await cache.getInteger('slow_query_timeout_ms', 0)).toBe(5000);
    await setDirect('6000');
    now += 29_000;
    expect(await cache.getInteger('slow_query_timeout_ms', 0)).toBe(5000);
    now += 1_001;
    expect(await cache.getInteger('slow_query_timeout_ms', 0)).toBe(6000);
    expect(await cache.get('nao_existe')).toBeNull();
  });

  it('a change through SQL invalidates the key at once on every listening replica', async () => {
    const listener = await createListener(db.url, log);
    const replicas = [new ConfiguracaoCache(db.pool), new ConfiguracaoCache(db.pool)];
    for (const r of replicas) await r.attach(listener);
    for (const r of replicas) await r.get('slow_query_timeout_ms');
    await db.pool.query(`select configuracao_definir('slow_query_timeout_ms', '7777')`);
    const deadline = Date.now() + 3000;
    let values: number[] = [];
    while (Date.now() < deadline) {
      values = await Promise.all(replicas.map((r) => r.getInteger('slow_query_timeout_ms', 0)));
      if (values.every((v) => v === 7777)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(values).toEqual([7777, 7777]);
    await listener.close();
  });
});
