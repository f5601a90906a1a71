// @bench-tiny --rows 300 --files 2
// @bench-prints todas em SUCESSO
/**
 * bench/upload-large: memory of the intake with large files. Uploads one ~200 MB zip of
 * several large RELATORIO18 workbooks to the compiled service (a child process, heap capped
 * as in the Dockerfile: --max-old-space-size=192; JOBS_CONCURRENCY as configured, default 2)
 * on a throwaway Postgres + embedded S3 store, waits until every processing ends, and prints
 * the service's peak RSS (VmHWM) after the receipt and at the end. Target: ≤ 300 MB.
 *
 * The workbooks hold the same rows (one is generated; the others are the same parts re-zipped
 * with one extra `docProps/bench-<n>.xml` part: another checksum, so each is a processing of
 * its own, read whole; the merge of the copies writes 0 rows).
 * Usage: npm run bench -- upload-large [--rows 500000] [--files 4] [--heap 192] [--mode OBJSTORE|PSQL_OBJSTORE|PSQL] [--concurrency 2]
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import yauzl from 'yauzl';
import { makeZip, type ZipSpecEntry } from '../test/fixtures/zip.js';
import { startEmbeddedObjectStore } from '../src/embedded/objstore.js';
import { BENCH_TOKEN, benchDatabase, benchRelatorio18, fmt, startBenchService } from './lib.js';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
}

const N = Number(arg('rows', '500000'));
const FILES = Number(arg('files', '4'));
const HEAP = Number(arg('heap', '192'));
const MODE = arg('mode', 'OBJSTORE');
const CONCURRENCY = arg('concurrency', '2');

function relatorio18(): Promise<Buffer> {
  return benchRelatorio18({ faturamento: N, movimento: Math.round(N / 10), titulo: 'Relatório 18' });
}

/** The parts of an xlsx, inflated (to re-zip them with one more part). */
async function parts(xlsx: Buffer): Promise<ZipSpecEntry[]> {
  const zip = await yauzl.fromBufferPromise(xlsx, { lazyEntries: false });
  const out: ZipSpecEntry[] = [];
  for await (const e of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
    out.push({ name: e.fileName, data: Buffer.concat(chunks) });
  }
  zip.close();
  return out;
}

async function main(): Promise<void> {
  process.stderr.write(`gerando RELATORIO18 com ${N} linhas de faturamento…\n`);
  const base = await relatorio18();
  const ps = await parts(base);
  const workbooks = [base];
  for (let n = 1; n < FILES; n++) {
    workbooks.push(makeZip([...ps, { name: `docProps/bench-${n}.xml`, data: `<bench n="${n}"/>` }]));
  }
  const zip = makeZip(workbooks.map((data, n) => ({ name: `novembro/relatorio18-${n + 1}.xlsx`, data, method: 'store' as const })));
  process.stderr.write(`zip de ${fmt(zip.length / 1024 / 1024)} MB com ${FILES} planilhas de ${fmt(base.length / 1024 / 1024)} MB\n`);

  const { cluster, url } = await benchDatabase('bi_bench_upload');
  const s3dir = mkdtempSync(join(tmpdir(), 'bi-bench-s3-'));
  chmodSync(s3dir, 0o755);
  const s3 = await startEmbeddedObjectStore({ directory: s3dir });
  const svc = await startBenchService({
    DATABASE_URL: url, S3_FILE_STORAGE: MODE, S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey, JOBS_CONCURRENCY: CONCURRENCY,
    ...(HEAP > 0 ? { NODE_OPTIONS: `--max-old-space-size=${HEAP}` } : {}),
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rssStart = svc.peakRssMb();
    const started = process.hrtime.bigint();
    const form = new FormData();
    form.append('arquivo', new Blob([zip]), 'novembro.zip');
    const res = await fetch(`${svc.base}/api/xls/processar`, { method: 'POST', body: form, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const accepted = Number(process.hrtime.bigint() - started) / 1e9;
    const rssReceipt = svc.peakRssMb();
    const ids = ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens.map((i) => i.processamentoId);
    let rows: Array<{ status: string; erro_mensagem: string | null }>;
    for (;;) {
      rows = (await client.query('select status, erro_mensagem from xls_processamento where id = any($1::uuid[])', [ids])).rows;
      if (rows.every((r) => r.status !== 'PENDENTE' && r.status !== 'PROCESSANDO')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const bad = rows.filter((r) => r.status !== 'SUCESSO');
    if (bad.length) throw new Error(`processamentos sem SUCESSO: ${JSON.stringify(bad)}`);
    const rss = svc.peakRssMb();

    const line = (label: string, v: string) => console.log(`${label.padEnd(60)} ${v}`);
    console.log(`\nbench/upload-large — zip de ${fmt(zip.length / 1024 / 1024)} MB: ${FILES} × RELATORIO18 de ${fmt(base.length / 1024 / 1024)} MB (${N.toLocaleString('pt-BR')} + ${Math.round(N / 10).toLocaleString('pt-BR')} linhas); modo ${MODE}; JOBS_CONCURRENCY ${CONCURRENCY}; heap ${HEAP > 0 ? `${HEAP} MB` : 'padrão do Node'}`);
    line('RSS do serviço ao iniciar', `${fmt(rssStart, 0)} MB`);
    line('upload aceito (202) em', `${fmt(accepted, 2)} s`);
    line('pico de RSS do serviço até o recibo (VmHWM)', `${fmt(rssReceipt, 0)} MB`);
    line('todas em SUCESSO em', `${fmt(seconds, 1)} s`);
    line('pico de RSS do serviço no fim (VmHWM)', `${fmt(rss, 0)} MB (meta ≤ 300 MB)`);
  } finally {
    await client.end();
    await svc.stop();
    await s3.stop();
    await cluster.stop();
    rmSync(s3dir, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
