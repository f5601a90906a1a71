/** The publication of the sync engine: every bi_* table, also those created later, and nothing else. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

async function publicadas(pub = 'powersync'): Promise<string[]> {
  const { rows } = await db.pool.query<{ t: string }>(
    `select schemaname || '.' || tablename t from pg_publication_tables where pubname = $1 order by 1`, [pub]);
  return rows.map((r) => r.t);
}

async function tabelasBi(): Promise<string[]> {
  const { rows } = await db.pool.query<{ t: string }>(
    `select 'public.' || c.relname t from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\\_%' order by 1`);
  return rows.map((r) => r.t);
}

describe('publication powersync', () => {
  it('covers exactly the bi_* tables of the migrated schema', async () => {
    const bi = await tabelasBi();
    expect(bi).toContain('public.bi_configuracao');
    expect(await publicadas()).toEqual(bi);
    const { rows } = await db.pool.query(`select pubinsert, pubupdate, pubdelete, pubtruncate, puballtables from pg_publication where pubname = 'powersync'`);
    expect(rows[0]).toEqual({ pubinsert: true, pubupdate: true, pubdelete: true, pubtruncate: true, puballtables: false });
  });

  it('follows tables created, renamed and dropped later (event trigger), and nothing else joins', async () => {
    await db.pool.query('create table public.bi_teste_futuro (id uuid primary key default gen_random_uuid(), codigo text unique)');
    await db.pool.query('create table public.xls_teste_interno (id int primary key)');
    await db.pool.query('create table public.bi_teste_as as select 1 as id');
    expect(await publicadas()).toContain('public.bi_teste_futuro');
    expect(await publicadas()).toContain('public.bi_teste_as');
    expect(await publicadas()).not.toContain('public.xls_teste_interno');
    // the read role's grant (the other event trigger) still applies
    const g = await db.pool.query(`select has_table_privilege('bi_sync_reader', 'public.bi_teste_futuro', 'select') ok`);
    expect(g.rows[0].ok).toBe(true);

    await db.pool.query('alter table public.bi_teste_futuro rename to teste_renomeada');
    expect(await publicadas()).not.toContain('public.teste_renomeada');
    await db.pool.query('alter table public.xls_teste_interno rename to bi_teste_promovida');
    expect(await publicadas()).toContain('public.bi_teste_promovida');
    await db.pool.query('alter table public.bi_teste_promovida add column nome text');
    expect(await publicadas()).toEqual(await tabelasBi());

    await db.pool.query('drop table public.bi_teste_promovida, public.teste_renomeada, public.bi_teste_as');
    expect(await publicadas()).toEqual(await tabelasBi());
    // a table in another schema never joins
    await db.pool.query('create schema outro; create table outro.bi_x (id int primary key)');
    expect(await publicadas()).toEqual(await tabelasBi());
  });

  it('the read role follows renames and SET SCHEMA: SELECT on exactly the bi_* tables of public, and nothing else', async () => {
    const pode = async (t: string) => (await db.pool.query<{ ok: boolean }>(
      `select has_table_privilege('bi_sync_reader', $1, 'select') ok`, [t])).rows[0]!.ok;
    /** The tables granted to the role, beyond the bi_* tables of public. */
    const alemDoBi = async () => (await db.pool.query<{ t: string }>(
      `select n.nspname || '.' || c.relname t from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p')
          and exists (select from aclexplode(c.relacl) a where a.grantee = 'bi_sync_reader'::regrole and a.privilege_type = 'SELECT')
          and not (n.nspname = 'public' and c.relname like 'bi\\_%') order by 1`)).rows.map((r) => r.t);
    /** The bi_* tables of public the role may not read. */
    const biSemLeitura = async () => (await db.pool.query<{ t: string }>(
      `select c.relname t from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\\_%'
          and not has_table_privilege('bi_sync_reader', c.oid, 'select') order by 1`)).rows.map((r) => r.t);
    await db.pool.query('create schema if not exists rascunho');
    await db.pool.query('create table public.xls_x (id int primary key); create table rascunho.bi_y (id int primary key); create table public.bi_z (id int primary key)');
    expect(await pode('public.xls_x')).toBe(false);
    expect(await pode('public.bi_z')).toBe(true);

    await db.pool.query('alter table public.xls_x rename to bi_x');
    expect(await pode('public.bi_x')).toBe(true);
    expect(await publicadas()).toContain('public.bi_x');
    await db.pool.query('alter table rascunho.bi_y set schema public');
    expect(await pode('public.bi_y')).toBe(true);
    expect(await publicadas()).toContain('public.bi_y');

    await db.pool.query('alter table public.bi_z rename to z');
    expect(await pode('public.z')).toBe(false);
    await db.pool.query('alter table public.bi_y set schema rascunho');
    expect(await pode('rascunho.bi_y')).toBe(false);
    expect(await publicadas()).not.toContain('rascunho.bi_y');
    expect(await publicadas()).toEqual(await tabelasBi());
    expect(await alemDoBi()).toEqual([]);
    expect(await biSemLeitura()).toEqual([]);
    await db.pool.query('drop table public.bi_x, public.z, rascunho.bi_y; drop schema rascunho');
  });

  it('replicacao_publicacao_recriar drops and recreates it, and registers another name so that it follows new tables too', async () => {
    const { rows } = await db.pool.query<{ n: number }>(`select replicacao_publicacao_recriar('powersync') n`);
    expect(rows[0]!.n).toBe((await tabelasBi()).length);
    expect(await publicadas()).toEqual(await tabelasBi());
    await db.pool.query(`select replicacao_publicacao_recriar('motor_b')`);
    expect(await publicadas('motor_b')).toEqual(await tabelasBi());
    await db.pool.query('create table public.bi_teste_dois (id uuid primary key)');
    expect(await publicadas('motor_b')).toContain('public.bi_teste_dois');
    expect(await publicadas('powersync')).toContain('public.bi_teste_dois');
    await db.pool.query('drop table public.bi_teste_dois');
  });

  it('refuses an invalid publication name (RR400)', async () => {
    await expect(db.pool.query(`select replicacao_publicacao_recriar('Nome Ruim; drop')`)).rejects.toMatchObject({ code: 'RR400' });
    await expect(db.pool.query(`select replicacao_publicacao_recriar(null)`)).rejects.toMatchObject({ code: 'RR400' });
  });
});
