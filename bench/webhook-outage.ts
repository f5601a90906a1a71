// @bench-tiny 1
// @bench-prints bodies stored twice
/**
 * The order webhook across a database outage: `npm run bench -- webhook-outage [seconds]`
 * (the outage's length, default 60).
 *
 * Starts a durable embedded Postgres 15 and the real service (dist/src/main.js) as a child
 * process with its local spool in a temporary directory, drives a closed-loop load
 * (BENCH_CONCURRENCY requests in flight, default 32), stops Postgres for `seconds`, starts it
 * again, and prints:
 *  - deliveries answered 200 / refused / failed connections, before, during and after;
 *  - events stored in partner_webhook, missing (answered 200, not stored) and duplicated;
 *  - the spool's replay: events spooled, time from Postgres' return to an empty spool, rate.
 * A size of 1 (or less) runs it tiny, to prove the bench works.
 * Env: BENCH_CONCURRENCY (32), BENCH_BEFORE_S (5, tiny 1), BENCH_AFTER_S (5, tiny 1), LOG_LEVEL (warn).
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureDatabase, freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../src/embedded/postgres.js';
import { BENCH_TOKEN, startBenchService, type BenchService } from './lib.js';
import { orderEvent, postWebhook, WEBHOOK_SECRET } from './lib-webhook.js';

const OUTAGE_S = Number(process.argv[2] ?? 60);
const TINY = OUTAGE_S <= 1;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BEFORE_S = Number(process.env.BENCH_BEFORE_S ?? (TINY ? 1 : 5));
const AFTER_S = Number(process.env.BENCH_AFTER_S ?? (TINY ? 1 : 5));
const say = (s: string) => process.stdout.write(`${s}\n`);

interface Answer { id: string | null; status: number; at: number }

let seq = 0;
const body = () => orderEvent(`OUTAGE-${process.pid}-${++seq}`);

function load(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const answers: Answer[] = [];
  let stop = false;
  const one = async () => {
    const r = await postWebhook(port, body(), agent);
    answers.push({ ...r, at: Date.now() });
  };
  const done = Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (!stop) await one(); }));
  return { answers, stop: async () => { stop = true; await done; agent.destroy(); } };
}

async function spoolStatus(svc: BenchService): Promise<{ registros: number; ativo: boolean } | null> {
  try {
    const r = await fetch(`${svc.base}/api/partner/status`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
    if (!r.ok) return null;
    return ((await r.json()) as { spool: { registros: number; ativo: boolean } }).spool;
  } catch {
    return null;
  }
}

function summary(label: string, xs: Answer[]): string {
  const ok = xs.filter((a) => a.status === 200).length;
  const refused = xs.filter((a) => a.status !== 200 && a.status !== 0).length;
  const failed = xs.filter((a) => a.status === 0).length;
  return `${label}: ${xs.length} deliveries, ${ok} answered 200, ${refused} refused, ${failed} failed connections`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-outage-'));
  const spoolDir = mkdtempSync(join(tmpdir(), 'bench-outage-spool-'));
  const dbName = 'bench_outage';
  const port = await freePort();
  let server: EmbeddedPostgres | null = await startEmbeddedPostgres({ dataDir: dir, port, cronDatabase: dbName, durable: true });
  let svc: BenchService | null = null;
  const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: dbName, max: 2 });
  pool.on('error', () => undefined);
  try {
    await ensureDatabase(server.url('postgres'), dbName);
    svc = await startBenchService({
      DATABASE_URL: server.url(dbName), PARTNER_WEBHOOK_SECRET: WEBHOOK_SECRET, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', GIT_COMMIT: 'bench',
      PARTNER_WEBHOOK_SPOOL_DIR: spoolDir,
    });
    say(`# POST /webhook/partner across a ${OUTAGE_S} s Postgres outage — ${CONCURRENCY} in flight, durable Postgres 15, spool in ${spoolDir}`);
    const l = load(Number(new URL(svc.base).port));
    await new Promise((r) => setTimeout(r, BEFORE_S * 1000));
    const stoppedAt = Date.now();
    await server.stop();
    server = null;
    await new Promise((r) => setTimeout(r, OUTAGE_S * 1000));
    server = await startEmbeddedPostgres({ dataDir: dir, port, cronDatabase: dbName, durable: true });
    const backAt = Date.now();
    await new Promise((r) => setTimeout(r, AFTER_S * 1000));
    await l.stop();
    const rssMb = svc.peakRssMb();

    // the spool drains
    let emptyAt: number | null = null;
    const deadline = Date.now() + 600_000;
    while (Date.now() < deadline) {
      const st = await spoolStatus(svc);
      if (st && st.registros === 0 && !st.ativo) { emptyAt = Date.now(); break; }
      await new Promise((r) => setTimeout(r, 100));
    }
    const a = l.answers;
    say('');
    say('## Deliveries');
    say(summary(`before (${BEFORE_S} s)`, a.filter((x) => x.at < stoppedAt)));
    say(summary(`during the outage (${OUTAGE_S} s)`, a.filter((x) => x.at >= stoppedAt && x.at < backAt)));
    say(summary(`after (${AFTER_S} s)`, a.filter((x) => x.at >= backAt)));
    const ids = a.filter((x) => x.status === 200).map((x) => x.id!);
    const { rows: [st] } = await pool.query<{ stored: number; total: number; dup: number; spooled: number }>(`
      select (select count(*)::int from partner_webhook where id = any($1::uuid[])) as stored,
             (select count(*)::int from partner_webhook) as total,
             (select count(*)::int from (select corpo from partner_webhook group by corpo having count(*) > 1) d) as dup,
             (select count(*)::int from partner_webhook where recebido_em >= $2 and recebido_em < $3) as spooled`,
    [ids, new Date(stoppedAt), new Date(backAt)]);
    say('');
    say('## Stored');
    say(`answered 200: ${ids.length}; in partner_webhook: ${st!.stored} (missing ${ids.length - st!.stored}); rows in total ${st!.total}; bodies stored twice: ${st!.dup}`);
    say('');
    say('## Spool replay');
    if (emptyAt === null) say('the spool did not empty within 10 minutes');
    else {
      const s = (emptyAt - backAt) / 1000;
      say(`events received during the outage (spooled): ${st!.spooled}; spool empty ${s.toFixed(1)} s after Postgres returned ` +
        `(while the load went on for ${AFTER_S} s) = ${(st!.spooled / Math.max(s, 0.001)).toFixed(0)} events/s replayed`);
    }
    say(`service peak RSS: ${rssMb.toFixed(0)} MB`);
  } finally {
    await pool.end().catch(() => undefined);
    if (svc) await svc.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(spoolDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
