// @bench-tiny BENCH_SECONDS=1 BENCH_CONCURRENCY=4 BENCH_KILL_AFTER_MS=500 BENCH_RODADAS=2 BENCH_ESPERAS=1 BENCH_PERFIL=1
// @bench-prints every 200 stored in partner_webhook: YES
// @bench-prints regression guard: webhook >= 25 % of pgbench's durable inserts:
/**
 * Benchmark of POST /webhook/partner: `npm run bench -- webhook [seconds]` (default 10)
 *
 * Starts a durable embedded Postgres 15 (pg_cron on, fsync on) and the real service
 * (dist/src/main.js) as a child process, then:
 *  1. drives a bounded, closed-loop load (BENCH_CONCURRENCY requests in flight, one keep-alive
 *     connection each, loopback; a lean raw HTTP/1.1 client, bench/lib-webhook.ts) for
 *     `seconds` and prints the accepted events/s (group commit: one multi-row insert per
 *     flush), the answer latency, the time to the order table and the CPU per event of the
 *     load generator, the service and Postgres;
 *  2. in the same run, pgbench with BENCH_CONCURRENCY clients, one durable 512-byte jsonb
 *     insert per transaction, for the same time, and the ratio webhook / pgbench with its
 *     verdict: the regression guard, webhook >= 25 % of pgbench, with the CPU share of the load
 *     (docs/benchmarks.md; the speed targets of the first speed issue are retired);
 *  3. idle events one at a time: time from the request to the order row;
 *  4. starts the same load again and SIGKILLs the service in the middle of it, then checks
 *     that every event that got a 200 is in partner_webhook; restarts the service and shows
 *     the stored events being normalised.
 * A size of 1 (or less) runs everything tiny, to prove the bench works.
 * Env: PARTNER_WEBHOOK_LOTE_* and DATABASE_POOL_MAX (passed to the service), BENCH_PERFIL=1 (pg_stat_statements: the costliest statements of the load and its drain), BENCH_RODADAS (1: parts 1 and 2 that many times, alternated, and their medians), BENCH_ESPERAS=1 (what the database's backends wait on during the load, sampled), BENCH_CONCURRENCY (32), BENCH_KILL_AFTER_MS (3000, tiny: 500), BENCH_KILL (0 skips part 4), BENCH_IDLE_EVENTS (20, tiny: 3), LOG_LEVEL (warn).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureDatabase, startEmbeddedPostgres } from '../src/embedded/postgres.js';
import { findPgBinDir } from '../src/db/pg-bin.js';
import { startBenchService } from './lib.js';
import { orderEvent, postWebhook, WebhookConexao, WEBHOOK_SECRET } from './lib-webhook.js';
import { formatCpu, postgresCpu, postmasterPid, processCpu, profileSettings, type PgCpu } from './profile.js';

/**
 * The regression guard (docs/benchmarks.md): the webhook's accepted events/s at least 25 % of
 * pgbench's durable inserts/s in the same run, with the ratio by CPU and the cores the load kept
 * busy (a verdict on a loaded machine says little).
 */
function veredito(razao: number, porCpu: number, nucleos: number): string {
  return `regression guard: webhook >= 25 % of pgbench's durable inserts: ${razao >= 0.25 ? 'HELD' : 'BROKEN'} `
    + `(${(100 * razao).toFixed(1)} %; by CPU ${(100 * porCpu).toFixed(1)} %; ${nucleos.toFixed(2)} of ${cpus().length} cores busy during the load)`;
}

const SECONDS = Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 10);
const TINY = SECONDS <= 1;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const KILL_AFTER_MS = Number(process.env.BENCH_KILL_AFTER_MS ?? (TINY ? 500 : 3000));
const IDLE_EVENTS = Number(process.env.BENCH_IDLE_EVENTS ?? (TINY ? 3 : 20));
const PERFIL = process.env.BENCH_PERFIL === '1';
const ESPERAS = process.env.BENCH_ESPERAS === '1';
const RODADAS = Math.max(1, Number(process.env.BENCH_RODADAS ?? 1));
const SPOOL_DIR = mkdtempSync(join(tmpdir(), 'bench-webhook-spool-'));
const say = (s: string) => process.stdout.write(`${s}\n`);

interface Service { child: ChildProcess; port: number; exited: Promise<number | null> }

async function startService(databaseUrl: string): Promise<Service> {
  const svc = await startBenchService({
    DATABASE_URL: databaseUrl, PARTNER_WEBHOOK_SECRET: WEBHOOK_SECRET, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', GIT_COMMIT: 'bench',
    PARTNER_WEBHOOK_SPOOL_DIR: SPOOL_DIR,
    // PARTNER_WEBHOOK_LOTE_* and DATABASE_POOL_MAX of this shell reach the service, to try other group-commit settings
    ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => (k.startsWith('PARTNER_WEBHOOK_LOTE_') || k === 'DATABASE_POOL_MAX') && v !== undefined)) as Record<string, string>,
  });
  const exited = new Promise<number | null>((resolve) => {
    if (svc.child.exitCode !== null || svc.child.signalCode !== null) resolve(svc.child.exitCode);
    else svc.child.once('exit', (code) => resolve(code));
  });
  return { child: svc.child, port: Number(new URL(svc.base).port), exited };
}

interface LoadResult {
  accepted: Array<{ id: string; ms: number }>;
  refused: number;
  failed: number;
  seconds: number;
}

let seq = 0;
const body = () => orderEvent(`BENCH-${process.pid}-${++seq}`);

/** Closed loop: `concurrency` workers, each sends its next request when the previous one ends. */
async function load(port: number, opts: { seconds: number; stop?: Promise<unknown> }): Promise<LoadResult> {
  const res: LoadResult = { accepted: [], refused: 0, failed: 0, seconds: 0 };
  let stopping = false;
  const t0 = performance.now();
  const timer = setTimeout(() => { stopping = true; }, opts.seconds * 1000);
  void opts.stop?.then(() => { stopping = true; });
  const one = async (conexao: WebhookConexao) => {
    const start = performance.now();
    const r = await conexao.post(body());
    if (r.status === 200) res.accepted.push({ id: r.id!, ms: performance.now() - start });
    else if (r.status === 0) res.failed += 1;
    else res.refused += 1;
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    const conexao = new WebhookConexao(port);
    while (!stopping) await one(conexao);
    conexao.close();
  }));
  clearTimeout(timer);
  res.seconds = (performance.now() - t0) / 1000;
  return res;
}

/**
 * CPU seconds of the three parts sharing the machine since `cpuStart`: this process (the load
 * generator), the service (/proc of its pid) and Postgres (the postmaster and its children,
 * those that ended meanwhile too). Unlike wall-clock rates, CPU per event barely moves with the
 * machine's load: it says where the time goes.
 */
interface CpuMarca { bench: NodeJS.CpuUsage; service: number; servicePid: number; pg: PgCpu }
interface Cpu { bench: number; service: number; postgres: number; pgPorTipo: Record<string, number> }
function cpuStart(servicePid: number, postmaster: number): CpuMarca {
  return { bench: process.cpuUsage(), service: processCpu(servicePid), servicePid, pg: postgresCpu(postmaster) };
}
function cpuTake(m: CpuMarca): Cpu {
  const b = process.cpuUsage(m.bench);
  const pgPorTipo = m.pg.take();
  return {
    bench: (b.user + b.system) / 1e6,
    service: processCpu(m.servicePid) - m.service,
    postgres: Object.values(pgPorTipo).reduce((a, v) => a + v, 0),
    pgPorTipo,
  };
}
const sumCpu = (a: Cpu, b: Cpu): Cpu => ({
  bench: a.bench + b.bench, service: a.service + b.service, postgres: a.postgres + b.postgres,
  pgPorTipo: Object.fromEntries([...new Set([...Object.keys(a.pgPorTipo), ...Object.keys(b.pgPorTipo)])]
    .map((k) => [k, (a.pgPorTipo[k] ?? 0) + (b.pgPorTipo[k] ?? 0)])),
});
/** "load generator 120 µs, service 150 µs, Postgres 200 µs = 470 µs per event" */
function cpuPer(c: Cpu, n: number, unit: string, bench = 'load generator'): string {
  const us = (s: number) => ((s * 1e6) / Math.max(1, n)).toFixed(0);
  return `${bench} ${us(c.bench)} µs, service ${us(c.service)} µs, Postgres ${us(c.postgres)} µs = ${us(c.bench + c.service + c.postgres)} µs of CPU per ${unit}`;
}
const cpuTotal = (c: Cpu) => c.bench + c.service + c.postgres;

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Samples what this database's other backends wait on (BENCH_ESPERAS=1), until parar(). */
function amostrarEsperas(url: string): { parar: () => Promise<{ vezes: number; ativos: number; esperas: Map<string, number> }> } {
  const c = new pg.Client({ connectionString: url });
  let ativo = true;
  let vezes = 0;
  let ativos = 0;
  const esperas = new Map<string, number>();
  let falha: unknown = null;
  const laco = (async () => {
    await c.connect();
    while (ativo) {
      const { rows } = await c.query<{ w: string | null; n: number }>(`
        select case when wait_event is null then null else wait_event_type || ':' || wait_event end as w, count(*)::int as n
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active' group by 1`);
      vezes += 1;
      for (const r of rows) {
        ativos += r.n;
        const k = r.w ?? '(running on a CPU or waiting for one)';
        esperas.set(k, (esperas.get(k) ?? 0) + r.n);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await c.end();
  })().catch((err: unknown) => { falha = err; }); // reported by parar(), never an unhandled rejection during the load
  return {
    parar: async () => {
      ativo = false;
      await laco;
      if (falha) throw falha;
      return { vezes, ativos: ativos / Math.max(1, vezes), esperas };
    },
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhook-'));
  const dbName = 'bench_webhook';
  const server = await startEmbeddedPostgres({ dataDir: dir, cronDatabase: dbName, durable: true, ...(PERFIL ? { settings: profileSettings(false) } : {}) });
  let svc: Service | null = null;
  try {
    await ensureDatabase(server.url('postgres'), dbName);
    const url = server.url(dbName);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const postmaster = await postmasterPid(admin);
    svc = await startService(url);
    say(`# POST /webhook/partner — ${CONCURRENCY} requests in flight, ${SECONDS} s, loopback, durable Postgres 15 (fsync on)`);
    say(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs shared by load generator, service and Postgres`);

    // 1 and 2, BENCH_RODADAS times alternated (a single 10-second ratio moves ±15 % between runs)
    const rodadas: Array<{ eventos: number; tps: number; porCpu: number; nucleos: number }> = [];
    let aceitosNasRodadas = 0;
    for (let rodada = 1; rodada <= RODADAS; rodada++) {
      // 1. throughput and time to the order table (a checkpoint first, as before pgbench: both start alike)
      await admin.query('checkpoint');
      if (PERFIL) await admin.query('create extension if not exists pg_stat_statements; select pg_stat_statements_reset()');
      const commits = async () => Number((await admin.query<{ n: string }>(
        'select xact_commit::text as n from pg_stat_database where datname = current_database()')).rows[0]!.n);
      const commits0 = await commits();
      const cpu1 = cpuStart(svc.child.pid!, postmaster);
      const esperas = ESPERAS ? amostrarEsperas(url) : null;
      // bytes from the WAL position (exact); records, full-page images and syncs from pg_stat_wal, which
      // backends report at most once a second: read, like the commits, a moment after the load
      const wal = async () => (await admin.query<{ rec: string; fpi: string; bytes: string; syncs: string }>(
        `select wal_records::text as rec, wal_fpi::text as fpi, (pg_current_wal_lsn() - '0/0')::text as bytes, wal_sync::text as syncs from pg_stat_wal`)).rows[0]!;
      const wal0 = ESPERAS ? await wal() : null;
      const r1 = await load(svc.port, { seconds: SECONDS });
      const cpuLoad = cpuTake(cpu1);
      const amostras = await esperas?.parar();
      const walFim = ESPERAS ? (await wal()).bytes : null;
      // (statistics reach pg_stat_database when a backend goes idle: read a moment later)
      await new Promise((r) => setTimeout(r, 1100));
      const wal1 = ESPERAS ? { ...(await wal()), bytes: walFim! } : null;
      const commitsLoad = (await commits()) - commits0;
      const cpu2 = cpuStart(svc.child.pid!, postmaster);
      say('');
      say(RODADAS > 1 ? `## 1. Load (round ${rodada} of ${RODADAS})` : '## 1. Load');
      say(`accepted (200): ${r1.accepted.length} in ${r1.seconds.toFixed(1)} s = ${(r1.accepted.length / r1.seconds).toFixed(0)} events/s`);
      say(`refused: ${r1.refused}, failed connections: ${r1.failed}`);
      say(`transactions committed in the database during the load: ${commitsLoad} (group-commit flushes, normalisation batches, jobs): ${(r1.accepted.length / Math.max(1, commitsLoad)).toFixed(1)} events per commit`);
      const ms = r1.accepted.map((a) => a.ms);
      if (amostras) {
        say(`backends of this database during the load (pg_stat_activity every 5 ms, ${amostras.vezes} samples): ${amostras.ativos.toFixed(2)} active on average, of which waiting:`);
        for (const [k, n] of [...amostras.esperas].sort((a, b) => b[1] - a[1]).slice(0, 10)) say(`  ${(n / amostras.vezes).toFixed(3).padStart(7)}  ${k}`);
        const d = (k: 'rec' | 'fpi' | 'bytes' | 'syncs') => Number(wal1![k]) - Number(wal0![k]);
        say(`WAL during the load: ${(d('bytes') / 1e6).toFixed(1)} MB = ${(d('bytes') / Math.max(1, r1.accepted.length)).toFixed(0)} bytes per event, ${(d('rec') / Math.max(1, r1.accepted.length)).toFixed(1)} records and ${(d('fpi') / Math.max(1, r1.accepted.length)).toFixed(2)} full-page images per event, ${d('syncs')} syncs (records, images and syncs: pg_stat_wal, which backends report at most once a second — approximate)`);
      }
      say(`answer latency: p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${pct(ms, 100).toFixed(1)} ms`);
      const ids = r1.accepted.map((a) => a.id);
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from partner_webhook where id = any($1::uuid[]) and situacao = 'PENDENTE'`, [ids]);
        if (rows[0]!.n === 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const { rows: [share] } = await pool.query<{ total: number; em5s: number; p50: number; p99: number; max: number }>(`
        select count(*)::int as total,
               count(*) filter (where p.criado_em - w.recebido_em <= interval '5 seconds')::int as em5s,
               percentile_cont(0.5) within group (order by extract(epoch from p.criado_em - w.recebido_em)) * 1000 as p50,
               percentile_cont(0.99) within group (order by extract(epoch from p.criado_em - w.recebido_em)) * 1000 as p99,
               max(extract(epoch from p.criado_em - w.recebido_em)) * 1000 as max
          from partner_webhook w left join partner_pedido p on p.code = w.code
         where w.id = any($1::uuid[])`, [ids]);
      const cpuDrain = cpuTake(cpu2);
      const n1 = r1.accepted.length;
      say(`CPU during the load: ${cpuPer(cpuLoad, n1, 'event')} (${(cpuTotal(cpuLoad) / r1.seconds).toFixed(2)} of the machine's cores busy)`);
      say(`CPU after it, until every event was normalised: ${cpuPer(cpuDrain, n1, 'event')}`);
      const cpuWebhook = sumCpu(cpuLoad, cpuDrain);
      say(`CPU per event stored and normalised: ${cpuPer(cpuWebhook, n1, 'event')}`);
      say(`  Postgres by process: ${formatCpu(cpuWebhook.pgPorTipo)}`);
      if (PERFIL) {
        const { rows } = await admin.query<{ ms: number; calls: string; q: string }>(`
          select round(total_exec_time::numeric, 1)::float8 as ms, calls::text, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as q
            from pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time desc limit 15`);
        say('  statements (pg_stat_statements, nested too), load and drain:');
        for (const r of rows) say(`  ${r.ms.toFixed(1).padStart(9)} ms ${r.calls.padStart(7)} calls  ${r.q}`);
      }
      say(`reached partner_pedido within 5 s of recebido_em: ${share!.em5s}/${share!.total} = ${((100 * share!.em5s) / share!.total).toFixed(1)} %`);
      say(`recebido_em -> order row: p50 ${Number(share!.p50).toFixed(0)} ms, p99 ${Number(share!.p99).toFixed(0)} ms, max ${Number(share!.max).toFixed(0)} ms`);

      // 2. pgbench, same cluster, same run
      const webhookRate = r1.accepted.length / r1.seconds;
      await admin.query('checkpoint');
      const cpu3 = cpuStart(svc.child.pid!, postmaster);
      const pgb = await pgbench(server.port, dbName, Math.max(1, Math.round(r1.seconds)));
      // pgbench's backends end with it: let the postmaster reap them, so that their CPU is counted
      await new Promise((r) => setTimeout(r, 500));
      const cpuPgbench = cpuTake(cpu3);
      cpuPgbench.bench = pgb.cpu; // pgbench's own CPU, not this process' (idle meanwhile)
      const tps = pgb.tps;
      say('');
      say(`## 2. pgbench${RODADAS > 1 ? ` (round ${rodada} of ${RODADAS})` : ''}: ${CONCURRENCY} clients, one durable 512-byte jsonb insert per transaction, ${Math.max(1, Math.round(r1.seconds))} s`);
      say(`pgbench: ${tps.toFixed(0)} TPS (${pgb.transactions} transactions)`);
      say(`CPU: ${cpuPer(cpuPgbench, pgb.transactions, 'transaction', 'pgbench')} (the service, idle, ${((cpuPgbench.service * 1e6) / Math.max(1, pgb.transactions)).toFixed(0)} µs)`);
      say(`webhook / pgbench: ${(100 * webhookRate / tps).toFixed(1)} %; p99 ${pct(ms, 99).toFixed(1)} ms`);
      const porEvento = cpuTotal(cpuWebhook) / Math.max(1, n1);
      const porTx = (cpuPgbench.bench + cpuPgbench.postgres) / Math.max(1, pgb.transactions);
      say(`by CPU (what the ratio tends to when the cores are the limit): pgbench ${(porTx * 1e6).toFixed(0)} µs per transaction / webhook ${(porEvento * 1e6).toFixed(0)} µs per event = ${(100 * porTx / porEvento).toFixed(1)} %`);
      say(veredito(webhookRate / tps, porTx / porEvento, cpuTotal(cpuLoad) / r1.seconds));
      rodadas.push({ eventos: webhookRate, tps, porCpu: porTx / porEvento, nucleos: cpuTotal(cpuLoad) / r1.seconds });
      aceitosNasRodadas += r1.accepted.length;
    }
    if (RODADAS > 1) {
      const med = (xs: number[]) => pct(xs, 50);
      say('');
      say(`## 1-2. ${RODADAS} rounds: webhook / pgbench ${rodadas.map((r) => `${(100 * r.eventos / r.tps).toFixed(1)} %`).join(', ')}`);
      say(`median: ${med(rodadas.map((r) => r.eventos)).toFixed(0)} events/s, pgbench ${med(rodadas.map((r) => r.tps)).toFixed(0)} TPS, ratio ${med(rodadas.map((r) => 100 * r.eventos / r.tps)).toFixed(1)} %, by CPU ${med(rodadas.map((r) => 100 * r.porCpu)).toFixed(1)} %`);
      say(veredito(med(rodadas.map((r) => r.eventos / r.tps)), med(rodadas.map((r) => r.porCpu)), med(rodadas.map((r) => r.nucleos))));
    }

    // 3. idle: one event at a time, from the request to the order row
    const idle: number[] = [];
    for (let i = 0; i < IDLE_EVENTS; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const code = `IDLE-${process.pid}-${i}`;
      const t0 = performance.now();
      const { status } = await postWebhook(svc.port, orderEvent(code));
      if (status !== 200) throw new Error(`evento ocioso respondido ${status}`);
      for (;;) {
        const { rowCount } = await pool.query('select 1 from partner_pedido where code = $1', [code]);
        if (rowCount) break;
        if (performance.now() - t0 > 10_000) throw new Error(`o pedido ${code} não apareceu em 10 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
      idle.push(performance.now() - t0);
    }
    say('');
    say(`## 3. Idle event -> order row (${IDLE_EVENTS} events, one at a time)`);
    say(`p50 ${pct(idle, 50).toFixed(1)} ms, max ${pct(idle, 100).toFixed(1)} ms`);

    // 4. SIGKILL in the middle of a load (BENCH_KILL=0 skips it, e.g. to keep the service's --cpu-prof profile)
    if (process.env.BENCH_KILL === '0') {
      await pool.end();
      await admin.end();
      return;
    }
    say('');
    say('## 4. SIGKILL during load');
    let killedAt = 0;
    const kill = new Promise<void>((resolve) => setTimeout(() => {
      killedAt = performance.now();
      svc!.child.kill('SIGKILL');
      resolve();
    }, KILL_AFTER_MS));
    const r2 = await load(svc.port, { seconds: 3600, stop: kill });
    await svc.exited;
    svc = null;
    say(`killed after ${KILL_AFTER_MS} ms of load; answers 200 before the kill: ${r2.accepted.length}; failed connections: ${r2.failed}; refused: ${r2.refused}`);
    const ids2 = r2.accepted.map((a) => a.id);
    const { rows: [found] } = await pool.query<{ n: number }>('select count(*)::int as n from partner_webhook where id = any($1::uuid[])', [ids2]);
    const missing = ids2.length - found!.n;
    say(`every 200 stored in partner_webhook: ${missing === 0 ? 'YES' : 'NO'} (${found!.n}/${ids2.length}, missing ${missing})`);
    const { rows: [all] } = await pool.query<{ n: number; pend: number }>(`select count(*)::int as n, count(*) filter (where situacao = 'PENDENTE')::int as pend from partner_webhook`);
    say(`rows in partner_webhook: ${all!.n} (${all!.n - aceitosNasRodadas - IDLE_EVENTS - ids2.length} stored whose answer never arrived), PENDENTE right after the kill: ${all!.pend}`);

    // restart: the stored events are normalised by the new process
    const t0 = performance.now();
    svc = await startService(url);
    const restartMs = performance.now() - t0;
    const t1 = performance.now();
    let pend = all!.pend;
    while (pend > 0 && performance.now() - t1 < 240_000) {
      await new Promise((r) => setTimeout(r, 250));
      pend = (await pool.query<{ n: number }>(`select count(*)::int as n from partner_webhook where situacao = 'PENDENTE'`)).rows[0]!.n;
    }
    say(`after restart (${(restartMs / 1000).toFixed(1)} s to /health): PENDENTE ${pend} after ${((performance.now() - t1) / 1000).toFixed(1)} s ` +
      '(the normalisation job claimed by the killed process returns to the queue at the restart: the boot forgets the workers of ' +
      "this host's previous processes; a surviving replica would recover it within 30 s: heartbeat timeout 20 s, sweep every 10 s)");
    const { rows: [fim] } = await pool.query<{ n: number; normalizados: number }>(
      `select count(*)::int as n, count(*) filter (where situacao = 'NORMALIZADO')::int as normalizados from partner_webhook`);
    say(`partner_webhook: ${fim!.normalizados}/${fim!.n} NORMALIZADO; orders: ${(await pool.query<{ n: number }>('select count(*)::int as n from partner_pedido')).rows[0]!.n}`);
    void killedAt;
    await pool.end();
    await admin.end();
  } finally {
    if (svc) { svc.child.kill('SIGTERM'); await svc.exited; }
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(SPOOL_DIR, { recursive: true, force: true });
  }
}

/**
 * pgbench (the cluster's own binary): CONCURRENCY clients, one 512-byte jsonb insert per
 * transaction; its TPS, transactions and its own CPU seconds (read by the shell that waited for it).
 */
async function pgbench(port: number, database: string, seconds: number): Promise<{ tps: number; transactions: number; cpu: number }> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await c.connect();
  await c.query('create table if not exists bench_pgbench (id bigint generated always as identity primary key, doc jsonb not null)');
  await c.end();
  const doc = JSON.stringify({ event: 'order.created', pad: '' });
  const json = JSON.stringify({ event: 'order.created', pad: 'x'.repeat(512 - doc.length) });
  if (Buffer.byteLength(json) !== 512) throw new Error('o documento do pgbench deveria ter 512 bytes');
  const script = join(mkdtempSync(join(tmpdir(), 'bench-pgbench-')), 'insert.sql');
  writeFileSync(script, `insert into bench_pgbench (doc) values ('${json}'::jsonb);\n`);
  // the shell prints its own /proc stat after pgbench ended: cutime + cstime = pgbench's CPU
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile('sh', ['-c', 'pgbench=$1; shift; "$pgbench" "$@"; s=$?; echo "STAT $(cat /proc/$$/stat)" >&2; exit $s', 'sh',
      join(findPgBinDir(), 'pgbench'), '-n', '-c', String(CONCURRENCY), '-j', '2', '-T', String(seconds), '-f', script,
      '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database], { maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) => {
      if (err) reject(new Error(`pgbench falhou: ${errOut || err.message}`));
      else resolve({ stdout: out, stderr: errOut });
    });
  });
  const m = /tps = ([\d.]+)/.exec(stdout);
  const n = /number of transactions actually processed: (\d+)/.exec(stdout);
  const st = /^STAT .*\) (.*)$/m.exec(stderr);
  if (!m || !n || !st) throw new Error(`pgbench sem TPS: ${stdout}\n${stderr}`);
  const f = st[1]!.split(' '); // [0] state … [13] cutime, [14] cstime
  rmSync(join(script, '..'), { recursive: true, force: true });
  return { tps: Number(m[1]), transactions: Number(n[1]), cpu: (Number(f[13]) + Number(f[14])) / 100 };
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
