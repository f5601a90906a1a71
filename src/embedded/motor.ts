/**
 * The sync engine as a child of `npm start` (when SYNC_ENGINE_CMD is set, alongside the
 * embedded database only). SYNC_ENGINE_CMD is a command line; `start -c <configuration
 * file>` is appended to it, the configuration being the repository's own
 * sync-engine/powersync.yaml, fed through the PS_* variables it names (ambienteDoMotor).
 *
 * prepararMotor, before the service boots: the engine's role `bi_motor` (LOGIN
 * REPLICATION, a member of the read role bi_sync_reader, as in docker-compose), its storage
 * database (bi_comercial_motor, owned by that role), a port (54331 when free), a local
 * endpoint speaking the hosting platform's API (hosting-local.ts) whose suspend and resume
 * stop and start the engine, and the service's variables: SYNC_ENGINE_URL,
 * REPLICATOR_DOCSTORE_URL (the storage database) and REPLICATOR_RESTART=hosting against that
 * endpoint, so that a reset started in development drives the engine as in production.
 * Then start(), once the migrations have run (the engine needs the publication): the engine
 * runs under a guardian in a session of its own (the terminal's Ctrl-C does not reach it;
 * the guardian stops it when this process ends in any way, even SIGKILL), from the directory
 * `npm start` runs in (a relative path in SYNC_ENGINE_CMD means what it means there; the
 * configuration's probes are HTTP only, so the engine writes no file there), its output in
 * .data/logs/motor.log. An engine that exits by itself is reported in one line; the service
 * goes on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../paths.js';
import { startHostingLocal, type HostingLocal } from './hosting-local.js';
import { freePort, portIsFree } from './postgres.js';

/** The engine's configuration in the repository: the same file docker-compose mounts. */
export const MOTOR_CONFIG = join(projectRoot, 'sync-engine', 'powersync.yaml');
/** The engine's port when free (after the embedded Postgres' 54329 and object store's 54330). */
export const MOTOR_PORTA_PADRAO = 54331;
/** The engine's role and storage database in the embedded cluster. */
export const MOTOR_ROLE = 'bi_motor';
export const MOTOR_STORAGE_DB = 'bi_comercial_motor';
/** The development secrets the engine needs (.data/dev-secrets.json), by name and how each is made. */
export const SEGREDOS_DO_MOTOR: Record<string, () => string> = {
  // the phones' token signing key: HS256, 32 random bytes, base64url (PS_JWT_SECRET)
  SYNC_ENGINE_JWT_SECRET: () => randomBytes(32).toString('base64url'),
  // the engine's admin API token (PS_API_TOKEN)
  SYNC_ENGINE_API_TOKEN: () => `dev-motor-${randomBytes(18).toString('base64url')}`,
};

export interface AmbienteDoMotor {
  sourceUri: string;
  storageUri: string;
  port: number;
  jwtSecret: string;
  apiToken: string;
  /** `disable` on loopback; production uses verify-full */
  sslmode?: 'disable' | 'verify-ca' | 'verify-full';
}

/** The PS_* variables sync-engine/powersync.yaml reads (`!env`), for one engine. */
export function ambienteDoMotor(a: AmbienteDoMotor): Record<string, string> {
  const sslmode = a.sslmode ?? 'disable';
  return {
    PS_DATA_SOURCE_URI: a.sourceUri,
    PS_DATA_SOURCE_SSLMODE: sslmode,
    PS_STORAGE_URI: a.storageUri,
    PS_STORAGE_SSLMODE: sslmode,
    PS_PORT: String(a.port),
    PS_JWT_SECRET: a.jwtSecret,
    PS_API_TOKEN: a.apiToken,
  };
}

// ---------------------------------------------------------------------------------------
// the child process

export interface ProcessoMotor {
  readonly running: boolean;
  /** the guardian's pid (the engine is in a process group of its own under it), or null */
  readonly pid: number | null;
  /** starts the engine unless it runs; resolves once it is spawned */
  start(): Promise<void>;
  /** stops it (SIGTERM to its process group, SIGKILL after 15 s) and waits for its end */
  stop(): Promise<void>;
}

export interface ProcessoMotorOptions {
  /** SYNC_ENGINE_CMD: a command line, run by /bin/sh with ` start -c <config>` appended */
  command: string;
  config: string;
  /** the engine's environment (PATH and HOME are added) */
  env: Record<string, string>;
  /** its working directory (default: this process's) */
  cwd?: string;
  logFile: string;
  log: (msg: string) => void;
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function processoMotor(opts: ProcessoMotorOptions): ProcessoMotor {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  const line = (text: string) => {
    const fd = openSync(opts.logFile, 'a');
    try { writeSync(fd, `\n=== ${new Date().toISOString()} ${text} ===\n`); } finally { closeSync(fd); }
  };

  return {
    get running() { return child !== null; },
    get pid() { return child?.pid ?? null; },
    async start() {
      if (child) return;
      line(`motor iniciado: ${opts.command} start -c ${opts.config}`);
      const out = openSync(opts.logFile, 'a');
      const c = spawn(process.execPath, ['-e', GUARDIAN], {
        cwd: opts.cwd ?? process.cwd(),
        detached: true,
        stdio: ['pipe', out, out],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: homedir(),
          ...opts.env,
          BI_MOTOR_GUARDIAN: `exec ${opts.command} start -c ${shQuote(opts.config)}`,
        },
      });
      closeSync(out);
      child = c;
      stopping = false;
      exited = new Promise<void>((resolve) => {
        c.once('exit', (code, signal) => {
          if (child === c) child = null;
          if (!stopping) {
            line(`motor terminou sozinho (${signal ?? `código ${code}`})`);
            opts.log(`motor de sincronização terminou inesperadamente (${signal ?? `código ${code}`}); o serviço continua. Veja ${opts.logFile}`);
          } else {
            line('motor parado');
          }
          resolve();
        });
      });
      await new Promise<void>((resolve, reject) => {
        c.once('spawn', () => resolve());
        c.once('error', reject);
      });
    },
    async stop() {
      const c = child;
      if (!c) return exited;
      stopping = true;
      c.stdin?.end(); // the guardian stops the engine's process group
      await exited;
    },
  };
}

/**
 * The guardian (run with `node -e`): runs the engine's command line (BI_MOTOR_GUARDIAN) in
 * a process group of its own, ignores SIGINT/SIGHUP, stops that group (SIGTERM; SIGKILL
 * after 15 s) when its stdin closes (the parent stopped it or died) or on SIGTERM, and exits
 * with the engine (killing what it left in its group).
 */
const GUARDIAN = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const cmd = process.env.BI_MOTOR_GUARDIAN;
delete process.env.BI_MOTOR_GUARDIAN;
const engine = spawn('/bin/sh', ['-c', cmd], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
let stopping = false;
const group = (sig) => { try { process.kill(-engine.pid, sig); } catch { /* gone */ } };
const stop = () => {
  if (stopping) return;
  stopping = true;
  group('SIGTERM');
  setTimeout(() => group('SIGKILL'), 15000).unref();
};
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
engine.on('error', (err) => { process.stderr.write(String(err) + '\\n'); process.exit(127); });
engine.on('exit', (code, signal) => {
  group('SIGKILL'); // whatever the engine left behind in its group
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
`;

/** Waits until the engine answers GET /probes/liveness, it exits, or `ms` pass. */
export async function aguardarMotor(url: string, processo: ProcessoMotor, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!processo.running) return false;
    try {
      const res = await fetch(`${url}/probes/liveness`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// npm start's engine

export interface MotorEmbutido {
  /** the engine's base URL (SYNC_ENGINE_URL) */
  url: string;
  logFile: string;
  hosting: HostingLocal;
  /** what the service is to be started with (set where not already set) */
  serviceEnv: Record<string, string>;
  /** starts the engine and waits for it to answer (`ms`); false when it did not */
  start(ms?: number): Promise<boolean>;
  /** stops the engine and the local endpoint */
  stop(): Promise<void>;
}

export interface MotorEmbutidoOptions {
  /** SYNC_ENGINE_CMD */
  command: string;
  /** .data: where the engine's log (logs/motor.log) and URL (motor-url) go */
  dataDir: string;
  /** the embedded cluster (superuser, trust authentication) */
  pgPort: number;
  /** the service's database (the engine's source) */
  sourceDatabase: string;
  /** a fixed port (0: any free one); by default 54331 when free */
  port?: number;
  jwtSecret: string;
  apiToken: string;
  log: (msg: string) => void;
}

/** Role, storage database, port and local hosting endpoint; the engine itself starts with start(). */
export async function prepararMotor(opts: MotorEmbutidoOptions): Promise<MotorEmbutido> {
  // trust authentication in the embedded cluster: any password is accepted, but the engine
  // refuses a URI without one
  const senha = 'dev';
  const pgUrl = (user: string, database: string) => `postgres://${user}:${senha}@127.0.0.1:${opts.pgPort}/${database}`;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${opts.pgPort}/postgres` });
  await admin.connect();
  try {
    // bi_sync_reader as the migrations create it (they skip it when it exists); the engine's
    // role reads the bi_* tables through it, as in docker-compose (docker/initdb/)
    await admin.query(`do $$ begin
      if not exists (select from pg_roles where rolname = 'bi_sync_reader') then create role bi_sync_reader nologin; end if;
      if not exists (select from pg_roles where rolname = '${MOTOR_ROLE}') then create role ${MOTOR_ROLE} login replication; end if;
    end $$`);
    await admin.query(`alter role ${MOTOR_ROLE} login replication password '${senha}'`);
    await admin.query(`grant bi_sync_reader to ${MOTOR_ROLE}`);
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [MOTOR_STORAGE_DB]);
    if (!rowCount) await admin.query(`create database ${MOTOR_STORAGE_DB} owner ${MOTOR_ROLE}`);
  } finally {
    await admin.end();
  }

  const port = opts.port === undefined
    ? ((await portIsFree(MOTOR_PORTA_PADRAO)) ? MOTOR_PORTA_PADRAO : await freePort())
    : opts.port || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const storageUrl = pgUrl(MOTOR_ROLE, MOTOR_STORAGE_DB);
  const logFile = join(opts.dataDir, 'logs', 'motor.log');
  mkdirSync(join(opts.dataDir, 'logs'), { recursive: true });
  const processo = processoMotor({
    command: opts.command,
    config: MOTOR_CONFIG,
    env: {
      // PS_* of the caller's environment (PS_LOG_LEVEL, …) pass on; the configuration's own win
      ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('PS_') && e[1] !== undefined)),
      ...ambienteDoMotor({
        sourceUri: pgUrl(MOTOR_ROLE, opts.sourceDatabase), storageUri: storageUrl, port,
        jwtSecret: opts.jwtSecret, apiToken: opts.apiToken,
      }),
    },
    logFile,
    log: opts.log,
  });
  const hosting = await startHostingLocal(processo, {
    apiKey: `rnd_dev${randomBytes(18).toString('base64url')}`,
    serviceId: `srv-dev${randomBytes(6).toString('hex')}`,
    log: opts.log,
  });
  const urlFile = join(opts.dataDir, 'motor-url');
  writeFileSync(urlFile, `${url}\n`);

  return {
    url, logFile, hosting,
    serviceEnv: {
      SYNC_ENGINE_URL: url,
      REPLICATOR_DOCSTORE_URL: `${storageUrl}?schema=powersync`,
      REPLICATOR_RESTART: 'hosting',
      REPLICATOR_HOSTING_API_URL: hosting.url,
      REPLICATOR_HOSTING_API_KEY: hosting.apiKey,
      REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId,
    },
    async start(ms = 90_000) {
      await processo.start();
      return aguardarMotor(url, processo, ms);
    },
    async stop() {
      // no suspend or resume after this one: what was asked is carried out first
      await hosting.close().catch(() => undefined);
      await hosting.idle();
      await processo.stop();
      rmSync(urlFile, { force: true });
    },
  };
}
