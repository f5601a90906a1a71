/**
 * Repeatable definitions: every SQL function lives in one file under db/functions/ and every
 * view in one file under db/views/, as `create or replace` text plus its comment and grants.
 * They are applied after the dbmate migrations, in the same advisory-locked step (Flyway's
 * repeatable migrations, Supabase's declarative schemas):
 *
 * - a file whose SHA-256 differs from the one recorded in app.repeatable_file (or that is not
 *   recorded) is applied again;
 * - after any dbmate migration every file is applied again (a migration may have dropped a
 *   view to change its table);
 * - all in one transaction with check_function_bodies off; a file that needs another one not
 *   applied yet (undefined table, function or type) is retried after the others, so file
 *   order does not matter; a file that still fails aborts everything, naming the file.
 *
 * Tables, data changes and drops stay in dbmate migrations (with real downs). A fix to a
 * function is then a diff of the lines that changed in its file.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { projectRoot } from '../paths.js';

export const definitionsRoot = join(projectRoot, 'db');
export const REPEATABLE_DIRS = ['functions', 'views'] as const;

export interface RepeatableFile {
  /** Path relative to db/ (`functions/public.xls_merge.sql`). */
  arquivo: string;
  sql: string;
  sha256: string;
}

/** The files of db/functions then db/views, each folder in name order. */
export function listRepeatables(root = definitionsRoot): RepeatableFile[] {
  const out: RepeatableFile[] = [];
  for (const dir of REPEATABLE_DIRS) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).filter((f) => f.endsWith('.sql')).sort()) {
      const sql = readFileSync(join(abs, name), 'utf8');
      out.push({ arquivo: `${dir}/${name}`, sql, sha256: createHash('sha256').update(sql).digest('hex') });
    }
  }
  return out;
}

/** SQLSTATEs of a definition that needs one applied later: retried after the others. */
const NEEDS_ANOTHER = new Set(['42P01', '42883', '42704', '3F000']);

export class RepeatableError extends Error {
  constructor(readonly arquivo: string, override readonly cause: Error & { code?: string }) {
    super(`db/${arquivo}: ${cause.message}`);
    this.name = 'RepeatableError';
  }
}

export interface RepeatableResult { aplicados: string[]; inalterados: number }

/**
 * Before pending migrations: every file of db/functions that can be applied on the schema as
 * it is (in one transaction, check_function_bodies off, each file in a savepoint; a file that
 * fails — its argument or return type is a table not created yet, say — is left for the pass
 * after the migrations). So the functions that migrations need exist when they run: trigger
 * and event-trigger functions, the functions called by CHECK constraints, seeds and
 * schedules. Nothing is recorded: the pass after the migrations applies every file again.
 * The `app` schema is created here when missing (a fresh database): its functions are the
 * triggers' and the schedules'.
 */
export async function applyAvailableFunctions(client: pg.ClientBase, root = definitionsRoot): Promise<string[]> {
  const files = listRepeatables(root).filter((f) => f.arquivo.startsWith('functions/'));
  const applied: string[] = [];
  await client.query('begin');
  try {
    await client.query(`set local check_function_bodies = off`);
    await client.query(`set local lock_timeout = '10s'`);
    await client.query('create schema if not exists app');
    let queue = files;
    for (;;) {
      const failed: RepeatableFile[] = [];
      for (const file of queue) {
        await client.query('savepoint repeatable');
        try {
          await client.query(file.sql);
          await client.query('release savepoint repeatable');
          applied.push(file.arquivo);
        } catch {
          await client.query('rollback to savepoint repeatable');
          failed.push(file);
        }
      }
      if (failed.length === 0 || failed.length === queue.length) break;
      queue = failed;
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  }
  return applied;
}

/**
 * Applies the repeatable definitions on `client` (which must hold the migration lock). With
 * `all`, every file; otherwise only files whose text changed. One transaction.
 */
export async function applyRepeatables(client: pg.ClientBase, opts: { all?: boolean; root?: string } = {}): Promise<RepeatableResult> {
  const files = listRepeatables(opts.root);
  const recorded = new Map<string, string>(
    (await client.query<{ arquivo: string; sha256: string }>('select arquivo, sha256 from app.repeatable_file')).rows
      .map((r) => [r.arquivo, r.sha256]));
  const pending = files.filter((f) => opts.all || recorded.get(f.arquivo) !== f.sha256);
  if (pending.length === 0) return { aplicados: [], inalterados: files.length };
  await client.query('begin');
  try {
    await client.query(`set local check_function_bodies = off`);
    await client.query(`set local lock_timeout = '10s'`);
    let queue = pending;
    for (;;) {
      const deferred: Array<{ file: RepeatableFile; err: Error & { code?: string } }> = [];
      for (const file of queue) {
        await client.query('savepoint repeatable');
        try {
          await client.query(file.sql);
          await client.query('release savepoint repeatable');
        } catch (err) {
          await client.query('rollback to savepoint repeatable');
          const e = err as Error & { code?: string };
          if (!e.code || !NEEDS_ANOTHER.has(e.code)) throw new RepeatableError(file.arquivo, e);
          deferred.push({ file, err: e });
        }
      }
      if (deferred.length === 0) break;
      if (deferred.length === queue.length) throw new RepeatableError(deferred[0]!.file.arquivo, deferred[0]!.err);
      queue = deferred.map((d) => d.file);
    }
    await client.query(
      `insert into app.repeatable_file (arquivo, sha256)
       select * from unnest($1::text[], $2::text[])
       on conflict (arquivo) do update set sha256 = excluded.sha256, aplicado_em = now()`,
      [pending.map((f) => f.arquivo), pending.map((f) => f.sha256)]);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  }
  return { aplicados: pending.map((f) => f.arquivo), inalterados: files.length - pending.length };
}
