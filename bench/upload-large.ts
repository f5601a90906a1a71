// @bench-tiny --cenario entrada,importar --entrada-mb 1 --partes 2 --parte-mb 1 --modes PSQL
// @bench-prints meta < 100 MB
/**
 * bench/upload-large: memory of the upload with large files, on the compiled service (a child
 * process, heap capped as in the Dockerfile: --max-old-space-size=192) with a throwaway Postgres
 * and the embedded S3 store in a process of its own. Prints the service's peak RSS (VmHWM) at
 * boot, after the receipt and at the end, and the growth. Three scenarios (`--cenario`):
 *
 * - `entrada` (default, with `importar`): one batch holding one entry of `--entrada-mb` (150) MB,
 *   once in each storage mode (PSQL, PSQL_OBJSTORE, OBJSTORE): receipt (the legacy column by COPY,
 *   the store by a stream) and the processing reading the original back (column or store).
 *   Target: peak RSS growth < 100 MB in each mode.
 * - `importar`: the manual import page with `--partes` (4) parts of `--parte-mb` (250) MB, in
 *   PSQL_OBJSTORE (XLS_UPLOAD_MAX_BYTES raised to hold them). Target: growth < 100 MB.
 * - `lote`: the older run: one ~200 MB zip of `--files` large RELATORIO18 workbooks (`--rows`),
 *   every processing in SUCESSO. Target: peak ≤ 300 MB.
 *
 * The large entries are a small valid workbook (RELATORIO18 for `entrada`, COMPRAS for
 * `importar`) plus one stored part of random bytes (`xl/media/bench-<n>.bin`): the archive
 * checks inflate and CRC every byte, the reader opens only the parts it needs, so the figures
 * are the upload's and not the parse's. Files are written to disk and uploaded from there.
 * Usage: npm run bench -- upload-large [--cenario entrada,importar|lote] [--entrada-mb 150]
 *        [--partes 4] [--parte-mb 250] [--modes PSQL,PSQL_OBJSTORE,OBJSTORE] [--heap 192]
 *        [--rows 500000] [--files 4] [--mode OBJSTORE] [--concurrency 2]
 */
import { chmodSync, mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import yauzl from 'yauzl';
import { makeZip, type ZipSpecEntry } from '../test/fixtures/zip.js';
import { startEmbeddedObjectStore } from '../src/embedded/objstore.js';
import { buildRelatorio18, buildWorkbook } from '../test/fixtures/builder.js';
import { BENCH_TOKEN, benchDatabase, benchRelatorio18, fmt, startBenchService, type BenchService } from './lib.js';

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

async function lote(): Promise<void> {
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

const CENARIOS = arg('cenario', 'entrada,importar').split(',');
const ENTRADA_MB = Number(arg('entrada-mb', '150'));
const PARTES = Number(arg('partes', '4'));
const PARTE_MB = Number(arg('parte-mb', '250'));
const MODES = arg('modes', 'PSQL,PSQL_OBJSTORE,OBJSTORE').split(',');
const IMPORTAR_TOKEN = 'bench-importar-token';
const MB = 1024 * 1024;

/** A workbook of about `mb` MB: `small`'s parts plus one stored part of random bytes (another checksum per `n`). */
async function inflated(small: Buffer, mb: number, n: number, pad: Buffer): Promise<Buffer> {
  return makeZip([...await parts(small), { name: `docProps/bench-${n}.xml`, data: `<bench n="${n}"/>` },
    { name: `xl/media/bench-${n}.bin`, data: pad.subarray(0, Math.max(0, Math.round(mb * MB) - small.length)), method: 'store' }]);
}

/** One service for one scenario, with its database and (unless PSQL) the store in its own process. */
async function withService<T>(mode: string, env: Record<string, string>, fn: (svc: BenchService, client: pg.Client) => Promise<T>): Promise<T> {
  const { cluster, url } = await benchDatabase('bi_bench_upload');
  const s3dir = mkdtempSync(join(tmpdir(), 'bi-bench-s3-'));
  chmodSync(s3dir, 0o755);
  const s3 = mode === 'PSQL' ? null : await startEmbeddedObjectStore({ directory: s3dir });
  const svc = await startBenchService({
    DATABASE_URL: url, S3_FILE_STORAGE: mode, JOBS_CONCURRENCY: CONCURRENCY,
    ...(s3 ? { S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey } : {}),
    ...(HEAP > 0 ? { NODE_OPTIONS: `--max-old-space-size=${HEAP}` } : {}),
    ...env,
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(svc, client);
  } finally {
    await client.end();
    await svc.stop();
    await s3?.stop();
    await cluster.stop();
    rmSync(s3dir, { recursive: true, force: true });
  }
}

/** Waits until none of `ids` is PENDENTE or PROCESSANDO; returns their statuses and errors. */
async function ended(client: pg.Client, where: string, param: unknown): Promise<Array<{ arquivo: string; status: string; erro_mensagem: string | null }>> {
  for (;;) {
    const { rows } = await client.query(`select arquivo, status, erro_mensagem from xls_processamento where ${where} order by arquivo`, [param]);
    if (rows.length > 0 && rows.every((r) => r.status !== 'PENDENTE' && r.status !== 'PROCESSANDO')) return rows;
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Linha { cenario: string; inicio: number; recibo: number; fim: number; status: string }

function imprimir(titulo: string, linhas: Linha[]): void {
  console.log(`\nbench/upload-large — ${titulo}; heap ${HEAP > 0 ? `${HEAP} MB` : 'padrão do Node'}; JOBS_CONCURRENCY ${CONCURRENCY}; object store em processo próprio`);
  console.log(`${'cenário'.padEnd(34)} ${'RSS ao iniciar'.padStart(15)} ${'pico no recibo'.padStart(15)} ${'pico no fim'.padStart(12)} ${'crescimento'.padStart(12)}  desfecho`);
  for (const l of linhas) {
    const g = l.fim - l.inicio;
    console.log(`${l.cenario.padEnd(34)} ${`${fmt(l.inicio, 0)} MB`.padStart(15)} ${`${fmt(l.recibo, 0)} MB`.padStart(15)} ${`${fmt(l.fim, 0)} MB`.padStart(12)} ${`${fmt(g, 0)} MB`.padStart(12)}  ${l.status} ${g < 100 ? '(meta < 100 MB: ok)' : '(meta < 100 MB: NÃO)'}`);
  }
}

async function entrada(dir: string, pad: Buffer): Promise<Linha[]> {
  const small = await buildRelatorio18({ rows: 20 });
  const xlsx = await inflated(small, ENTRADA_MB, 1, pad);
  const zipPath = join(dir, 'entrada.zip');
  writeFileSync(zipPath, makeZip([{ name: 'novembro/relatorio18.xlsx', data: xlsx, method: 'store' }]));
  process.stderr.write(`lote com uma entrada de ${fmt(xlsx.length / MB)} MB\n`);
  const out: Linha[] = [];
  for (const mode of MODES) {
    out.push(await withService(mode, {}, async (svc, client) => {
      const inicio = svc.peakRssMb();
      const form = new FormData();
      form.append('arquivo', await openAsBlob(zipPath), 'novembro.zip');
      const res = await fetch(`${svc.base}/api/xls/processar`, { method: 'POST', body: form, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      if (res.status !== 202) throw new Error(`upload (${mode}): ${res.status} ${await res.text()}`);
      const recibo = svc.peakRssMb();
      const rows = await ended(client, '$1::boolean', true);
      return { cenario: `1 entrada de ${ENTRADA_MB} MB, ${mode}`, inicio, recibo, fim: svc.peakRssMb(), status: rows.map((r) => r.status + (r.erro_mensagem ? ` (${r.erro_mensagem})` : '')).join(', ') };
    }));
  }
  return out;
}

async function importar(dir: string, pad: Buffer): Promise<Linha[]> {
  const small = await buildWorkbook([{ name: 'Compras', rows: [
    ['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total'],
    [new Date(Date.UTC(2026, 10, 3)), '11222333000181', 'Fornecedor', 'NF-1', 'Diesel S10', '1202', 1000, 5000],
  ] }]);
  const paths: string[] = [];
  for (let n = 1; n <= PARTES; n++) {
    const path = join(dir, `compras-${n}.xlsx`);
    writeFileSync(path, await inflated(small, PARTE_MB, n, pad));
    paths.push(path);
  }
  process.stderr.write(`página de importação: ${PARTES} partes de ${PARTE_MB} MB\n`);
  const limite = String(Math.ceil((PARTES * PARTE_MB + 16) * MB));
  return [await withService('PSQL_OBJSTORE', { XLS_IMPORTAR_TOKEN: IMPORTAR_TOKEN, XLS_UPLOAD_MAX_BYTES: limite }, async (svc, client) => {
    const inicio = svc.peakRssMb();
    const form = new FormData();
    form.append('uploaderId', 'bench');
    form.append('uploaderNome', 'Bench');
    for (const [i, path] of paths.entries()) form.append('arquivo', await openAsBlob(path), `compras-${i + 1}.xlsx`);
    const res = await fetch(`${svc.base}/xls/importar?k=${IMPORTAR_TOKEN}`, { method: 'POST', body: form, redirect: 'manual' });
    if (res.status !== 303) throw new Error(`importação: ${res.status} ${(await res.text()).slice(0, 2000)}`);
    const recibo = svc.peakRssMb();
    const rows = await ended(client, 'uploader_id = $1', 'bench');
    const status = [...new Set(rows.map((r) => r.status))].join(', ');
    return { cenario: `importação ${PARTES} × ${PARTE_MB} MB, PSQL_OBJSTORE`, inicio, recibo, fim: svc.peakRssMb(), status: `${rows.length} processamentos: ${status}` };
  })];
}

async function main(): Promise<void> {
  if (CENARIOS.includes('lote')) await lote();
  const novos = CENARIOS.filter((c) => c === 'entrada' || c === 'importar');
  if (novos.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'bi-bench-upload-'));
  try {
    const pad = randomBytes(Math.max(ENTRADA_MB, PARTE_MB) * MB);
    const linhas: Linha[] = [];
    if (novos.includes('entrada')) linhas.push(...await entrada(dir, pad));
    if (novos.includes('importar')) linhas.push(...await importar(dir, pad));
    imprimir('pico de RSS do serviço por caminho de envio', linhas);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
