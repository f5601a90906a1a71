/** The DBA's manual is the catalog: every area-B object is commented; every function pins search_path. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const AREA = `(p.proname ~ '^(partner_|minutos_comerciais|apos_minutos_comerciais|dia_util|pascoa)')`;

describe('catalog conventions of the order-webhook objects', () => {
  it('every function has a comment and pins search_path', async () => {
    const { rows } = await db.pool.query(`
      select n.nspname || '.' || p.proname as f, obj_description(p.oid, 'pg_proc') as c, p.proconfig as cfg
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname in ('public', 'app') and ${AREA}`);
    expect(rows.length).toBeGreaterThan(25);
    const bad = rows.filter((r) => !r.c || !(r.cfg ?? []).some((s: string) => s.startsWith('search_path=pg_catalog')));
    expect(bad.map((r) => r.f)).toEqual([]);
  });

  it('every table has a comment', async () => {
    const { rows } = await db.pool.query(`
      select c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind = 'r' and c.relname ~ '^(partner_|feriado|destinatario)'
         and obj_description(c.oid, 'pg_class') is null`);
    expect(rows).toEqual([]);
  });
});
