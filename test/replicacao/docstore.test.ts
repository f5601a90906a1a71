/**
 * What the reset's DROP_DOCSTORE drops (src/replicacao/docstore.ts): on a Postgres docstore,
 * the engine's storage schema `powersync` (a name fixed in the engine; a ?schema= naming
 * another one refuses the boot) with everything in it, and nothing else — not another schema, not public, not the replication slots; on
 * MongoDB, the database named in the URL's path. The setting itself is the phones' issue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { parseDocstoreUrl } from '../../src/config.js';
import { dropDocstore } from '../../src/replicacao/docstore.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const q = async (sql: string) => (await db.pool.query(sql)).rows;

describe('DROP_DOCSTORE', () => {
  it('Postgres: drops the schema of the URL with its tables, and nothing else', async () => {
    await db.pool.query(`create schema powersync; create table powersync.bucket_data (id int primary key); insert into powersync.bucket_data values (1), (2);
      create table powersync.sync_rules (id int); create schema vizinho; create table vizinho.guardado (id int); insert into vizinho.guardado values (7)`);
    const biAntes = await q(`select count(*)::int n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'`);
    const alvo = parseDocstoreUrl(`${db.url}?schema=powersync`);
    expect(alvo).toMatchObject({ kind: 'postgres', schema: 'powersync' });
    expect(await dropDocstore(alvo, 5_000)).toBe('schema powersync removido');
    expect(await q(`select nspname from pg_namespace where nspname in ('powersync', 'vizinho', 'public', 'app') order by 1`))
      .toEqual([{ nspname: 'app' }, { nspname: 'public' }, { nspname: 'vizinho' }]);
    expect(await q('select id from vizinho.guardado')).toEqual([{ id: 7 }]);
    expect(await q(`select count(*)::int n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'`)).toEqual(biAntes);
    // again: nothing to drop, said so
    expect(await dropDocstore(alvo, 5_000)).toBe('schema powersync não existia');
    // without ?schema it is powersync too; another schema is refused
    expect(parseDocstoreUrl(db.url)).toMatchObject({ kind: 'postgres', schema: 'powersync' });
    expect(() => parseDocstoreUrl(`${db.url}?schema=motor`)).toThrowError(/sempre no schema 'powersync'/);
  });

  it("MongoDB: the database of the URL's path; an unreachable server fails within the time limit", async () => {
    const alvo = parseDocstoreUrl('mongodb://127.0.0.1:1/powersync_storage');
    expect(alvo).toMatchObject({ kind: 'mongodb', database: 'powersync_storage' });
    const inicio = Date.now();
    await expect(dropDocstore(alvo, 500)).rejects.toThrow();
    expect(Date.now() - inicio).toBeLessThan(10_000);
  });
});
