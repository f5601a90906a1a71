/**
 * The webhook across a database outage, on a Postgres of its own (it is stopped and started):
 * - Postgres stopped for 60 s under a bounded load: every delivery answered 200, every event
 *   in partner_webhook once it returns, none twice; the error tracker hears the spooling
 *   start and end;
 * - SIGKILL of the service (src/main.ts) while events are only in its spool: all stored
 *   after the restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ensureDatabase, freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/embedded/postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { bearer, testEnv } from '../harness/service.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';

const OUTAGE_MS = Number(process.env.TEST_OUTAGE_MS ?? 60_000);
const SECRET = 'segredo-queda';
const DB = 'bi_queda';
let dir: string;
let port: number;
let server: EmbeddedPostgres | null = null;
let url: string;
let pool: pg.Pool;
let receiver: ErrtrackerReceiver;
const spoolDir = mkdtempSync(join(tmpdir(), 'queda-spool-'));
const children: ChildProcess[] = [];

const startPg = async () => { server = await startEmbeddedPostgres({ dataDir: dir, port, cronDatabase: DB, durable: false }); };
const stopPg = async () => { await server?.stop(); server = null; };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'queda-pg-'));
  port = await freePort();
  await startPg();
  await ensureDatabase(server!.url('postgres'), DB);
  url = server!.url(DB);
  await migrate(url);
  pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  receiver = await startErrtrackerReceiver();
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await pool?.end().catch(() => undefined);
  await stopPg();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(spoolDir, { recursive: true, force: true });
}, 60_000);

interface Service { child: ChildProcess; base: string; out: () => string }

async function boot(): Promise<Service> {
  const svcPort = await freePort();
  const env = {
    ...testEnv({ url }), PATH: process.env.PATH, LOG_LEVEL: 'warn', PORT: String(svcPort), PARTNER_WEBHOOK_SECRET: SECRET,
    PARTNER_WEBHOOK_SPOOL_DIR: spoolDir, ERRTRACKER_DSN: receiver.dsn, JOBS_POLL_INTERVAL_MS: '500',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const base = `http://127.0.0.1:${svcPort}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`o serviço saiu (${child.exitCode}): ${out}`);
    if (Date.now() > deadline) throw new Error(`o serviço não respondeu: ${out}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, out: () => out };
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
}

let seq = 0;
async function deliver(base: string): Promise<{ seq: number; status: number; id: string | null }> {
  seq += 1;
  const mine = seq;
  const body = JSON.stringify({ event: 'order.created', time: new Date().toISOString(), resource: { code: `QUEDA-${mine}`, status: 'waiting_payment', updated_at: new Date().toISOString(), total: 10 } });
  try {
    const r = await fetch(`${base}/webhook/partner`, { method: 'POST', body, headers: { 'x-partner-secret': SECRET, 'content-type': 'application/json' } });
    const j = (await r.json()) as { id?: string };
    return { seq: mine, status: r.status, id: j.id ?? null };
  } catch {
    return { seq: mine, status: 0, id: null };
  }
}

/** `inFlight` workers, each sending its next delivery 50 ms after the previous answer, until stopped. */
function load(base: string, inFlight: number) {
  const results: Array<{ seq: number; status: number; id: string | null }> = [];
  let stop = false;
  const done = Promise.all(Array.from({ length: inFlight }, async () => {
    while (!stop) {
      results.push(await deliver(base));
      await new Promise((r) => setTimeout(r, 50));
    }
  }));
  return { results, stop: async () => { stop = true; await done; } };
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await f();
      if (ok(last)) return last;
    } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const spoolSegments = () => readdirSync(spoolDir).filter((n) => n.endsWith('.spool'));

async function storedOnce(ids: string[]): Promise<{ stored: number; twice: number }> {
  const { rows: [r] } = await pool.query<{ stored: number; twice: number }>(`
    select count(distinct id)::int as stored,
           (select count(*)::int from (select corpo from partner_webhook group by corpo having count(*) > 1) d) as twice
      from partner_webhook where id = any($1::uuid[])`, [ids]);
  return r!;
}

describe('database outage', () => {
  it(`Postgres stopped for ${OUTAGE_MS / 1000} s under load: every delivery 200, all stored once it returns, none twice`, async () => {
    const svc = await boot();
    const l = load(svc.base, 4);
    await new Promise((r) => setTimeout(r, 2000));
    const before = l.results.length;
    await stopPg();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const during = l.results.length - before;
    await startPg();
    await new Promise((r) => setTimeout(r, 3000));
    await l.stop();

    expect(before).toBeGreaterThan(0);
    expect(during).toBeGreaterThan(OUTAGE_MS / 1000); // the load went on during the outage
    expect(l.results.filter((r) => r.status !== 200)).toEqual([]);
    const ids = l.results.map((r) => r.id!);
    expect(new Set(ids).size).toBe(ids.length);
    // the spool drains into the database
    await until(async () => (await fetch(`${svc.base}/api/partner/status`, { headers: bearer() }).then((r) => r.json()) as { spool: { registros: number; ativo: boolean } }).spool,
      (s) => s.registros === 0 && !s.ativo, 'spool não esvaziou', 120_000);
    expect(await storedOnce(ids)).toEqual({ stored: ids.length, twice: 0 });
    expect((await pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(ids.length);
    expect(spoolSegments()).toEqual([]);
    // the error tracker heard the start and the end
    await receiver.waitFor((e) => /^Webhook do parceiro: banco indisponível, eventos gravados no spool local/.test(e.message ?? ''), 10_000);
    await receiver.waitFor((e) => /^Webhook do parceiro: spool local esvaziado, \d+ evento\(s\)/.test(e.message ?? ''), 10_000);
    // and the events are normalised as any other
    await until(async () => (await pool.query<{ n: number }>(`select count(*)::int n from partner_webhook where situacao = 'PENDENTE'`)).rows[0]!.n,
      (n) => n === 0, 'normalização', 240_000);
    expect((await pool.query('select count(*)::int n from partner_pedido where code like $1', ['QUEDA-%'])).rows[0].n).toBe(ids.length);
    const morto = new Promise((r) => svc.child.once('exit', r));
    svc.child.kill('SIGTERM');
    await morto;
  }, OUTAGE_MS + 420_000);

  it('SIGKILL while events are only in the spool: all stored after the restart', async () => {
    const svc = await boot();
    await stopPg();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await deliver(svc.base));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(spoolSegments().length).toBeGreaterThan(0);
    const morto = new Promise((r) => svc.child.once('exit', r));
    svc.child.kill('SIGKILL');
    await morto;
    await startPg();
    const ids = answers.map((a) => a.id!);
    expect((await storedOnce(ids)).stored).toBe(0); // nothing reached the database before the kill
    const again = await boot();
    try {
      await until(() => storedOnce(ids), (r) => r.stored === ids.length, 'reenvio após o reinício', 60_000);
      expect(await storedOnce(ids)).toEqual({ stored: 20, twice: 0 });
      await until(async () => spoolSegments().length, (n) => n === 0, 'segmentos removidos', 30_000);
    } finally {
      const fim = new Promise((r) => again.child.once('exit', r));
      again.child.kill('SIGTERM');
      await fim;
    }
  }, 300_000);
});
