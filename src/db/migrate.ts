/**
 * Applies pending dbmate migrations. Several replicas may boot at once: one
 * session-level advisory lock serialises them, so only one runs dbmate at a time
 * and the others find nothing pending.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { projectRoot } from '../paths.js';
import pg from 'pg';
import { resolveBinary } from 'dbmate';
import { findPgBinDir } from './pg-bin.js';
import { applyRepeatables, type RepeatableResult } from './repeatable.js';

const run = promisify(execFile);
export { projectRoot };
export const migrationsDir = join(projectRoot, 'db', 'migrations');
const MIGRATION_LOCK = 7_245_001; // pg_advisory_lock key reserved for schema changes

function dbmateEnv(): NodeJS.ProcessEnv {
  let path = process.env.PATH ?? '';
  try { path = `${findPgBinDir()}:${path}`; } catch { /* pg_dump only needed for dumps */ }
  return { ...process.env, PATH: path };
}

export async function dbmate(databaseUrl: string, args: string[]): Promise<string> {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('sslmode')) url.searchParams.set('sslmode', 'disable');
  const { stdout } = await run(resolveBinary(), [
    '--url', url.toString(), '--migrations-dir', migrationsDir, '--no-dump-schema', ...args,
  ], { env: dbmateEnv(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

async function appliedMigrations(client: pg.Client): Promise<number> {
  const exists = (await client.query(`select to_regclass('public.schema_migrations') is not null e`)).rows[0].e as boolean;
  if (!exists) return 0;
  return (await client.query<{ n: number }>('select count(*)::int n from public.schema_migrations')).rows[0]!.n;
}

/**
 * Pending dbmate migrations, then the repeatable definitions of db/functions and db/views
 * (every file after a migration ran, else the files whose text changed), under one lock.
 */
export async function migrate(databaseUrl: string): Promise<RepeatableResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const before = await appliedMigrations(client);
    await dbmate(databaseUrl, ['migrate']);
    const ran = (await appliedMigrations(client)) !== before;
    return await applyRepeatables(client, { all: ran });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

/** The schema as dbmate dumps it (the content of db/schema.sql). */
export async function dumpSchema(databaseUrl: string, file: string): Promise<void> {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('sslmode')) url.searchParams.set('sslmode', 'disable');
  await run(resolveBinary(), ['--url', url.toString(), '--migrations-dir', migrationsDir, '--schema-file', file, 'dump'],
    { env: dbmateEnv() });
}
