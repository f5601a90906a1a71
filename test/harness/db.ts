/** Per-test-file databases cloned from the migrated template. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool } from '../../src/db/pool.js';

export interface TestDatabase {
  name: string;
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export function urlFor(database: string): string {
  const u = new URL(inject('pgAdminUrl'));
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
  const c = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await c.connect();
  try {
    return await c.query<T>(sql, params);
  } finally {
    await c.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(inject('templateDb'))}`);
  const url = urlFor(name);
  const pool = createPool(url, 10, 'bi-test');
  return {
    name, url, pool,
    drop: async () => {
      await pool.end().catch(() => undefined);
      await adminQuery(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    },
  };
}
