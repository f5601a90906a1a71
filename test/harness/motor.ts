/**
 * The real sync engine of the `engine` lane: the command in SYNC_ENGINE_CMD (a command line;
 * this harness appends `start -c <configuration file>`), started for one test database with
 * the repository's own configuration (sync-engine/powersync.yaml, every value from PS_*
 * variables set here) and a storage database of its own on the same server.
 *
 * startMotor() resolves once the engine has done its initial copy (storage `sync_rules` ACTIVE,
 * snapshot_done, a checkpoint, their slot held) and answers its liveness probe. `regrasSync`
 * runs it with another sync configuration than the repository's (an engine deployed with a
 * different file: it serves something else than the phones should hold). stop() and start() are what a
 * hosting platform's suspend and resume do (test/harness/fake-hosting.ts drives any
 * FakeSyncEngine, this one included): start() after the reset dropped the storage schema and
 * the slot gives a new slot and a new initial copy. close() stops it, drops its slots (a
 * database with a slot cannot be dropped) and its storage database.
 *
 * The engine's log goes to test-artifacts/motor/<database>.log, removed by close() unless a
 * test of the file failed (pass afterAll's suite to close()).
 *
 * Also here: what the phones should hold, from Postgres (dumpPostgres, derived from
 * sync-engine/sync-rules.yaml: each data query is `SELECT cols FROM bi_x [WHERE …]`), and a
 * wait until a phone holds exactly that for every synced table (a diff on timeout).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../../src/paths.js';
import { freePort } from '../../src/embedded/postgres.js';
import { adminQuery, urlFor, type TestDatabase } from './db.js';
import { analisar } from '../replicacao/sync-config.js';
import type { FakeSyncEngine } from './sync-engine.js';
import { Celular } from '../../src/celular/celular.js';
import { tokenCelular } from '../../src/celular/token.js';

/** The engine's command line, or undefined: the `engine` lane runs only when it is set. */
export const SYNC_ENGINE_CMD = process.env.SYNC_ENGINE_CMD?.trim() || undefined;

export const MOTOR_CONFIG = join(projectRoot, 'sync-engine', 'powersync.yaml');
const LOGS = join(projectRoot, 'test-artifacts', 'motor');

export interface Motor extends FakeSyncEngine {
  /** the base URL phones connect to */
  readonly url: string;
  /** PS_JWT_SECRET: the HS256 key of phone tokens, base64url */
  readonly jwtSecret: string;
  /** the engine's admin API token (PS_API_TOKEN) */
  readonly apiToken: string;
  /** the source database (the test database) */
  readonly sourceUrl: string;
  /** the engine's storage database (it creates and migrates the schema `powersync` in it) */
  readonly storageUrl: string;
  /** the same, as the reset's REPLICATOR_DOCSTORE_URL names it (`?schema=powersync`) */
  readonly docstoreUrl: string;
  readonly storageDb: string;
  /** the engine's log (stdout and stderr of every start) */
  readonly logFile: string;
  /** a phone's token for `usuario` (the reference phone's tokenCelular, with this engine's key) */
  token(usuario?: string, validadeS?: number): string;
  /**
   * Waits until the engine has replicated everything committed in the source database so far:
   * emits a keepalive message there (what the engine itself does) and waits for a checkpoint at
   * or after it. Returns the storage's last checkpoint (an op id).
   */
  aguardarReplicacao(timeoutMs?: number): Promise<bigint>;
  /**
   * The sync configuration of the next start() (the text of a sync-rules.yaml; undefined: the
   * repository's): an engine redeployed with another file, e.g. while a reset has it suspended.
   */
  usarRegrasSync(texto: string | undefined): void;
  /** a query on the storage database (schema `powersync`) */
  storage<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** stops, drops its slots and its storage database; keeps the log when `suite` had a failure */
  close(suite?: unknown): Promise<void>;
}

/** True when a task (test, suite or file, as vitest passes them to hooks) or one below it failed. */
export function falhou(task: unknown): boolean {
  const t = task as { result?: { state?: string; errors?: unknown[] }; tasks?: unknown[] } | undefined;
  if (!t) return false;
  if (t.result?.state === 'fail' || (t.result?.errors?.length ?? 0) > 0) return true;
  return (t.tasks ?? []).some(falhou);
}

/** A Postgres URL with a password (the engine refuses one without; trust authentication accepts any). */
function comSenha(url: string): string {
  const u = new URL(url);
  if (!u.password) u.password = 'motor';
  return u.toString();
}

async function comCliente<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** `0/2F7DFC0` and `00000000/02F7DFC0` as one comparable form. */
export function lsnComparavel(lsn: string): string {
  const [hi, lo] = lsn.split('/');
  return `${hi!.padStart(8, '0')}/${lo!.padStart(8, '0')}`.toUpperCase();
}

const vivos = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of vivos) { try { c.kill('SIGKILL'); } catch { /* gone */ } }
});

function cauda(file: string, bytes = 4000): string {
  try {
    const t = readFileSync(file, 'utf8');
    return t.slice(-bytes);
  } catch {
    return '';
  }
}

export interface OpcoesMotor {
  /** the engine's command line (default SYNC_ENGINE_CMD) */
  cmd?: string;
  /** how long start() waits for the initial copy (default 120 s) */
  timeoutMs?: number;
  /**
   * Another sync configuration for this engine (the text of a sync-rules.yaml), instead of
   * sync-engine/sync-rules.yaml: written to a folder of its own next to a copy of
   * sync-engine/powersync.yaml. What the phones should hold (dumpPostgres) still follows the
   * repository's file: an engine that serves something else differs from it.
   */
  regrasSync?: string;
}

/**
 * Starts the engine for `db` (its own storage database `<db>_motor` on the same server) and
 * waits for its initial copy. `cmd` defaults to SYNC_ENGINE_CMD.
 */
export async function startMotor(db: Pick<TestDatabase, 'name' | 'url'>, opts: OpcoesMotor = {}): Promise<Motor> {
  const cmd = opts.cmd ?? SYNC_ENGINE_CMD;
  if (!cmd) throw new Error('SYNC_ENGINE_CMD não definida: o motor de sincronização não pode ser iniciado');
  const storageDb = `${db.name}_motor`;
  await adminQuery(`drop database if exists ${pg.escapeIdentifier(storageDb)} with (force)`);
  await adminQuery(`create database ${pg.escapeIdentifier(storageDb)}`);
  const sourceUrl = comSenha(db.url);
  const storageUrl = comSenha(urlFor(storageDb));
  const docstore = new URL(storageUrl);
  docstore.searchParams.set('schema', 'powersync');
  const jwtSecret = randomBytes(32).toString('base64url');
  const apiToken = randomBytes(16).toString('hex');
  mkdirSync(LOGS, { recursive: true });
  const logFile = join(LOGS, `${db.name}.log`);
  rmSync(logFile, { force: true });
  const dir = mkdtempSync(join(tmpdir(), 'bi-motor-'));
  // the configuration file: the repository's, or a copy of it next to another sync configuration
  // (a folder of its own each time: a running engine keeps reading what it started with)
  let config = MOTOR_CONFIG;
  let versoes = 0;
  function usarRegrasSync(texto: string | undefined): void {
    if (texto === undefined) { config = MOTOR_CONFIG; return; }
    const configDir = join(dir, `config-${++versoes}`);
    mkdirSync(configDir);
    writeFileSync(join(configDir, 'powersync.yaml'), readFileSync(MOTOR_CONFIG, 'utf8'));
    writeFileSync(join(configDir, 'sync-rules.yaml'), texto);
    config = join(configDir, 'powersync.yaml');
  }
  usarRegrasSync(opts.regrasSync);
  const slots: string[] = [];
  let child: ChildProcess | null = null;
  // one address for its whole life, as a hosting platform's service keeps its URL across a
  // suspend and a resume (a phone keeps the URL it was given)
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;

  const storage = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    comCliente(storageUrl, async (c) => (await c.query<T>(sql, params)).rows);

  /** the ACTIVE sync rules of the storage, or undefined while the engine has not created them */
  async function ativa(): Promise<{ snapshot_done: boolean; last_checkpoint: string | null; last_checkpoint_lsn: string | null; slot_name: string } | undefined> {
    try {
      const rows = await storage<{ snapshot_done: boolean; last_checkpoint: string | null; last_checkpoint_lsn: string | null; slot_name: string }>(
        `select snapshot_done, last_checkpoint::text, last_checkpoint_lsn, slot_name from powersync.sync_rules where state = 'ACTIVE' order by id desc limit 1`);
      return rows[0];
    } catch {
      return undefined; // schema not there yet
    }
  }

  async function stop(): Promise<void> {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const saiu = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const t = setTimeout(() => { try { c.kill('SIGKILL'); } catch { /* gone */ } }, 15_000);
    await saiu;
    clearTimeout(t);
  }

  async function start(): Promise<string> {
    await stop();
    const out = openSync(logFile, 'a');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PS_DATA_SOURCE_URI: sourceUrl,
      PS_DATA_SOURCE_SSLMODE: 'disable',
      PS_STORAGE_URI: storageUrl,
      PS_STORAGE_SSLMODE: 'disable',
      PS_PORT: String(port),
      PS_JWT_SECRET: jwtSecret,
      PS_API_TOKEN: apiToken,
    };
    // the command line as the shell reads it, then `start -c <configuration>`
    // its working directory is a folder of its own: the engine writes its probe files (.probes/) there
    const c = spawn('/bin/sh', ['-c', `exec ${cmd} "$@"`, 'motor', 'start', '-c', config],
      { cwd: dir, env, stdio: ['ignore', out, out] });
    closeSync(out);
    child = c;
    vivos.add(c);
    c.once('exit', () => { vivos.delete(c); if (child === c) child = null; });
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      if (c.exitCode !== null || c.signalCode !== null || child !== c) {
        throw new Error(`o motor saiu (${c.exitCode ?? c.signalCode}) antes de ficar pronto; log ${logFile}:\n${cauda(logFile)}`);
      }
      const r = await ativa();
      // its slot held as well: started after its slot was dropped (a reset whose DROP_DOCSTORE
      // failed), the engine still has the old rules ACTIVE, with their copy done, until it has
      // copied everything again under new rules on a new slot
      if (r?.snapshot_done && r.last_checkpoint !== null && await slotAtivo(r.slot_name) && await vivo()) {
        if (!slots.includes(r.slot_name)) slots.push(r.slot_name);
        return r.slot_name;
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`o motor não concluiu a cópia inicial em ${opts.timeoutMs ?? 120_000} ms; log ${logFile}:\n${cauda(logFile)}`);
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  async function slotAtivo(slot: string): Promise<boolean> {
    return comCliente(sourceUrl, async (c) => (await c.query<{ active: boolean }>(
      'select active from pg_replication_slots where slot_name = $1 and database = current_database()', [slot])).rows[0]?.active === true);
  }

  async function vivo(): Promise<boolean> {
    try {
      const r = await fetch(`${url}/probes/liveness`, { signal: AbortSignal.timeout(2000) });
      return r.ok;
    } catch {
      return false;
    }
  }

  const motor: Motor = {
    get running() { return child !== null; },
    slots,
    url,
    jwtSecret, apiToken, sourceUrl, storageUrl, storageDb, logFile,
    docstoreUrl: docstore.toString(),
    start,
    stop,
    storage,
    usarRegrasSync,
    token(usuario = 'vendedor.teste', validadeS = 3600) {
      return tokenCelular(jwtSecret, usuario, validadeS);
    },
    async aguardarReplicacao(timeoutMs = 60_000) {
      const lsn = await comCliente(sourceUrl, async (c) =>
        (await c.query<{ lsn: string }>(`select pg_logical_emit_message(false, 'powersync', 'ping')::text lsn`)).rows[0]!.lsn);
      const alvo = lsnComparavel(lsn);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await ativa();
        if (r?.last_checkpoint_lsn && lsnComparavel(r.last_checkpoint_lsn) >= alvo && r.last_checkpoint !== null) return BigInt(r.last_checkpoint);
        if (Date.now() > deadline) throw new Error(`o motor não replicou até ${lsn} em ${timeoutMs} ms (último checkpoint: ${r?.last_checkpoint_lsn}); log ${logFile}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    },
    async close(suite?: unknown) {
      await stop();
      // its slots (and any other prefixed slot left in this throwaway database), once inactive
      await comCliente(sourceUrl, async (c) => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const { rows } = await c.query<{ slot_name: string; active: boolean }>(
            `select slot_name, active from pg_replication_slots where database = current_database() and slot_name like 'powersync\\_%'`);
          const ativos = rows.filter((r) => r.active);
          for (const r of rows.filter((x) => !x.active)) await c.query('select pg_drop_replication_slot($1)', [r.slot_name]);
          if (ativos.length === 0) break;
          if (Date.now() > deadline) throw new Error(`slots do motor ainda ativos: ${ativos.map((a) => a.slot_name).join(', ')}`);
          await new Promise((res) => setTimeout(res, 100));
        }
      });
      await adminQuery(`drop database if exists ${pg.escapeIdentifier(storageDb)} with (force)`);
      rmSync(dir, { recursive: true, force: true });
      if (!falhou(suite) && existsSync(logFile)) rmSync(logFile, { force: true });
    },
  };
  try {
    await start();
  } catch (e) {
    await motor.close({ result: { state: 'fail' } }).catch(() => undefined);
    throw e;
  }
  return motor;
}

// ---------------------------------------------------------------------------------------
// What the phones should hold

/** A synced table: its bucket, its columns (as the phone has them) and the query's filter. */
export interface TabelaSincronizada { tabela: string; bucket: string; prioridade: number | undefined; colunas: string[]; where: string | null }

let configuracao: Promise<TabelaSincronizada[]> | undefined;

/** The data queries of sync-engine/sync-rules.yaml (parsed by the engine's own parser), one per table. */
export function tabelasSincronizadas(db: Pick<TestDatabase, 'pool'>): Promise<TabelaSincronizada[]> {
  configuracao ??= analisar(db.pool).then((a) => {
    if (a.errors.length > 0) throw new Error(`sync-rules.yaml: ${a.errors.map((e) => e.message).join('; ')}`);
    return a.queries.map((q) => {
      const m = /^\s*SELECT\s+[\s\S]+?\s+FROM\s+\S+(?:\s+WHERE\s+([\s\S]+?))?\s*$/i.exec(q.sql);
      if (!m) throw new Error(`consulta de dados fora da forma SELECT cols FROM tabela [WHERE …]: ${q.sql}`);
      return { tabela: q.table, bucket: q.bucket, prioridade: a.priorities[q.bucket], colunas: q.columns, where: m[1] ?? null };
    });
  });
  return configuracao;
}

/**
 * How each column travels: the engine sends booleans as 1/0, timestamptz in UTC as
 * `YYYY-MM-DD HH:MM:SS[.ffffff]Z` (the fraction as Postgres prints it), dates as `YYYY-MM-DD`,
 * numeric, integers, uuid and text as Postgres prints them. (No synced column has another type;
 * a new one needs its form here.)
 */
const TIPOS_CONHECIDOS = new Set(['bool', 'timestamptz', 'date', 'numeric', 'int2', 'int4', 'int8', 'uuid', 'varchar', 'text']);
function expressao(coluna: string, tipo: string): string {
  if (!TIPOS_CONHECIDOS.has(tipo)) throw new Error(`coluna sincronizada ${coluna} de tipo ${tipo}: diga em test/harness/motor.ts como o motor a envia`);
  const c = pg.escapeIdentifier(coluna);
  switch (tipo) {
    case 'bool': return `case when ${c} then '1' when not ${c} then '0' end`;
    case 'timestamptz': return `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') || rtrim(rtrim(to_char(${c}, '.US'), '0'), '.') || 'Z'`;
    case 'date': return `to_char(${c}, 'YYYY-MM-DD')`;
    default: return `${c}::text`;
  }
}

const tipos = new Map<string, Map<string, string>>();
async function tiposDe(db: Pick<TestDatabase, 'pool'>, tabela: string): Promise<Map<string, string>> {
  let t = tipos.get(tabela);
  if (!t) {
    const { rows } = await db.pool.query<{ column_name: string; udt_name: string }>(
      `select column_name, udt_name from information_schema.columns where table_schema = 'public' and table_name = $1`, [tabela]);
    t = new Map(rows.map((r) => [r.column_name, r.udt_name]));
    tipos.set(tabela, t);
  }
  return t;
}

export type Linha = Record<string, string | null>;

/** A numeric value in one form: no trailing zeros after the point (5000.50 and 5000.5 are one value). */
function decimal(v: string): string {
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v)) return v;
  const n = /e/i.test(v) ? String(Number(v)) : v;
  const s = n.includes('.') ? n.replace(/0+$/, '').replace(/\.$/, '') : n;
  return s === '-0' ? '0' : s;
}

const NUMERICOS = new Set(['numeric', 'float4', 'float8']);

/** One value in the form both sides are compared in: text, numerics without trailing zeros. */
function canonico(v: unknown, tipo: string | undefined): string | null {
  if (v === null || v === undefined) return null;
  const s = typeof v === 'bigint' || typeof v === 'number' ? String(v) : typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  return tipo && NUMERICOS.has(tipo) ? decimal(s) : s;
}

/**
 * What a phone should hold of `tabela`: the synced columns of the rows the sync configuration
 * sends (its WHERE), ordered by id, every value as the engine sends it, in text.
 */
export async function dumpPostgres(db: Pick<TestDatabase, 'pool'>, tabela: string): Promise<Linha[]> {
  const t = (await tabelasSincronizadas(db)).find((x) => x.tabela === tabela);
  if (!t) throw new Error(`${tabela} não é sincronizada (sync-engine/sync-rules.yaml)`);
  const ts = await tiposDe(db, tabela);
  const lista = t.colunas.map((c) => `${expressao(c, ts.get(c) ?? 'text')} as ${pg.escapeIdentifier(c)}`).join(', ');
  const { rows } = await db.pool.query<Linha>(
    `select ${lista} from public.${pg.escapeIdentifier(tabela)}${t.where ? ` where ${t.where}` : ''} order by id`);
  return rows.map((r) => Object.fromEntries(t.colunas.map((c) => [c, canonico(r[c], ts.get(c))])));
}

/** What a phone must offer the comparison: its rows of a table (any order) and, cheaply, how many. */
export interface CelularComparavel {
  linhas(tabela: string): Promise<Array<Record<string, unknown>>>;
  contagens(): Promise<Record<string, number>>;
}

/** A phone's rows of `tabela`, ordered by id, in the comparison's form. */
export async function dumpCelular(db: Pick<TestDatabase, 'pool'>, celular: CelularComparavel, tabela: string): Promise<Linha[]> {
  const t = (await tabelasSincronizadas(db)).find((x) => x.tabela === tabela)!;
  const ts = await tiposDe(db, tabela);
  return (await celular.linhas(tabela))
    .map((r) => Object.fromEntries(t.colunas.map((c) => [c, canonico(r[c], ts.get(c))])) as Linha)
    .sort((a, b) => (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0));
}

export interface Diferenca { tabela: string; postgres: number; celular: number; faltam: Linha[]; sobram: Linha[]; diferentes: Array<{ postgres: Linha; celular: Linha }> }

/** Row by row, by id: what the phone lacks, what it has beyond Postgres, what differs. */
export function comparar(tabela: string, postgres: Linha[], celular: Linha[]): Diferenca | null {
  const noCelular = new Map(celular.map((r) => [r.id, r]));
  const noPostgres = new Map(postgres.map((r) => [r.id, r]));
  const faltam = postgres.filter((r) => !noCelular.has(r.id));
  const sobram = celular.filter((r) => !noPostgres.has(r.id));
  const diferentes = postgres.filter((r) => noCelular.has(r.id) && JSON.stringify(r) !== JSON.stringify(noCelular.get(r.id)))
    .map((r) => ({ postgres: r, celular: noCelular.get(r.id)! }));
  if (faltam.length + sobram.length + diferentes.length === 0) return null;
  return { tabela, postgres: postgres.length, celular: celular.length, faltam, sobram, diferentes };
}

export function descrever(d: Diferenca[], exemplos = 3): string {
  return d.map((x) => [
    `${x.tabela}: Postgres ${x.postgres} linhas, celular ${x.celular}; faltam ${x.faltam.length}, sobram ${x.sobram.length}, diferentes ${x.diferentes.length}`,
    ...x.faltam.slice(0, exemplos).map((r) => `  falta  ${JSON.stringify(r)}`),
    ...x.sobram.slice(0, exemplos).map((r) => `  sobra  ${JSON.stringify(r)}`),
    ...x.diferentes.slice(0, exemplos).flatMap((r) => [`  pg     ${JSON.stringify(r.postgres)}`, `  cel    ${JSON.stringify(r.celular)}`]),
  ].join('\n')).join('\n');
}

/** Every synced table: Postgres against the phone; the differences (empty when equal). */
export async function diferencas(db: Pick<TestDatabase, 'pool'>, celular: CelularComparavel, tabelas?: string[]): Promise<Diferenca[]> {
  const out: Diferenca[] = [];
  for (const t of tabelas ?? (await tabelasSincronizadas(db)).map((x) => x.tabela)) {
    const d = comparar(t, await dumpPostgres(db, t), await dumpCelular(db, celular, t));
    if (d) out.push(d);
  }
  return out;
}

/**
 * Waits until the phone holds, for every synced table (or `tabelas`), exactly the rows
 * Postgres says it should; counts first (cheap), then row by row. On timeout, throws the diff.
 */
export async function aguardarCelularIgual(db: Pick<TestDatabase, 'pool'>, celular: CelularComparavel,
  opts: { timeoutMs?: number; tabelas?: string[] } = {}): Promise<void> {
  const todas = await tabelasSincronizadas(db);
  const tabelas = opts.tabelas ?? todas.map((t) => t.tabela);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let intervalo = 100;
  for (;;) {
    const cont = await celular.contagens();
    let contagensIguais = true;
    for (const t of tabelas) {
      const q = todas.find((x) => x.tabela === t)!;
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int n from public.${pg.escapeIdentifier(t)}${q.where ? ` where ${q.where}` : ''}`);
      if ((cont[t] ?? 0) !== rows[0]!.n) { contagensIguais = false; break; }
    }
    if (contagensIguais) {
      const d = await diferencas(db, celular, tabelas);
      if (d.length === 0) return;
      if (Date.now() > deadline) throw new Error(`o celular não ficou igual ao Postgres em ${opts.timeoutMs ?? 60_000} ms:\n${descrever(d)}`);
    } else if (Date.now() > deadline) {
      throw new Error(`o celular não ficou igual ao Postgres em ${opts.timeoutMs ?? 60_000} ms:\n${descrever(await diferencas(db, celular, tabelas))}`);
    }
    await new Promise((r) => setTimeout(r, intervalo));
    intervalo = Math.min(intervalo * 2, 1000);
  }
}

/**
 * The operations the engine wrote to its storage after op id `depois` (a checkpoint from
 * aguardarReplicacao), by table and kind: what a phone downloads for a change.
 */
export async function operacoesDesde(motor: Pick<Motor, 'storage'>, depois: bigint): Promise<Record<string, Record<string, number>>> {
  const rows = await motor.storage<{ table_name: string | null; op: string; n: number }>(
    `select table_name, op, count(*)::int n from powersync.bucket_data where op_id > $1 group by 1, 2 order by 1, 2`, [depois.toString()]);
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows) (out[r.table_name ?? '-'] ??= {})[r.op] = r.n;
  return out;
}

// ---------------------------------------------------------------------------------------
// A phone

/** A phone of the tests (the reference phone), and its SQLite file. */
export type CelularDeTeste = Celular & { readonly arquivo: string };

/**
 * A phone of `usuario` connected to the engine (src/celular: the reference phone, with its
 * ultimo_nuke rule), its SQLite file in a temporary folder (fechar() it in the test: that
 * removes the folder too). With `arquivo`, the phone opens that SQLite file instead (the same
 * phone again after it was closed, with what it held) and fechar() leaves the file in place.
 * Connected: its data arrives in the background.
 */
export async function abrirCelular(motor: Pick<Motor, 'url' | 'token'>,
  opts: { usuario?: string; conectar?: boolean; log?: (linha: string) => void; arquivo?: string } = {}): Promise<CelularDeTeste> {
  const dir = opts.arquivo ? null : mkdtempSync(join(tmpdir(), 'bi-celular-'));
  const arquivo = opts.arquivo ?? join(dir!, 'celular.db');
  const c = await Celular.abrir({ url: motor.url, token: () => motor.token(opts.usuario), arquivo, log: opts.log, retryDelayMs: 250 });
  const fechar = c.fechar.bind(c);
  const celular = Object.assign(c, {
    arquivo,
    /** closes the phone and removes its folder (not a file given as `arquivo`) */
    fechar: async () => { await fechar(); if (dir) rmSync(dir, { recursive: true, force: true }); },
  });
  if (opts.conectar !== false) await celular.conectar();
  return celular;
}

/**
 * The operations a phone has downloaded and not yet dropped, by bucket (the engine client's own
 * table ps_oplog: operations land there as they are downloaded, and reach the tables only when
 * their checkpoint, or their priority, is complete).
 */
export async function operacoesNoCelular(celular: Pick<Celular, 'banco'>): Promise<Record<string, number>> {
  const rows = await celular.banco.getAll<{ bucket: string; n: number }>(
    'select b.name bucket, count(*) n from ps_oplog o join ps_buckets b on b.id = o.bucket group by 1');
  return Object.fromEntries(rows.map((r) => [r.bucket.replace(/^\d+#/, '').replace(/\[\]$/, ''), Number(r.n)]));
}
