/**
 * Applies pending dbmate migrations. Several replicas may boot at once: one
 * session-level advisory lock serialises them, so only one runs dbmate at a time
 * and the others find nothing pending.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { projectRoot } from '../paths.js';
import pg from 'pg';
import { resolveBinary } from 'dbmate';
import { findPgBinDir } from './pg-bin.js';
import { applyAvailableFunctions, applyRepeatables, type RepeatableResult } from './repeatable.js';

const run = promisify(execFile);
export { projectRoot };
export const migrationsDir = join(projectRoot, 'db', 'migrations');
const MIGRATION_LOCK = 7_245_001; // pg_advisory_lock key reserved for schema changes
/**
 * The baseline (db/migrations/20261124200000_baseline.sql) replaces the 28 migrations up to
 * this version and carries its number: a database at this version counts it as applied, a
 * database with an older history cannot take it (db/README.md, "The baseline").
 */
export const BASELINE_VERSION = '20261124200000';
/** Set on dbmate's connection, so no migration sets it itself: a DDL lock waits at most this long. */
export const MIGRATION_LOCK_TIMEOUT = '5s';

function dbmateEnv(): NodeJS.ProcessEnv {
  let path = process.env.PATH ?? '';
  try { path = `${findPgBinDir()}:${path}`; } catch { /* pg_dump only needed for dumps */ }
  return { ...process.env, PATH: path };
}

export async function dbmate(databaseUrl: string, args: string[], dir = migrationsDir): Promise<string> {
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('sslmode')) url.searchParams.set('sslmode', 'disable');
  // run-time parameters of the URL are sent at connection start (lib/pq)
  url.searchParams.set('lock_timeout', MIGRATION_LOCK_TIMEOUT);
  const { stdout } = await run(resolveBinary(), [
    '--url', url.toString(), '--migrations-dir', dir, '--no-dump-schema', ...args,
  ], { env: dbmateEnv(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

async function appliedVersions(client: pg.Client): Promise<Set<string>> {
  const exists = (await client.query(`select to_regclass('public.schema_migrations') is not null e`)).rows[0].e as boolean;
  if (!exists) return new Set();
  return new Set((await client.query<{ version: string }>('select version from public.schema_migrations')).rows.map((r) => r.version));
}

/** Versions of the migration files (the digits before the first `_`). */
export function migrationVersions(dir = migrationsDir): string[] {
  return readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f)).map((f) => f.slice(0, f.indexOf('_'))).sort();
}

export class MigrationHistoryError extends Error {
  constructor(ultima: string) {
    super(`o banco está na migração ${ultima}, anterior à base ${BASELINE_VERSION}: migre-o antes com a versão 2.2.0 ` +
      `do serviço (que ainda tem as migrações antigas) e depois com esta (db/README.md, "The baseline")`);
    this.name = 'MigrationHistoryError';
  }
}

/**
 * Pending dbmate migrations, then the repeatable definitions of db/functions and db/views
 * (every file after a migration ran, else the files whose text changed), under one lock.
 * Before pending migrations, the function files that can already be applied are applied
 * (applyAvailableFunctions): a migration may create a trigger on a function of db/functions.
 */
export async function migrate(databaseUrl: string): Promise<RepeatableResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await appliedVersions(client);
    if (applied.size > 0 && !applied.has(BASELINE_VERSION)) throw new MigrationHistoryError([...applied].filter((v) => v < BASELINE_VERSION).sort().at(-1) ?? [...applied].sort()[0]!);
    const pending = migrationVersions().filter((v) => !applied.has(v));
    if (pending.length === 0) return await applyRepeatables(client, { all: false });
    // the functions the migrations need (triggers, CHECKs, schedules) first; all of them after
    await applyAvailableFunctions(client);
    await dbmate(databaseUrl, ['migrate']);
    return await applyRepeatables(client, { all: true });
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
