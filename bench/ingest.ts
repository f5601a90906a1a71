// @bench-tiny --rows 300 --movimento 30 --threads
// @bench-prints serviço ponta a ponta
// @bench-prints núcleos ocupados em média
// @bench-prints piso de uma importação que lê todas as linhas
// @bench-prints primeira: CPU do serviço por thread:
// @bench-prints guarda de regressão: importação >= 1,0× a leitura exceljs pura:
/**
 * bench/ingest: end-to-end spreadsheet ingest against a running service (a child process on
 * a throwaway Postgres + an embedded S3 store, storage mode OBJSTORE so the file bytes stay
 * out of the WAL). Prints, side by side:
 *   1. the reference: a bare exceljs streaming read of the same file (rows/s; median of three,
 *      each in a fresh Node process);
 *   1b. the floor: our own reader alone on the same file (bench/leitor-read.ts, median of three,
 *      each in a fresh process) — an import that reads every row cannot end sooner;
 *   2. the service end to end, upload -> SUCESSO (rows/s, peak RSS of the service);
 *   3. a re-import of the same rows in a file with another checksum (must write 0 rows; WAL);
 *   4. a re-import with 1% of the billing rows changed.
 * --profile DIR: also the profile of each import (bench/profile.ts): Postgres' CPU per process
 * kind, pg_stat_statements of every statement (nested ones too) into DIR/pgss-*.txt, the service's
 * --cpu-prof profiles summed into DIR/cpu-summary.txt; --explain adds auto_explain (EXPLAIN
 * ANALYZE, BUFFERS of every statement of 20 ms or more) into DIR/postgres.log. Profiling costs
 * time: compare shares, rows and buffers, not the wall times of a profiled run.
 * BENCH_SERVICE_LOG=FILE writes what the service printed (its log; with BENCH_NODE_ARGS=--trace-gc, its collections).
 * --threads: the service's CPU per thread (main, parse worker, libuv's pool, V8's helpers) of each import.
 * Usage: npm run bench -- ingest [--rows 200000] [--movimento 20000] [--heap 192] [--chunk 25000] [--threads] [--profile DIR [--explain]]
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedObjectStore } from '../src/embedded/objstore.js';
import { BENCH_TOKEN, benchDatabase, benchRelatorio18, fmt, startBenchService } from './lib.js';
import { cpuProfileSummary, formatCpu, pgssDump, postgresCpu, postmasterPid, processCpu, profileSettings, threadCpu } from './profile.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}

const N = arg('rows', 200_000);
const M = arg('movimento', Math.round(N / 10));
/** V8 old-space cap of the service, as the Dockerfile sets it (0 = Node's default). */
const HEAP = arg('heap', 192);
/** Rows per merge lot (XLS_MERGE_CHUNK_LINHAS of the service; 0 = the service's default). */
const LOTE = arg(process.argv.includes("--lote") ? "lote" : "chunk", 0); // --lote: the legacy name
const PROFILE = process.argv.includes('--profile') ? resolve(process.argv[process.argv.indexOf('--profile') + 1]!) : null;
const EXPLAIN = process.argv.includes('--explain');
/** --threads: the service's CPU per thread of each import (also part of --profile). */
const THREADS = PROFILE !== null || process.argv.includes('--threads');

function relatorio18(variant: 'base' | 'outro-checksum' | 'um-porcento'): Promise<Buffer> {
  // the title cell differs between variants: same rows, another checksum
  return benchRelatorio18({ faturamento: N, movimento: M, titulo: `Relatório 18 (${variant})`,
    alterada: variant === 'um-porcento' ? (i) => i % 100 === 0 : undefined });
}


/**
 * A read of the file measured fairly: `script` runs in a fresh Node process that loads only what
 * it reads with, `runs` times; the median counts. The reference is bench/bare-read.ts (exceljs
 * alone), the floor bench/leitor-read.ts (our reader alone).
 */
function childReads(bytes: Buffer, runs = 3, script = './bare-read.ts'): { rows: number; seconds: number; cpu: number; all: number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'bi-bench-bare-'));
  try {
    const file = join(dir, 'relatorio18.xlsx');
    writeFileSync(file, bytes);
    const results = Array.from({ length: runs }, () => JSON.parse(execFileSync(process.execPath,
      [...process.execArgv, fileURLToPath(new URL(script, import.meta.url)), file], { encoding: 'utf8' })) as { rows: number; seconds: number; cpu: number });
    const sorted = [...results].sort((a, b) => a.seconds - b.seconds);
    return { ...sorted[Math.floor(runs / 2)]!, all: results.map((r) => r.seconds) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  process.stderr.write(`gerando RELATORIO18 com ${N} linhas de faturamento e ${M} de movimento…\n`);
  const files = {
    base: await relatorio18('base'),
    outro: await relatorio18('outro-checksum'),
    umPct: await relatorio18('um-porcento'),
  };
  if (PROFILE) mkdirSync(join(PROFILE, 'cpu'), { recursive: true });
  const { cluster, url } = await benchDatabase('bi_bench', PROFILE ? profileSettings(EXPLAIN) : undefined);
  const s3dir = mkdtempSync(join(tmpdir(), 'bi-bench-s3-'));
  chmodSync(s3dir, 0o755);
  const s3 = await startEmbeddedObjectStore({ directory: s3dir });
  const svc = await startBenchService({
    DATABASE_URL: url, S3_FILE_STORAGE: 'OBJSTORE', S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey, JOBS_CONCURRENCY: '1',
    ...(HEAP > 0 ? { NODE_OPTIONS: `--max-old-space-size=${HEAP}` } : {}),
    ...(LOTE > 0 ? { XLS_MERGE_CHUNK_LINHAS: String(LOTE) } : {}),
  }, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE, 'cpu')}`] : []);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (PROFILE) await client.query('create extension if not exists pg_stat_statements');
  // the CPU of this bench's server only (its postmaster and children), not of other clusters on the machine
  const postmaster = await postmasterPid(client);
  try {
    const bare = childReads(files.base);
    // the floor: our reader alone on the same file (bench/leitor-read.ts), median of 3
    const leitor = childReads(files.base, 3, './leitor-read.ts');
    const sheetRows = N + M + 3; // data rows + headers + the period row
    const bareRate = bare.rows / bare.seconds;

    async function ingest(name: string, bytes: Buffer) {
      const lsn0 = (await client.query('select pg_current_wal_lsn() l')).rows[0].l;
      if (PROFILE) await client.query('select pg_stat_statements_reset()');
      const pgCpu = postgresCpu(postmaster);
      const cpu0 = processCpu(svc.child.pid!);
      const threads = THREADS ? threadCpu(svc.child.pid!) : null;
      const started = process.hrtime.bigint();
      const form = new FormData();
      form.append('arquivo', new Blob([bytes]), `${name}.xlsx`);
      const res = await fetch(`${svc.base}/api/xls/processar`, { method: 'POST', body: form, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      if (res.status !== 202) throw new Error(`upload ${name}: ${res.status} ${await res.text()}\n--- saída do serviço:\n${svc.output().slice(-3000)}`);
      const accepted = Number(process.hrtime.bigint() - started) / 1e9;
      const cpuAceito = processCpu(svc.child.pid!) - cpu0;
      const id = ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens[0]!.processamentoId;
      let row: { status: string; linhas_enviadas: number; linhas_efetivas: number; linhas_removidas: number; erro_mensagem: string | null };
      for (;;) {
        row = (await client.query('select status, linhas_enviadas, linhas_efetivas, linhas_removidas, erro_mensagem from xls_processamento where id = $1', [id])).rows[0];
        if (row.status !== 'PENDENTE' && row.status !== 'PROCESSANDO') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (row.status !== 'SUCESSO') throw new Error(`${name}: ${row.status} ${row.erro_mensagem}`);
      const wal = (await client.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint b', [lsn0])).rows[0].b as number;
      const pgPorTipo = pgCpu.take();
      const cpu = { service: processCpu(svc.child.pid!) - cpu0, postgres: Object.values(pgPorTipo).reduce((a, b) => a + b, 0) };
      if (threads) {
        const porThread = formatCpu(threads.take());
        process.stderr.write(`${name}: CPU do serviço por thread: ${porThread}\n`);
        if (PROFILE) writeFileSync(join(PROFILE, `service-cpu-${name}.txt`), `${porThread}\n`);
      }
      if (PROFILE) {
        const pgss = await pgssDump(client, PROFILE, name);
        process.stderr.write(`\n${name}: CPU do Postgres por processo: ${formatCpu(pgPorTipo)}\n${pgss.split('\n').slice(0, 14).join('\n')}\n`);
        writeFileSync(join(PROFILE, `pg-cpu-${name}.txt`), `${formatCpu(pgPorTipo)}\n`);
      }
      return { seconds, accepted, cpuAceito, cpu, rate: sheetRows / seconds, wal, ...row };
    }

    const first = await ingest('primeira', files.base);
    const same = await ingest('mesmas-linhas', files.outro);
    const pct = await ingest('um-porcento', files.umPct);
    const rss = svc.peakRssMb();

    const mb = (b: number) => fmt(b / 1024 / 1024);
    const line = (label: string, v: string) => console.log(`${label.padEnd(58)} ${v}`);
    console.log(`\nbench/ingest — RELATORIO18, ${N.toLocaleString('pt-BR')} linhas de faturamento + ${M.toLocaleString('pt-BR')} de movimento; arquivo ${mb(files.base.length)} MB (sha256 ${createHash('sha256').update(files.base).digest('hex').slice(0, 12)}…)`);
    line('referência: leitura exceljs pura (streaming), mediana de 3', `${fmt(bareRate, 0)} linhas/s (${fmt(bare.seconds, 2)} s; ${bare.all.map((x) => fmt(x, 2)).join(' / ')} s; ${bare.rows} linhas)`);
    line('nosso leitor sozinho, mesmo arquivo, mediana de 3', `${fmt(leitor.seconds, 2)} s (${leitor.all.map((x) => fmt(x, 2)).join(' / ')} s; ${leitor.rows} linhas) = ${fmt(bare.seconds / leitor.seconds, 2)}× a referência`);
    line('serviço ponta a ponta (upload -> SUCESSO)', `${fmt(first.rate, 0)} linhas/s (${fmt(first.seconds, 2)} s) = ${fmt(first.rate / bareRate, 2)}× a referência`);
    line('  upload aceito (202) em', `${fmt(first.accepted, 2)} s (CPU do serviço até ali ${fmt(first.cpuAceito, 2)} s)`);
    line('  CPU do serviço (Node) / do Postgres (deste cluster)', `${fmt(first.cpu.service, 2)} s / ${fmt(first.cpu.postgres, 2)} s (${cpus().length} núcleos)`);
    // what the ratio tends to when the cores are the limit: every core busy all along, the
    // upload included (CPU seconds of the reference read and ours, from their own processes)
    const cpuPrimeira = first.cpu.service + first.cpu.postgres;
    line('  teto por CPU (todos os núcleos sempre ocupados)', `${fmt(bare.seconds / (cpuPrimeira / cpus().length), 2)}× a referência (CPU: referência ${fmt(bare.cpu, 2)} s, nosso leitor sozinho ${fmt(leitor.cpu, 2)} s, esta importação ${fmt(cpuPrimeira, 2)} s)`);
    // the ratio over the ceiling: how busy the cores were on average, the upload included
    line('  núcleos ocupados em média', `${fmt(cpuPrimeira / first.seconds, 2)} de ${cpus().length} (${fmt((100 * cpuPrimeira) / first.seconds / cpus().length, 0)}% do teto)`);
    line('  gravadas / removidas / WAL', `${first.linhas_efetivas} / ${first.linhas_removidas} / ${mb(first.wal)} MB`);
    line('reimportação, mesmas linhas, outro checksum', `${fmt(same.seconds, 2)} s = ${fmt((100 * same.seconds) / first.seconds, 0)}% da primeira (${fmt(same.seconds / leitor.seconds, 2)}× o leitor sozinho); gravadas ${same.linhas_efetivas}; WAL ${mb(same.wal)} MB`);
    line('  CPU do serviço (Node) / do Postgres', `${fmt(same.cpu.service, 2)} s / ${fmt(same.cpu.postgres, 2)} s`);
    line('reimportação com 1% das linhas de faturamento alteradas', `${fmt(pct.seconds, 2)} s = ${fmt((100 * pct.seconds) / first.seconds, 0)}% da primeira; gravadas ${pct.linhas_efetivas}; WAL ${mb(pct.wal)} MB`);
    // The floor of any import that reads every row, in this run: the upload's acceptance plus our
    // reader alone on the file (no merge at all).
    const piso = same.accepted + leitor.seconds;
    line('piso de uma importação que lê todas as linhas', `upload aceito ${fmt(same.accepted, 2)} s + nosso leitor sozinho ${fmt(leitor.seconds, 2)} s = ${fmt(piso, 2)} s = ${fmt((100 * piso) / first.seconds, 0)}% desta primeira importação`);
    // The regression guard (docs/benchmarks.md; the speed targets of the first speed issue are
    // retired): a first import at least as fast as the bare exceljs read of the same file, with
    // the share of the machine's CPU it used (a verdict on a loaded machine says little).
    const razao = first.rate / bareRate;
    line('guarda de regressão: importação >= 1,0× a leitura exceljs pura:', `${razao >= 1 ? 'MANTIDA' : 'VIOLADA'} (${fmt(razao, 2)}×; CPU ${fmt(cpuPrimeira / first.seconds, 2)} de ${cpus().length} núcleos = ${fmt((100 * cpuPrimeira) / first.seconds / cpus().length, 0)}% da máquina)`);
    line(`pico de RSS do serviço (VmHWM; heap ${HEAP > 0 ? `${HEAP} MB` : 'padrão do Node'})`, `${fmt(rss, 0)} MB`);
  } finally {
    await client.end();
    await svc.stop();
    // BENCH_SERVICE_LOG=FILE: what the service printed (e.g. with BENCH_NODE_ARGS=--trace-gc)
    if (process.env.BENCH_SERVICE_LOG) writeFileSync(process.env.BENCH_SERVICE_LOG, svc.output());
    if (PROFILE) {
      process.stderr.write(cpuProfileSummary(join(PROFILE, 'cpu'), join(PROFILE, 'cpu-summary.txt')));
      if (cluster.logFile) copyFileSync(cluster.logFile, join(PROFILE, 'postgres.log'));
      process.stderr.write(`perfil em ${PROFILE}\n`);
    }
    await s3.stop();
    await cluster.stop();
    rmSync(s3dir, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
