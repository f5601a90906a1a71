/**
 * Boot refusals of the real entry points: pg_cron must serve the service's database
 * (cron.database_name), and `npm start` against a configured DATABASE_URL invents no
 * development token (no BI_COMERCIAL_XLS_API_TOKEN: refused, as the spec says).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import { ConfigError } from '../../src/config.js';
import { startService } from '../../src/main.js';

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`did not exit: ${out}`)); }, 30_000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

describe('boot refusals', () => {
  let db: TestDatabase;
  beforeAll(async () => { db = await createTestDatabase(); });
  afterAll(async () => { await db?.drop(); });

  it('startService refuses when cron.database_name names another database', async () => {
    const env = { ...testEnv(db), PG_CRON_OBRIGATORIO: undefined };
    const err = await startService(env, { migrate: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('cron.database_name');
    expect((err as Error).message).toContain(db.name);
  });

  it('the entry point exits 78 naming cron.database_name', async () => {
    const env = { ...testEnv(db), PG_CRON_OBRIGATORIO: undefined, PATH: process.env.PATH };
    const { code, out } = await run(['--import', 'tsx', 'src/main.ts'], env);
    expect(code).toBe(78);
    expect(out).toMatch(/configuração inválida: pg_cron atende o banco 'bi_cron' \(cron\.database_name\)/);
  });

  it('npm start with DATABASE_URL and no BI_COMERCIAL_XLS_API_TOKEN refuses to boot and invents no token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bi-start-'));
    try {
      const { code, out } = await run(['scripts/bootstrap.mjs', 'start'], {
        PATH: process.env.PATH, HOME: process.env.HOME, APP_DATA_DIR: dataDir, DATABASE_URL: db.url,
        S3_FILE_STORAGE: 'PSQL', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', PG_CRON_OBRIGATORIO: 'false',
      });
      expect(code).toBe(78);
      expect(out).toContain('BI_COMERCIAL_XLS_API_TOKEN');
      expect(out).not.toContain('token da API');
      expect(existsSync(join(dataDir, 'dev-secrets.json'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
