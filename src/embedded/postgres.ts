/**
 * An embedded PostgreSQL 15 cluster for `npm start` and the test harness:
 * pg_cron preloaded, wal_level=logical, listening on 127.0.0.1 only.
 * When running as root the server runs as the `postgres` OS user (Postgres refuses root).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, readdirSync, writeFileSync, statSync, openSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { findPgBinDir } from '../db/pg-bin.js';


export interface EmbeddedPostgresOptions {
  dataDir: string;
  port?: number;
  /** database where pg_cron lives (`cron.database_name`) */
  cronDatabase: string;
  /** throwaway clusters trade durability for speed */
  durable?: boolean;
  /** more server settings (postgresql.conf syntax for values), over the defaults: a bench's profile */
  settings?: Record<string, string>;
  log?: (msg: string) => void;
}

export interface EmbeddedPostgres {
  port: number;
  /** the server's log */
  logFile: string;
  /** the guardian process (its own session), which stops Postgres when this process ends */
  pid: number;
  url(database: string): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether `port` can be listened on at 127.0.0.1 now (a default port is taken only when free). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer().once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function osUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function chownTree(dir: string, ids: { uid: number; gid: number }): void {
  chownSync(dir, ids.uid, ids.gid);
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) chownTree(p, ids);
    else chownSync(p, ids.uid, ids.gid);
  }
}

async function waitReady(port: number, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let exited = false;
  child.once('exit', () => { exited = true; });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`o Postgres embutido não subiu; veja ${logFile}`);
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    try {
      await c.connect();
      await c.end();
      return;
    } catch {
      await c.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`o Postgres embutido não respondeu em 30 s; veja ${logFile}`);
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = findPgBinDir();
  const ids = osUser();
  const pgdata = join(opts.dataDir, 'pgdata');
  mkdirSync(opts.dataDir, { recursive: true });
  if (ids) chownSync(opts.dataDir, ids.uid, ids.gid);

  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    opts.log?.(`criando cluster Postgres em ${pgdata}`);
    try {
      execFileSync(join(bin, 'initdb'), ['-D', pgdata, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], {
        stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}),
      });
    } catch (err) {
      const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
      throw new Error(`initdb falhou em ${pgdata}${ids ? ' (rodando como o usuário postgres: o diretório e seus pais precisam ser acessíveis a ele)' : ''}: ${stderr}`);
    }
  }
  const durable = opts.durable ?? true;
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${opts.dataDir}'`,
    shared_preload_libraries: "'pg_cron'",
    'cron.database_name': `'${opts.cronDatabase}'`,
    'cron.timezone': "'America/Sao_Paulo'",
    wal_level: 'logical',
    max_replication_slots: '10',
    max_wal_senders: '10',
    max_connections: '200',
    timezone: "'America/Sao_Paulo'",
    fsync: durable ? 'on' : 'off',
    synchronous_commit: durable ? 'on' : 'off',
    full_page_writes: durable ? 'on' : 'off',
    ...opts.settings,
  };
  writeFileSync(join(pgdata, 'postgresql.auto.conf'),
    Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join('\n') + '\n');
  if (ids) chownTree(opts.dataDir, ids);

  const port = opts.port ?? (await freePort());
  const logFile = join(opts.dataDir, 'postgres.log');
  const out = openSync(logFile, 'a');
  if (ids) chownSync(logFile, ids.uid, ids.gid);
  closeSync(out);
  // Postgres runs under a guardian in a session of its own: the terminal's Ctrl-C (sent
  // to the whole foreground process group) does not reach it, so the service can release
  // its jobs before the database stops; and when this process ends in any way (stop(),
  // a crash, SIGKILL) the guardian's stdin closes and it stops Postgres: no orphan.
  const child = spawn(process.execPath, ['-e', GUARDIAN], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: {
      ...process.env,
      BI_PG_GUARDIAN: JSON.stringify({ bin: join(bin, 'postgres'), args: ['-D', pgdata, '-p', String(port)], logFile, ...(ids ?? {}) }),
    },
  });
  await waitReady(port, child, logFile);
  opts.log?.(`Postgres embutido em 127.0.0.1:${port} (log: ${logFile})`);

  return {
    port,
    logFile,
    pid: child.pid!,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.stdin?.end(); // the guardian asks Postgres for a fast shutdown
    }),
  };
}

/**
 * The guardian (run with `node -e`): starts Postgres, ignores SIGINT/SIGHUP, and asks
 * Postgres for a fast shutdown (SIGINT; SIGQUIT after 20 s) when its stdin closes or on
 * SIGTERM. It exits with Postgres.
 */
const GUARDIAN = `
const { spawn } = require('node:child_process');
const { openSync } = require('node:fs');
const cfg = JSON.parse(process.env.BI_PG_GUARDIAN);
delete process.env.BI_PG_GUARDIAN;
const out = openSync(cfg.logFile, 'a');
const opts = { stdio: ['ignore', out, out] };
if (cfg.uid !== undefined) { opts.uid = cfg.uid; opts.gid = cfg.gid; }
const pg = spawn(cfg.bin, cfg.args, opts);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  pg.kill('SIGINT');
  setTimeout(() => pg.kill('SIGQUIT'), 20000).unref();
};
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
pg.on('error', () => process.exit(1));
pg.on('exit', (code) => process.exit(code ?? 1));
`;

/** Creates `database` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await c.query(`create database ${pg.escapeIdentifier(database)}`);
  } finally {
    await c.end();
  }
}
