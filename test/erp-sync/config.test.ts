/** ERP-sync configuration and the demo catalogue of `npm start`. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEMO_CATALOGUE_FILE, seedDemoCatalogue } from '../../src/erp/demo-catalogo.js';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 'tok', S3_FILE_STORAGE: 'PSQL' };

describe('ERP_SYNC_* configuration', () => {
  it('unset token: boot goes on with a warning naming the variable, and calls will be refused', () => {
    for (const token of [undefined, '', '  ']) {
      const { config, warnings } = loadConfig({ ...base, ERP_SYNC_ACCESS_TOKEN: token });
      expect(config.erpSync.accessToken).toBeNull();
      expect(warnings.join('\n')).toMatch(/ERP_SYNC_ACCESS_TOKEN.*401/);
    }
  });

  it('reads the token; dry run is the default', () => {
    const { config, warnings } = loadConfig({ ...base, ERP_SYNC_ACCESS_TOKEN: ' segredo ' });
    expect(config.erpSync).toEqual({ accessToken: 'segredo', dryRun: true });
    expect(warnings.filter((w) => w.includes('ERP_SYNC'))).toEqual([]);
  });

  it('ERP_SYNC_DRY_RUN=false switches to real writes; a malformed value refuses the boot', () => {
    expect(loadConfig({ ...base, ERP_SYNC_DRY_RUN: 'false' }).config.erpSync.dryRun).toBe(false);
    expect(loadConfig({ ...base, ERP_SYNC_DRY_RUN: 'true' }).config.erpSync.dryRun).toBe(true);
    expect(() => loadConfig({ ...base, ERP_SYNC_DRY_RUN: 'talvez' })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...base, ERP_SYNC_DRY_RUN: 'talvez' })).toThrowError(/ERP_SYNC_DRY_RUN/);
  });
});

describe('demo catalogue', () => {
  let db: TestDatabase;
  beforeAll(async () => { db = await createTestDatabase(); });
  afterAll(async () => { await db?.drop(); });

  it('has valid EANs, one shared EAN (to show ambiguos) and one variant without EAN', async () => {
    const cat = JSON.parse(readFileSync(DEMO_CATALOGUE_FILE, 'utf8')) as Array<{ variantes: Array<{ ean: string | null }> }>;
    const eans = cat.flatMap((p) => p.variantes.map((v) => v.ean));
    const { rows } = await db.pool.query('select bool_and(gtin_valido(e)) as ok from unnest($1::text[]) e', [eans.filter(Boolean)]);
    expect(rows[0].ok).toBe(true);
    expect(eans.filter((e) => e === null)).toHaveLength(1);
    expect(eans.length - new Set(eans.filter(Boolean)).size).toBe(2); // the null and one repeat
  });

  it('is loaded only into an empty catalogue and never in test or production', async () => {
    expect(await seedDemoCatalogue(db.pool, 'test')).toBeNull();
    expect(await seedDemoCatalogue(db.pool, 'production')).toBeNull();
    expect((await db.pool.query('select count(*)::int as n from variante')).rows[0].n).toBe(0);
    const loaded = await seedDemoCatalogue(db.pool, 'development');
    expect(loaded?.variantes_inseridas).toBeGreaterThan(10);
    expect(await seedDemoCatalogue(db.pool, 'development')).toBeNull();
  });
});

describe('boot without ERP_SYNC_ACCESS_TOKEN', () => {
  let db: TestDatabase;
  beforeAll(async () => { db = await createTestDatabase(); });
  afterAll(async () => { await db?.drop(); });

  it('the real entry point logs a warning and serves (the endpoint answers 401)', async () => {
    const env = { ...testEnv(db), LOG_LEVEL: 'info', PATH: process.env.PATH, ERP_SYNC_ACCESS_TOKEN: undefined };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listen line in: ${out}`)), 60_000);
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) { clearTimeout(timer); resolve(m[1]!); }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const warning = out.split('\n').find((l) => l.includes('ERP_SYNC_ACCESS_TOKEN'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40 });
      const res = await fetch(`${url}/sync/erp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: '{"items":[{}]}' });
      expect(res.status).toBe(401);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 90_000); // boot budget: on the shared 2-core machine under load the first log line came after ~20 s
});
