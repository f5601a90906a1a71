/**
 * Functions and views have one home each (db/functions, db/views), applied after the dbmate
 * migrations when their text changes (src/db/repeatable.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { applyRepeatables, definitionsRoot, listRepeatables, RepeatableError } from '../../src/db/repeatable.js';

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

function tempRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'bi-repeatable-'));
  for (const [path, sql] of Object.entries(files)) {
    mkdirSync(join(root, path.split('/')[0]!), { recursive: true });
    writeFileSync(join(root, path), sql);
  }
  return root;
}

const fn = (name: string, body: string) => `create or replace function public.${name}() returns int language sql
  set search_path to pg_catalog, public, pg_temp as $$ ${body} $$;
comment on function public.${name}() is 'test';`;

describe('every function and view has exactly one home', () => {
  it('the catalog (public, app) and the files of db/functions and db/views name the same objects', async () => {
    const { rows } = await client.query<{ f: string }>(`
      select format('functions/%s.%s.sql', n.nspname, p.proname) f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname in ('public', 'app')
         and not exists (select from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
      union
      select format('views/%s.%s.sql', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname in ('public', 'app') and c.relkind = 'v'`);
    const live = rows.map((r) => r.f).sort();
    const files = listRepeatables().map((f) => f.arquivo).sort();
    expect(files.length).toBeGreaterThan(50);
    expect(live).toEqual(files);
  });

  it('the migrated database recorded the text of every file it carries', async () => {
    const byName = (a: { arquivo: string }, b: { arquivo: string }) => (a.arquivo < b.arquivo ? -1 : 1);
    const { rows } = await client.query<{ arquivo: string; sha256: string }>('select arquivo, sha256 from app.repeatable_file');
    expect(rows.sort(byName)).toEqual(listRepeatables().map((f) => ({ arquivo: f.arquivo, sha256: f.sha256 })).sort(byName));
  });

  it('each file names its object: db/functions/<schema>.<name>.sql defines that function', () => {
    for (const f of listRepeatables()) {
      const [, schema, name] = /^(?:functions|views)\/([a-z_]+)\.([a-z0-9_]+)\.sql$/.exec(f.arquivo) ?? [];
      expect(schema, f.arquivo).toBeTruthy();
      const kind = f.arquivo.startsWith('views/') ? 'VIEW' : '(?:FUNCTION|PROCEDURE)';
      expect(f.sql, f.arquivo).toMatch(new RegExp(`create or replace ${kind} ${schema}\\.${name}\\b`, 'i'));
    }
  });
});

describe('applyRepeatables', () => {
  it('applies a changed or new file, and leaves unchanged files alone', async () => {
    const root = tempRoot({ 'functions/public.t_um.sql': fn('t_um', 'select 1') });
    expect((await applyRepeatables(client, { root })).aplicados).toEqual(['functions/public.t_um.sql']);
    expect((await client.query('select public.t_um() v')).rows[0].v).toBe(1);
    expect(await applyRepeatables(client, { root })).toMatchObject({ aplicados: [] });
    writeFileSync(join(root, 'functions/public.t_um.sql'), fn('t_um', 'select 2'));
    expect((await applyRepeatables(client, { root })).aplicados).toEqual(['functions/public.t_um.sql']);
    expect((await client.query('select public.t_um() v')).rows[0].v).toBe(2);
    expect((await applyRepeatables(client, { root, all: true })).aplicados).toEqual(['functions/public.t_um.sql']);
  });

  it('file order does not matter: a view over a view of a later file is applied after it', async () => {
    const root = tempRoot({
      'functions/public.t_dois.sql': fn('t_dois', 'select 20'),
      'views/public.t_a.sql': 'create or replace view public.t_a as select v + 1 as w from public.t_b;',
      'views/public.t_b.sql': 'create or replace view public.t_b as select public.t_dois() as v;',
    });
    const r = await applyRepeatables(client, { root });
    expect(r.aplicados.sort()).toEqual(['functions/public.t_dois.sql', 'views/public.t_a.sql', 'views/public.t_b.sql']);
    expect((await client.query('select w from public.t_a')).rows[0].w).toBe(21);
  });

  it('a file that fails applies nothing and names the file; the recorded texts stay as they were', async () => {
    const root = tempRoot({
      'functions/public.t_tres.sql': fn('t_tres', 'select 3'),
      'functions/public.t_z_quebrada.sql': 'create or replace function public.t_z_quebrada() returns int language plpgsql as $$ begin return 1; end $$; select 1/0;',
    });
    const err = await applyRepeatables(client, { root }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RepeatableError);
    expect((err as RepeatableError).arquivo).toBe('functions/public.t_z_quebrada.sql');
    expect((err as RepeatableError).cause.code).toBe('22012');
    expect((await client.query(`select to_regproc('public.t_tres') is null ausente`)).rows[0].ausente).toBe(true);
    expect((await client.query(`select count(*)::int n from app.repeatable_file where arquivo like '%t_tres%'`)).rows[0].n).toBe(0);
  });

  it('a file that needs an object nobody defines fails with that error, not a loop', async () => {
    const root = tempRoot({ 'views/public.t_orfa.sql': 'create or replace view public.t_orfa as select * from public.nao_existe;' });
    const err = await applyRepeatables(client, { root }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RepeatableError);
    expect((err as RepeatableError).cause.code).toBe('42P01');
  });

  it('a fix to a real definition is one file: its comment changes in the database', async () => {
    const real = readFileSync(join(definitionsRoot, 'functions', 'app.enqueue.sql'), 'utf8');
    const root = tempRoot({ 'functions/app.enqueue.sql': real.replace(/is 'Adds a job/, "is 'Enfileira um job") });
    await applyRepeatables(client, { root });
    const { rows } = await client.query(`select obj_description('app.enqueue(text,jsonb,timestamptz,text,integer)'::regprocedure, 'pg_proc') c`);
    expect(rows[0].c).toMatch(/^Enfileira um job/);
  });
});
