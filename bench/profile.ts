// @bench-helper
/**
 * The profile of a bench run (`npm run bench -- ingest --profile DIR [--explain]`):
 * - Postgres settings: pg_stat_statements with every nested statement (the statements the merge
 *   functions EXECUTE), and with `explain` auto_explain logging EXPLAIN (ANALYZE, BUFFERS) of every
 *   statement, nested too, that took 20 ms or more (to the cluster's log, copied to DIR);
 * - the CPU of Postgres per process kind (backends by title, autovacuum, WAL writer, …), read from
 *   /proc: the processes that ended meanwhile (autovacuum workers) count through the postmaster's
 *   children counters;
 * - pg_stat_statements per import: the statements by total time, their share of the top-level
 *   time, rows, buffers, WAL; written to DIR/pgss-<import>.txt;
 * - the service's --cpu-prof profiles (main thread and parse worker) summed by function.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';

export function profileSettings(explain: boolean): Record<string, string> {
  return {
    shared_preload_libraries: `'pg_cron,pg_stat_statements${explain ? ',auto_explain' : ''}'`,
    'pg_stat_statements.track': "'all'",
    'pg_stat_statements.max': '10000',
    track_io_timing: 'on',
    ...(explain ? {
      'auto_explain.log_min_duration': "'20ms'",
      'auto_explain.log_analyze': 'on',
      'auto_explain.log_buffers': 'on',
      'auto_explain.log_nested_statements': 'on',
      'auto_explain.log_timing': 'on',
      'auto_explain.log_verbose': 'off',
    } : {}),
  };
}

const TICK = 100; // USER_HZ on Linux

interface Proc { pid: number; title: string; cpu: number; children: number }

function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' '); // [0] state, [1] ppid, … [11] utime, [12] stime, [13] cutime, [14] cstime
}

/** CPU seconds (user + system) used so far by process `pid`, or thread `PID/task/TID` (Linux /proc; USER_HZ 100). */
export function processCpu(pid: number | string): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / TICK;
}

/** The postmaster of the server `c` is connected to (the parent of its backend). */
export async function postmasterPid(c: pg.Client): Promise<number> {
  const { rows: [r] } = await c.query<{ pid: number }>('select pg_backend_pid() as pid');
  return Number(statFields(r!.pid)[1]);
}

/** One server's processes: its postmaster and the postmaster's children (other servers on the machine are not counted). */
function postgresProcs(postmaster: number): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = statFields(entry);
      if (Number(entry) !== postmaster && Number(f[1]) !== postmaster) continue;
      // a child that has exited but is not reaped yet (a zombie, no title): counted once reaped, by the postmaster's children counters
      if (Number(entry) !== postmaster && f[0] === 'Z') continue;
      const title = Number(entry) === postmaster ? 'postmaster' : readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.push({ pid: Number(entry), title, cpu: (Number(f[11]) + Number(f[12])) / TICK, children: (Number(f[13]) + Number(f[14])) / TICK });
    } catch { /* ended */ }
  }
  return out;
}

/** The kind of a Postgres process from its title ("postgres: walwriter", "postgres: postgres bi_bench 127.0.0.1(…) idle", the postmaster "…/postgres -D …"). */
function kind(title: string): string {
  if (title === 'postmaster') return 'postmaster';
  if (!title.startsWith('postgres:')) return 'other';
  const t = title.slice('postgres:'.length).trim();
  const m = /^(\S+) (\S+) \S+\(\d+\)/.exec(t); // user database host(port) state
  if (m) return `backend ${m[2]}`;
  return t.replace(/\s+\S*\d\S*$/, '').replace(/ bi_\w+$/, '');
}

/**
 * The CPU of one process' threads, by thread name (/proc/PID/task/TID/comm; Node 24 names them
 * `MainThread`, `WorkerThread` for a worker thread, `libuv-worker` for the pool that inflates and
 * hashes, `V8Worker` for V8's helpers: concurrent marking, parallel scavenges, background
 * compilation), sampled every 20 ms until `take()`, so that a thread that ended meanwhile (the
 * parse worker) still counts up to its last sample.
 */
export interface ThreadCpu { take(): Record<string, number> }
export function threadCpu(pid: number): ThreadCpu {
  const seen = new Map<string, { comm: string; start: number; last: number }>();
  // a thread alive at the first sample counts from there; one born later counts whole
  const sample = (bornLater: boolean) => {
    let tids: string[];
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { return; }
    for (const tid of tids) {
      try {
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const cpu = processCpu(`${pid}/task/${tid}`);
        const s = seen.get(tid);
        // a new thread carries its creator's name until it names itself: the latest name counts
        if (s) { s.last = cpu; s.comm = comm; } else seen.set(tid, { comm, start: bornLater ? 0 : cpu, last: cpu });
      } catch { /* the thread ended */ }
    }
  };
  sample(false);
  const timer = setInterval(() => sample(true), 20).unref();
  return {
    take() {
      clearInterval(timer);
      sample(true);
      const by: Record<string, number> = {};
      for (const s of seen.values()) by[s.comm] = (by[s.comm] ?? 0) + (s.last - s.start);
      return by;
    },
  };
}

export interface PgCpu { take(): Record<string, number> }

/** CPU seconds of one server per process kind since this call (see the file's comment). */
export function postgresCpu(postmaster: number): PgCpu {
  const before = new Map(postgresProcs(postmaster).map((p) => [p.pid, p]));
  return {
    take() {
      const by: Record<string, number> = {};
      for (const p of postgresProcs(postmaster)) {
        const b = before.get(p.pid);
        const k = kind(p.title);
        by[k] = (by[k] ?? 0) + p.cpu - (b?.cpu ?? 0);
        if (k === 'postmaster') by['ended meanwhile (autovacuum workers, …)'] = p.children - (b?.children ?? 0);
      }
      return by;
    },
  };
}

export function formatCpu(by: Record<string, number>): string {
  const total = Object.values(by).reduce((a, b) => a + b, 0);
  return Object.entries(by).filter(([, v]) => v >= 0.005).sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(2)} s (${((100 * v) / total).toFixed(0)} %)`).join('; ') + `; total ${total.toFixed(2)} s`;
}

interface Stmt {
  toplevel: boolean; calls: number; total_ms: number; rows: number; hit: number; read: number; dirtied: number; written: number;
  temp_read: number; temp_written: number; local_hit: number; local_read: number; local_dirtied: number; local_written: number; wal_bytes: number; query: string;
}

/** pg_stat_statements since the last reset, into DIR/pgss-<label>.txt; returns the table. */
export async function pgssDump(c: pg.Client, dir: string, label: string): Promise<string> {
  const { rows } = await c.query<Stmt>(`
    select toplevel, calls::int, total_exec_time as total_ms, rows::bigint::float8 as rows,
           shared_blks_hit::float8 as hit, shared_blks_read::float8 as read, shared_blks_dirtied::float8 as dirtied, shared_blks_written::float8 as written,
           temp_blks_read::float8 as temp_read, temp_blks_written::float8 as temp_written,
           local_blks_hit::float8 as local_hit, local_blks_read::float8 as local_read, local_blks_dirtied::float8 as local_dirtied, local_blks_written::float8 as local_written,
           wal_bytes::float8, query
      from pg_stat_statements s join pg_database d on d.oid = s.dbid
     where d.datname = current_database()
     order by total_exec_time desc`);
  const top = rows.filter((r) => r.toplevel).reduce((a, r) => a + r.total_ms, 0);
  const lines = [`pg_stat_statements, ${label}: top-level total ${(top / 1000).toFixed(2)} s; share = of the top-level total (a nested statement is inside its caller's time)`,
    'level    share    ms       calls   rows      shared hit/read/dirtied  local hit/read/dirtied/written  temp r/w   WAL MB  query'];
  for (const r of rows.slice(0, 40)) {
    lines.push([
      r.toplevel ? 'top   ' : 'nested', `${((100 * r.total_ms) / top).toFixed(1).padStart(5)} %`, r.total_ms.toFixed(0).padStart(7), String(r.calls).padStart(6),
      String(r.rows).padStart(8), `${r.hit}/${r.read}/${r.dirtied}`.padStart(22), `${r.local_hit}/${r.local_read}/${r.local_dirtied}/${r.local_written}`.padStart(30),
      `${r.temp_read}/${r.temp_written}`.padStart(9), (r.wal_bytes / 1048576).toFixed(1).padStart(7), r.query.replace(/\s+/g, ' ').slice(0, 400),
    ].join('  '));
  }
  const text = lines.join('\n') + '\n';
  writeFileSync(join(dir, `pgss-${label}.txt`), text);
  return text;
}

interface CpuProfile { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[]; timeDeltas: number[] }

/** Self time per function (and per file) of each .cpuprofile in `dir`, into DIR/cpu-summary.txt. */
export function cpuProfileSummary(dir: string, out: string): string {
  const lines: string[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')).sort()) {
    const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    const perFile = new Map<string, number>();
    let total = 0;
    p.samples.forEach((id, i) => {
      const dt = (p.timeDeltas[i] ?? 0) / 1000;
      const n = byId.get(id)!;
      if (n.callFrame.functionName === '(idle)') return;
      total += dt;
      const url = n.callFrame.url.replace(/^.*\/(node_modules\/[^/]+|dist\/src\/[^]+|src\/[^]+)$/, '$1') || '(native)';
      const key = `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + dt);
      const file = n.callFrame.url ? url.replace(/:\d+$/, '') : n.callFrame.functionName;
      perFile.set(file, (perFile.get(file) ?? 0) + dt);
    });
    lines.push(`${f}: ${(total / 1000).toFixed(2)} s busy (idle not counted)`);
    lines.push('  by file or kind:');
    for (const [k, v] of [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`    ${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(2)} s  ${k}`);
    lines.push('  by function (self time):');
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) lines.push(`    ${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(2)} s  ${k}`);
  }
  const text = lines.join('\n') + '\n';
  writeFileSync(out, text);
  return text;
}
