/**
 * Two real-mode requests touching the same variants, in opposite item orders, forced to
 * overlap: neither deadlocks, neither loses an update, and the audit chains before/after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { catalogoCarregar } from '../../src/erp/db.js';
import { gtin } from './helpers.js';

const ERP_TOKEN = 'erp-token-concorrencia';
let db: TestDatabase;
let app: FastifyInstance;

const eans = Array.from({ length: 20 }, (_, i) => gtin(`78920000${String(i).padStart(4, '0')}`));

beforeAll(async () => {
  db = await createTestDatabase();
  app = await testApp(db, { ERP_SYNC_ACCESS_TOKEN: ERP_TOKEN, ERP_SYNC_DRY_RUN: 'false' });
  await catalogoCarregar(db.pool, [{ codigo_erp: 'C', nome: 'Concorrência', variantes: eans.map((ean, i) => ({
    sku: `C-${String(i).padStart(2, '0')}`, ean, preco_cheio: 10, preco_desconto: 9, estoque: 100,
  })) }]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function waitForLockWaiters(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%erp_sync%'`);
    if (rows[0]!.n >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0]!.n} of ${n} requests waiting on a lock`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('concurrent real-mode requests', () => {
  it('wait for each other instead of deadlocking, and lose no update', async () => {
    const reqA = eans.map((ean) => ({ ean, preco_cheio: 20, preco_desconto: 18, estoque: 50 }));
    const reqB = [...eans].reverse().map((ean) => ({ ean, preco_cheio: 30, preco_desconto: 27, estoque: 70 }));

    // a third session holds a variant in the middle: both requests must queue behind it
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    let results: Array<{ statusCode: number; json(): any }>;
    try {
      await blocker.query('begin');
      await blocker.query("select 1 from variante where sku = 'C-10' for update");
      const send = (items: unknown[]) => app.inject({ method: 'POST', url: '/sync/erp', headers: bearer(ERP_TOKEN), payload: { items } });
      const pA = send(reqA);
      const pB = send(reqB);
      await waitForLockWaiters(2);
      await blocker.query("update variante set estoque = 1 where sku = 'C-10'");
      await blocker.query('commit');
      results = await Promise.all([pA, pB]);
    } finally {
      await blocker.end();
    }

    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    const [a, b] = results.map((r) => r.json());
    expect(a.casados + b.casados).toBe(40);

    // the second request saw the first one's values: every variant ends with the values of
    // whichever request committed last, none mixed
    const audit = (await db.pool.query<{ id: number; response: any }>('select id, response from erp_sync_audit order by id')).rows;
    expect(audit).toHaveLength(2);
    const [first, second] = audit.map((x) => x.response);
    const last = second.itens[0].preco_cheio_recebido === 20 ? reqA : reqB;
    const { rows: final } = await db.pool.query('select preco_cheio, preco_desconto, estoque from variante');
    expect(new Set(final.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({
      preco_cheio: `${last[0]!.preco_cheio}.00`, preco_desconto: `${last[0]!.preco_desconto}.00`, estoque: last[0]!.estoque,
    })]));
    expect(first.atualizados).toBe(20);
    expect(second.atualizados).toBe(20);

    // the blocker's write is the 'before' of the first request; the first's 'after' is the second's 'before'
    const changes = (await db.pool.query(`select audit_id, sku, preco_cheio_antes, preco_cheio_depois, estoque_antes, estoque_depois
      from erp_sync_audit_variante order by audit_id, sku`)).rows;
    const firstC10 = changes.find((c) => c.audit_id === audit[0]!.id && c.sku === 'C-10');
    expect(firstC10.estoque_antes).toBe(1);
    for (const c of changes.filter((x) => x.audit_id === audit[1]!.id)) {
      const prev = changes.find((x) => x.audit_id === audit[0]!.id && x.sku === c.sku);
      expect([c.preco_cheio_antes, c.estoque_antes]).toEqual([prev.preco_cheio_depois, prev.estoque_depois]);
    }
  });
});
