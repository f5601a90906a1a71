// @bench-helper
/**
 * Shared pieces of the benchmarks: a throwaway database server, the service as a child
 * process (so its peak RSS can be read and it can be killed), and small statistics helpers.
 * Everything listens on 127.0.0.1 only.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/embedded/postgres.js';
import { projectRoot } from '../src/paths.js';
import { startTestCluster, recreateDatabase, type TestCluster } from '../test/harness/cluster.js';
import { migrate } from '../src/db/migrate.js';
import { buildWorkbook, generatedFaturamento, generatedMovimento, FATURAMENTO_HEADERS, MOVIMENTO_HEADERS, FATURAMENTO_FIELDS, MOVIMENTO_FIELDS, type CellInput } from '../test/fixtures/builder.js';

export const BENCH_TOKEN = 'bench-api-token';

/** A throwaway cluster and a migrated database `name`; `settings`: server settings of a profile (bench/profile.ts). */
export async function benchDatabase(name = 'bi_bench', settings?: Record<string, string>): Promise<{ cluster: TestCluster; url: string }> {
  const cluster = await startTestCluster({ settings });
  await recreateDatabase(cluster.adminUrl, name);
  const url = cluster.urlFor(name);
  await migrate(url);
  return { cluster, url };
}

export interface BenchService {
  base: string;
  child: ChildProcess;
  output(): string;
  peakRssMb(): number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

let built = false;

/**
 * Compiles src/ to dist/ once per run, as the Docker image does (`npm run build`);
 * BENCH_DIST_PRONTO=1: dist/ was just built by the caller (the test running every bench).
 */
function buildOnce(): void {
  if (built || process.env.BENCH_DIST_PRONTO === '1') return;
  execFileSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: projectRoot, stdio: 'inherit' });
  built = true;
}

/** Starts the compiled service (`node dist/src/main.js`, as in production) in its own process. */
export async function startBenchService(env: Record<string, string>, extraNodeArgs: string[] = []): Promise<BenchService> {
  buildOnce();
  const port = await freePort();
  // BENCH_NODE_ARGS: extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it
  const nodeArgs = [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), ...extraNodeArgs];
  const child = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', NODE_ENV: 'production', LOG_LEVEL: 'warn',
      PORT: String(port), HOST: '127.0.0.1', BI_COMERCIAL_XLS_API_TOKEN: BENCH_TOKEN, S3_FILE_STORAGE: 'PSQL',
      // the bench cluster's pg_cron serves its own database (bi_cron), as the tests' does
      PG_CRON_OBRIGATORIO: 'false',
      APP_LOGS_DIR: mkdtempSync(join(tmpdir(), 'bi-bench-logs-')), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`o serviço saiu (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`o serviço não respondeu:\n${out}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => out,
    peakRssMb: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    stop: (signal: NodeJS.Signals = 'SIGTERM') => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    }),
  };
}

export function fmt(n: number, digits = 1): string {
  return n.toLocaleString('pt-BR', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * A generated RELATORIO18 workbook (November 2026): `faturamento` rows in tab 20 and
 * `movimento` rows in tab 30. `titulo` (tab 10, A1) changes the checksum without changing a
 * row; `alterada(i)` marks billing rows whose value is changed by one (the "1% changed" run).
 */
export async function benchRelatorio18(opts: { faturamento: number; movimento: number; titulo: string; alterada?: (i: number) => boolean }): Promise<Buffer> {
  const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));
  function* tab20(): Generator<CellInput[]> {
    yield [...FATURAMENTO_HEADERS];
    for (let i = 0; i < opts.faturamento; i++) {
      const r = generatedFaturamento(i) as Record<string, CellInput>;
      if (opts.alterada?.(i)) r.valor_total = Number(r.valor_total) + 1;
      yield FATURAMENTO_FIELDS.map((f) => r[f] ?? null);
    }
  }
  function* tab30(): Generator<CellInput[]> {
    yield [...MOVIMENTO_HEADERS];
    for (let i = 0; i < opts.movimento; i++) {
      const r = generatedMovimento(i) as Record<string, CellInput>;
      yield MOVIMENTO_FIELDS.map((f) => r[f] ?? null);
    }
  }
  return buildWorkbook([
    { name: '10', rows: [[opts.titulo, null, null, 'Período', utc(2026, 11, 1), utc(2026, 11, 30)]] },
    { name: '20', rows: tab20() },
    { name: '30', rows: tab30() },
  ]);
}
