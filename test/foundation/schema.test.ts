import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { execFileSync } from 'node:child_process';
import { findPgBinDir } from '../../src/db/pg-bin.js';
import { inject } from 'vitest';
import { adminQuery, urlFor, createTestDatabase, type TestDatabase } from '../harness/db.js';
import { generateArtifacts } from '../harness/artifacts.js';
import { BASELINE_VERSION, MIGRATION_LOCK_TIMEOUT, dbmate, migrate, migrationVersions, migrationsDir, projectRoot } from '../../src/db/migrate.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('committed artefacts are fresh', () => {
  it('db/schema.sql and the zapatos types match a fresh migration (run `npm run db:generate`)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bi-artefacts-'));
    await generateArtifacts(urlFor(inject('templateDb')), join(out, 'schema.sql'), out);
    const fresh = readFileSync(join(out, 'schema.sql'), 'utf8');
    const committed = readFileSync(join(projectRoot, 'db', 'schema.sql'), 'utf8');
    expect(fresh, 'db/schema.sql está desatualizado: rode npm run db:generate').toBe(committed);
    const freshTypes = readFileSync(join(out, 'zapatos', 'schema.d.ts'), 'utf8');
    const committedTypes = readFileSync(join(projectRoot, 'src', 'db', 'zapatos', 'schema.d.ts'), 'utf8');
    expect(freshTypes === committedTypes, 'tipos zapatos desatualizados: rode npm run db:generate').toBe(true);
  });
});

describe('migrations', () => {
  it('every migration has a real down: all the way down and up again', async () => {
    const name = `t_roundtrip_${process.pid}`;
    await adminQuery(`create database ${name}`);
    try {
      const url = urlFor(name);
      await migrate(url);
      const files = (await dbmate(url, ['status'])).match(/\[X\]/g)?.length ?? 0;
      expect(files).toBeGreaterThan(0);
      for (let i = 0; i < files; i += 1) await dbmate(url, ['rollback']);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      // no migration creates a function (db/functions does): what the downs left (the files'
      // functions of public; a down that moves one back from app) is dropped here
      const extra = await c.query<{ sig: string }>(`select p.oid::regprocedure::text sig
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        left join pg_depend d on d.objid = p.oid and d.deptype = 'e'
        where n.nspname in ('public', 'app') and d.objid is null`);
      for (const r of extra.rows) await c.query(`drop function ${r.sig}`);
      const left = await c.query(`select count(*)::int n from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ('public', 'app') and c.relname <> 'schema_migrations' and c.relkind in ('r', 'v', 'm', 'S')`);
      const fns = await c.query(`select count(*)::int n from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'app')`);
      await c.end();
      expect(left.rows[0].n).toBe(0);
      expect(fns.rows[0].n).toBe(0);
      await migrate(url);
      expect((await dbmate(url, ['status'])).match(/\[ \]/g)).toBeNull();
    } finally {
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  });

  it('no migration carries a function or procedure body, nor sets lock_timeout itself', () => {
    const files = readdirSync(migrationsDir).filter((f) => f.endsWith('.sql'));
    expect(files.length).toBeGreaterThan(0);
    const bodies = files.filter((f) => /\bcreate\s+(or\s+replace\s+)?(function|procedure)\b/i
      .test(readFileSync(join(migrationsDir, f), 'utf8')));
    expect(bodies, 'funções e procedures vivem em db/functions').toEqual([]);
    const locks = files.filter((f) => /lock_timeout/i.test(readFileSync(join(migrationsDir, f), 'utf8')));
    expect(locks, 'lock_timeout vem da conexão das migrações').toEqual([]);
    // the scan itself can fail: a body is seen
    expect(/\bcreate\s+(or\s+replace\s+)?(function|procedure)\b/i.test('CREATE OR REPLACE\n FUNCTION app.x() returns int')).toBe(true);
  });

  it('the migration connection carries lock_timeout, so each migration has it without setting it', async () => {
    const name = `t_lock_${process.pid}`;
    const dir = mkdtempSync(join(tmpdir(), 'bi-mig-'));
    writeFileSync(join(dir, '20200101000000_lock.sql'),
      "-- migrate:up\ncreate table lock_visto as select current_setting('lock_timeout') v;\n-- migrate:down\ndrop table lock_visto;\n");
    await adminQuery(`create database ${name}`);
    try {
      await dbmate(urlFor(name), ['migrate'], dir);
      const c = new pg.Client({ connectionString: urlFor(name) });
      await c.connect();
      const { rows } = await c.query('select v from lock_visto');
      await c.end();
      expect(rows).toEqual([{ v: MIGRATION_LOCK_TIMEOUT }]);
    } finally {
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  });

  it('the baseline carries the last old version: a database at it takes nothing; an older history is refused', async () => {
    expect(migrationVersions()[0]).toBe(BASELINE_VERSION);
    const name = `t_baseline_${process.pid}`;
    await adminQuery(`create database ${name}`);
    try {
      const url = urlFor(name);
      await migrate(url);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      // a database migrated by the old files: every old version recorded, the last one the baseline's
      await c.query(`insert into schema_migrations (version) values ('20261122000100'), ('20261124190000')`);
      await c.query(`create table public.marca_existente (id int)`);
      const again = await migrate(url);
      expect(again.aplicados).toEqual([]);
      expect((await c.query(`select to_regclass('public.marca_existente') is not null e`)).rows[0].e).toBe(true);
      expect((await dbmate(url, ['status'])).match(/\[ \]/g)).toBeNull();
      // stopped at an older migration: the baseline would collide with its tables
      await c.query(`delete from schema_migrations where version >= $1`, [BASELINE_VERSION]);
      await c.end();
      await expect(migrate(url)).rejects.toThrow(/migração 20261124190000, anterior à base 20261124200000: migre-o antes com a versão 2\.2\.0/);
    } finally {
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  });

  it('a database at the baseline (as 2.2.0 left it) takes the later migrations and ends as a fresh one', async () => {
    const velho = `t_velho_${process.pid}`;
    const novo = `t_novo_${process.pid}`;
    await adminQuery(`create database ${velho}`);
    await adminQuery(`create database ${novo}`);
    try {
      await migrate(urlFor(velho));
      // back to the baseline: what a 2.2.0 install is (helpers in public, EXECUTE PUBLIC's,
      // xls_conjunto_lote), with the old versions recorded
      const depois = migrationVersions().filter((v) => v > BASELINE_VERSION);
      expect(depois.length).toBeGreaterThan(0);
      for (let i = 0; i < depois.length; i += 1) await dbmate(urlFor(velho), ['rollback']);
      const c = new pg.Client({ connectionString: urlFor(velho) });
      await c.connect();
      await c.query(`insert into schema_migrations (version) values ('20261122000100'), ('20261124190000')`);
      expect((await c.query(`select to_regprocedure('public.tg__touch_atualizado_em()') is not null e`)).rows[0].e).toBe(true);
      await c.end();
      await migrate(urlFor(velho));
      await migrate(urlFor(novo));
      const dump = (d: string) => execFileSync(join(findPgBinDir(), 'pg_dump'), ['--schema-only', '--no-owner', '-T', 'public.schema_migrations', '--dbname', urlFor(d)],
        { maxBuffer: 256 * 1024 * 1024 }).toString().replace(/^\\(un)?restrict .*$/gm, '');
      const a = dump(velho);
      expect(a).toContain('EXECUTE FUNCTION app.tg__touch_atualizado_em()');
      expect(a === dump(novo), 'o banco migrado a partir da base difere de um banco novo').toBe(true);
    } finally {
      await adminQuery(`drop database if exists ${velho} with (force)`);
      await adminQuery(`drop database if exists ${novo} with (force)`);
    }
  });

  it('schedules its pg_cron jobs in the pg_cron database, and nowhere else', async () => {
    const c = new pg.Client({ connectionString: urlFor(inject('cronDb')) });
    await c.connect();
    const { rows } = await c.query(`select jobname, schedule, command, database from cron.job order by jobname`);
    await c.end();
    const cronDb = inject('cronDb');
    expect(rows).toEqual([
      { jobname: 'app_sessao_expirar', schedule: '17 * * * *', command: 'select app.sessao_expirar()', database: cronDb },
      { jobname: 'app_sweep_jobs', schedule: '* * * * *', command: 'select app.sweep_jobs()', database: cronDb },
      { jobname: 'app_xls_alteracoes_expurgar', schedule: '41 3 * * *', command: 'select app.xls_alteracoes_expurgar()', database: cronDb },
      { jobname: 'partner_conciliacao', schedule: '30 9 * * *', command: 'select public.partner_conciliacao_agendar(now())', database: cronDb },
      { jobname: 'partner_tick', schedule: '* * * * *', command: 'select public.partner_tick(now())', database: cronDb },
      { jobname: 'replicacao_recuperar', schedule: '* * * * *', command: 'select count(*) from public.replicacao_recuperar()', database: cronDb },
      { jobname: 'replicacao_slots_observar', schedule: '* * * * *', command: 'select app.replicacao_slots_observar()', database: cronDb },
      { jobname: 'xls_recuperar', schedule: '* * * * *', command: 'select public.xls_recuperar()', database: cronDb },
    ]);
    const ext = await db.pool.query(`select count(*)::int n from pg_extension where extname = 'pg_cron'`);
    expect(ext.rows[0].n).toBe(0);
    expect((await db.pool.query('select app.cron_available() a')).rows[0].a).toBe(false);
  });

  it('the server has wal_level=logical for the sync engine', async () => {
    expect((await db.pool.query('show wal_level')).rows[0].wal_level).toBe('logical');
  });
});

describe('conventions', () => {
  it('a security definer function that does not pin search_path is caught (there is none today)', async () => {
    const unpinnedDefiners = `select p.oid::regprocedure::text fn from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('public', 'app') and p.prosecdef
        and not exists (select from unnest(coalesce(p.proconfig, '{}')) cfg where cfg like 'search_path=%')`;
    expect((await db.pool.query(unpinnedDefiners)).rows).toEqual([]);
    // the probe: a definer without a pinned search_path is what the query reports
    await db.pool.query(`create function public.t_definer_sonda() returns int language sql security definer as 'select 1'`);
    try {
      expect((await db.pool.query(unpinnedDefiners)).rows.map((r) => r.fn)).toEqual(['t_definer_sonda()']);
    } finally {
      await db.pool.query('drop function public.t_definer_sonda()');
    }
  });

  it('every function pins search_path (pg_catalog first) and has a comment', async () => {
    const { rows } = await db.pool.query(`select p.oid::regprocedure::text fn,
        exists (select from unnest(coalesce(p.proconfig, '{}')) cfg where cfg like 'search_path=pg_catalog%') pinned,
        obj_description(p.oid, 'pg_proc') is not null commented
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      left join pg_depend d on d.objid = p.oid and d.deptype = 'e'
      where n.nspname in ('public', 'app') and d.objid is null`);
    // the one exception: app.uuid_v7(), inlined into the column defaults (a SET clause would
    // forbid that); every name in it is schema-qualified, and the next test checks it is inlined
    expect(rows.filter((r) => !r.pinned).map((r) => r.fn)).toEqual(['app.uuid_v7()']);
    expect(rows.filter((r) => !r.commented).map((r) => r.fn)).toEqual([]);
  });

  it('app.uuid_v7() is inlined, names nothing through search_path, and gives version-7 ids in time order', async () => {
    // inlined: the plan computes the expression itself, no call of the function is left
    const plan = (await db.pool.query('explain (verbose, costs off) select app.uuid_v7()')).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toContain('uuid_v7');
    expect(plan).toContain('gen_random_uuid');
    // a schema first in search_path with functions of the same names changes nothing
    await db.pool.query('create schema t_sombra');
    try {
      await db.pool.query(`create function t_sombra.gen_random_uuid() returns uuid language sql as $$ select '00000000-0000-4000-8000-000000000000'::uuid $$`);
      await db.pool.query(`create function t_sombra.clock_timestamp() returns timestamptz language sql as $$ select timestamptz '2000-01-01' $$`);
      const c = await db.pool.connect();
      try {
        await c.query('set search_path = t_sombra, pg_catalog, public');
        const { rows } = await c.query(`select app.uuid_v7()::text id`);
        expect(rows[0].id).not.toMatch(/^0{8}/);
        expect(Math.abs(parseInt(rows[0].id.replace(/-/g, '').slice(0, 12), 16) - Date.now())).toBeLessThan(60_000);
      } finally {
        c.release();
      }
    } finally {
      await db.pool.query('drop schema t_sombra cascade');
    }
    // version 7, RFC variant, the first 48 bits the clock in ms; ids of later milliseconds are greater
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await db.pool.query('select app.uuid_v7()::text id')).rows[0].id);
      await new Promise((r) => setTimeout(r, 3));
    }
    const antes = Date.now() - 60_000;
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThan(antes);
      expect(ms).toBeLessThanOrEqual(Date.now());
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every generated uuid primary key defaults to app.uuid_v7()', async () => {
    const { rows } = await db.pool.query(`select c.oid::regclass::text tabela, pg_get_expr(d.adbin, d.adrelid) padrao
      from pg_constraint k join pg_class c on c.oid = k.conrelid
      join pg_attribute a on a.attrelid = c.oid and a.attnum = k.conkey[1] and a.atttypid = 'uuid'::regtype
      join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      where k.contype = 'p' and cardinality(k.conkey) = 1 and c.relnamespace in ('public'::regnamespace, 'app'::regnamespace)
      order by 1`);
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.filter((r) => r.padrao !== 'app.uuid_v7()')).toEqual([]);
  });

  it('no function of public or app is executable by PUBLIC, nor one created later; the sync read role runs none', async () => {
    const publicExecute = `select p.oid::regprocedure::text fn from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      left join pg_depend d on d.objid = p.oid and d.deptype = 'e'
      where n.nspname in ('public', 'app') and d.objid is null
        and exists (select from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                     where a.grantee = 0 and a.privilege_type = 'EXECUTE')`;
    expect((await db.pool.query(publicExecute)).rows).toEqual([]);
    const { rows } = await db.pool.query(`select count(*)::int n, count(*) filter (where has_function_privilege('bi_sync_reader', p.oid, 'execute'))::int sync
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'app')`);
    expect(rows[0].n).toBeGreaterThan(100);
    expect(rows[0].sync).toBe(0);
    // the default privileges: a function the owner creates later is not PUBLIC's either
    await db.pool.query(`create function public.t_nova_funcao() returns int language sql set search_path = pg_catalog as 'select 1'`);
    try {
      expect((await db.pool.query(publicExecute)).rows).toEqual([]);
      // and the query sees a PUBLIC grant when there is one
      await db.pool.query('grant execute on function public.t_nova_funcao() to public');
      expect((await db.pool.query(publicExecute)).rows.map((r) => r.fn)).toEqual(['t_nova_funcao()']);
    } finally {
      await db.pool.query('drop function public.t_nova_funcao()');
    }
  });

  it('every table in public and app has a comment', async () => {
    const { rows } = await db.pool.query(`select n.nspname || '.' || c.relname t from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'app') and c.relkind in ('r', 'p', 'v', 'm') and c.relname <> 'schema_migrations'
        and obj_description(c.oid, 'pg_class') is null`);
    expect(rows.map((r) => r.t)).toEqual([]);
  });

  it('every bi_* table has a uuid primary key named id and a UNIQUE natural key', async () => {
    const { rows } = await db.pool.query(`select c.relname,
        exists (select from pg_constraint k join pg_attribute a on a.attrelid = k.conrelid and a.attnum = any(k.conkey)
                 where k.conrelid = c.oid and k.contype = 'p' and array_length(k.conkey, 1) = 1
                   and a.attname = 'id' and a.atttypid = 'uuid'::regtype) uuid_pk,
        exists (select from pg_constraint k where k.conrelid = c.oid and k.contype = 'u')
          or exists (select from pg_index i where i.indrelid = c.oid and i.indisunique and not i.indisprimary and i.indpred is null) natural_key
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\\_%'`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => !r.uuid_pk || !r.natural_key).map((r) => r.relname)).toEqual([]);
  });

  it('the sync read role can read every bi_* table, including new ones, and nothing else', async () => {
    await db.pool.query('create table public.bi_tabela_nova (id uuid primary key default gen_random_uuid(), k text unique)');
    await db.pool.query('create table public.outra_tabela (id int)');
    const { rows } = await db.pool.query(`select c.relname, has_table_privilege('bi_sync_reader', c.oid, 'select') pode
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'app') and c.relkind in ('r', 'p', 'v')`);
    const wrong = rows.filter((r) => r.pode !== String(r.relname).startsWith('bi_'));
    expect(wrong).toEqual([]);
    expect(rows.find((r) => r.relname === 'bi_tabela_nova')?.pode).toBe(true);
    await db.pool.query('drop table public.bi_tabela_nova, public.outra_tabela');
  });
});

describe('bi_configuracao', () => {
  it('is seeded with ultimo_nuke (system), slow_query_timeout_ms and the import keys (retention, mass-deletion guard)', async () => {
    const { rows } = await db.pool.query('select chave, valor, tipo, sistema from bi_configuracao order by chave');
    expect(rows).toEqual([
      { chave: 'slow_query_timeout_ms', valor: '5000', tipo: 'integer', sistema: false },
      { chave: 'ultimo_nuke', valor: '1970-01-01T00:00:00.000Z', tipo: 'string', sistema: true },
      { chave: 'xls_alteracoes_retencao_dias', valor: '180', tipo: 'integer', sistema: false },
      { chave: 'xls_exclusao_limite_linhas', valor: '100', tipo: 'integer', sistema: false },
      { chave: 'xls_exclusao_limite_percentual', valor: '30', tipo: 'integer', sistema: false },
    ]);
  });

  it('rejects values invalid for their type at the table level', async () => {
    for (const [tipo, valor] of [['integer', '1.5'], ['boolean', 'sim'], ['duration', 'logo']]) {
      await expect(db.pool.query(`insert into bi_configuracao (chave, valor, tipo) values ('k_' || $1, $2, $1)`, [tipo, valor]))
        .rejects.toMatchObject({ code: '23514' });
    }
    await db.pool.query(`insert into bi_configuracao (chave, valor, tipo) values ('k_dur', 'PT30S', 'duration')`);
    await db.pool.query(`delete from bi_configuracao where chave = 'k_dur'`);
  });

  it('configuracao_definir: precedence 404, 403, 400, then 409 for a stale version; same value is a no-op', async () => {
    const call = (k: string, v: string | null, ver: string | null = null) =>
      db.pool.query('select * from configuracao_definir($1, $2, $3)', [k, v, ver]);
    await expect(call('nao_existe', 'x')).rejects.toMatchObject({ code: 'CF404' });
    await expect(call('ultimo_nuke', 'lixo')).rejects.toMatchObject({ code: 'CF403' });
    await expect(call('slow_query_timeout_ms', 'x')).rejects.toMatchObject({ code: 'CF400' });
    const first = (await call('slow_query_timeout_ms', '6000')).rows[0];
    const same = (await call('slow_query_timeout_ms', '6000', first.atualizado_em)).rows[0];
    expect(same.atualizado_em).toEqual(first.atualizado_em);
    await expect(call('slow_query_timeout_ms', '8000', new Date(Date.parse(first.atualizado_em) - 1000).toISOString()))
      .rejects.toMatchObject({ code: 'CF409' });
  });

  it('every change notifies app_config with the key (cache invalidation)', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const got: string[] = [];
    c.on('notification', (n) => got.push(`${n.channel}:${n.payload}`));
    await c.query('listen app_config');
    await db.pool.query(`select configuracao_definir('slow_query_timeout_ms', '4321')`);
    const deadline = Date.now() + 3000;
    while (!got.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await c.end();
    expect(got).toEqual(['app_config:slow_query_timeout_ms']);
  });
});
