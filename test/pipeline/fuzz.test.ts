/**
 * Fuzz: mutations of small sound files of every format — a
 * loose .xlsx, a .xls, an .ods and a batch .zip — cut at every offset (1,500 offsets spread
 * over a larger file), bit-flipped, with the
 * container's lengths and offsets set to extremes, with zip entries removed or duplicated.
 *
 * 1. Every case goes through what the main process does with an upload's bytes (planUpload,
 *    the archive checks of a loose file and of each batch entry, the format by content) and
 *    through the reader as the parse thread runs it (open, detect, read every row of every
 *    tab, with the production limits). Allowed outcomes: accepted, or a refusal/failure with a
 *    reason (ArchiveError, WorkbookError). A throw where nothing catches it would fail this
 *    test file (vitest reports unhandled rejections); a case that does not end within its time
 *    limit fails it too.
 * 2. A deterministic sample goes through the real upload path (POST /api/xls/processar, the job,
 *    the isolated parse thread with its heap limit): never a 5xx, every processing ends in a
 *    final status, and the service still answers.
 * The counts are printed (`fuzz: …`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { handmadeXlsx } from '../fixtures/handmade.js';
import { makeZip, type ZipSpecEntry } from '../fixtures/zip.js';
import { odsFile, odsTable, xlsFile } from '../fixtures/cfb.js';
import { bitflips, entradasZip, extremosCfb, extremosZip, truncamentos, type Mutacao } from '../fixtures/mutacoes.js';
import { ArchiveError, WorkbookError, openWorkbook, DEFAULT_ARCHIVE_LIMITS } from '../../src/xlsx/index.js';
import { detectType } from '../../src/xlsx/detect.js';
import { checkArchive, planUpload } from '../../src/planilhas/upload.js';
import { extractEntry, readCentralDirectory } from '../../src/xlsx/zip.js';
import { extensaoDoConteudo } from '../../src/xlsx/open.js';
import { FileSource } from '../../src/xlsx/source.js';

const SPOOL = join(mkdtempSync(join(tmpdir(), 'bi-fuzz-')), 'upload');

/** A case that takes longer than this has hung. */
const LIMITE_CASO_MS = 5_000;

interface Base { nome: string; arquivo: string; bytes: Buffer; zip: boolean; cfb: boolean }

async function entradasDe(zip: Buffer): Promise<ZipSpecEntry[]> {
  const index = await readCentralDirectory(zip, DEFAULT_ARCHIVE_LIMITS, null);
  const out: ZipSpecEntry[] = [];
  for (const e of index.entries) out.push({ name: e.name, data: await extractEntry(zip, e, null), method: e.method === 0 ? 'store' : 'deflate' });
  return out;
}

function bases(): Base[] {
  const xlsx = handmadeXlsx({ sheets: [{ name: 'Plan1', rows: [['Produto', 'Qtd'], ['Diesel S10', 1000], ['Gasolina', 2.5]] }] });
  const xls = xlsFile([{ name: 'Plan1', cells: [[0, 0, 'Produto'], [0, 1, 'Qtd'], [1, 0, 'Diesel S10'], [1, 1, 1000], [2, 1, new Date(Date.UTC(2026, 10, 2))]] }]).bytes;
  const ods = odsFile(odsTable('Plan1', [['Produto', 'Qtd'], ['Diesel S10', 1000], [null, 2.5]]));
  const lote = makeZip([{ name: 'a.xlsx', data: xlsx }, { name: 'b.ods', data: ods }, { name: 'leia-me.txt', data: 'x' }]);
  return [
    { nome: 'xlsx', arquivo: 'vendas.xlsx', bytes: xlsx, zip: true, cfb: false },
    { nome: 'xls', arquivo: 'vendas.xls', bytes: xls, zip: false, cfb: true },
    { nome: 'ods', arquivo: 'vendas.ods', bytes: ods, zip: true, cfb: false },
    { nome: 'zip', arquivo: 'lote.zip', bytes: lote, zip: true, cfb: false },
  ];
}

async function mutacoes(b: Base): Promise<Mutacao[]> {
  return [
    // at every offset of a file up to 1,500 bytes; beyond it, 1,500 offsets spread over it
    ...truncamentos(b.bytes, Math.ceil(b.bytes.length / 1500)),
    ...bitflips(b.bytes, 300, 0x5eed + b.bytes.length),
    ...(b.zip ? extremosZip(b.bytes) : []),
    ...(b.cfb ? extremosCfb(b.bytes) : []),
    ...(b.zip ? entradasZip(await entradasDe(b.bytes)) : []),
  ];
}

type Desfecho = 'aceito' | 'recusado' | 'falha da leitura';

/** The reader as the parse thread runs it: open, detect, every row of every tab. */
async function lerTudo(bytes: Buffer): Promise<void> {
  const wb = await openWorkbook(bytes);
  try {
    await detectType(wb);
    for await (const { batches } of wb.pass(wb.sheets)) for await (const _ of batches) { /* every row */ }
  } finally {
    await wb.close();
  }
}

/** What the main process does with an upload's bytes, then the reader on each file it keeps. */
async function caso(arquivo: string, bytes: Buffer): Promise<Desfecho> {
  const arquivos: Buffer[] = [];
  // the upload as the service holds it: spooled to a file, read through a descriptor
  writeFileSync(SPOOL, bytes);
  const fonte = await FileSource.open(SPOOL);
  try {
    const plan = await planUpload(fonte, arquivo);
    if (plan.kind === 'arquivo') {
      if (plan.zip) await checkArchive(fonte, DEFAULT_ARCHIVE_LIMITS, null);
      arquivos.push(bytes);
    } else {
      for (const p of plan.entries) {
        const data = await extractEntry(fonte, p.entry, null);
        if (!p.processar) continue;
        await checkArchive(data, DEFAULT_ARCHIVE_LIMITS, p.arquivo);
        arquivos.push(data);
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) return 'recusado';
    throw err;
  } finally {
    await fonte.close();
  }
  let desfecho: Desfecho = 'aceito';
  for (const a of arquivos) {
    await extensaoDoConteudo(a); // never throws: the object key's extension
    try {
      await lerTudo(a);
    } catch (err) {
      // in production the parse thread turns any error into the processing's ERRO; here
      // every error must at least be an Error (a reason to show), thrown where it is caught
      if (!(err instanceof Error)) throw new Error(`falha sem Error: ${String(err)}`);
      desfecho = 'falha da leitura';
    }
  }
  return desfecho;
}

function comLimite<T>(p: Promise<T>, nome: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`${nome}: passou de ${LIMITE_CASO_MS} ms`)), LIMITE_CASO_MS); })])
    .finally(() => clearTimeout(t));
}

describe('fuzz: mutated files of every format', () => {
  it('every mutation ends accepted or refused with a reason, within its time limit (main-process checks and the reader)', async () => {
    const inicio = Date.now();
    const linhas: string[] = [];
    let total = 0;
    for (const b of bases()) {
      const contagem: Record<Desfecho, number> = { aceito: 0, recusado: 0, 'falha da leitura': 0 };
      const casos = await mutacoes(b);
      for (const m of casos) {
        const d = await comLimite(caso(b.arquivo, m.bytes), `${b.nome} ${m.nome}`);
        contagem[d] += 1;
      }
      // the sound file itself is read whole
      expect(await caso(b.arquivo, b.bytes), b.nome).toBe('aceito');
      total += casos.length;
      linhas.push(`${b.nome} ${casos.length} (${contagem.aceito} aceitos, ${contagem.recusado} recusados na chegada, ${contagem['falha da leitura']} ERRO na leitura)`);
    }
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    console.log(`fuzz: RSS do processo de teste ao fim: ${rss} MB`);
    console.log(`fuzz: ${total} casos em ${((Date.now() - inicio) / 1000).toFixed(1)} s — ${linhas.join('; ')}`);
    expect(total).toBeGreaterThan(5000);
  }, 240_000);
});

describe('fuzz: a sample through the real upload path', () => {
  let db: TestDatabase;
  let p: Pipeline;
  beforeAll(async () => {
    db = await createTestDatabase();
    p = await startPipeline(db, { env: { XLS_LEITURA_HEAP_MB: '64', LOG_LEVEL: 'fatal' } });
  });
  afterAll(async () => {
    await p?.close();
    await db?.drop();
  });

  it('never a 5xx; every processing ends in a final status; the service still answers', async () => {
    const inicio = Date.now();
    const statuses = new Map<number, number>();
    let n = 0;
    for (const b of bases()) {
      const casos = await mutacoes(b);
      // a deterministic spread of the cases: every k-th, about 8 per format
      const k = Math.max(1, Math.floor(casos.length / 8));
      for (let i = 0; i < casos.length; i += k) {
        const m = casos[i]!;
        if (m.bytes.length === 0) continue;
        const res = await p.upload(`${n++}-${b.arquivo}`, m.bytes, 'application/octet-stream');
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, `${b.nome} ${m.nome}: ${res.body}`).toBeLessThan(500);
      }
    }
    await p.drain(120_000);
    const { rows } = await db.pool.query<{ status: string; n: number }>('select status, count(*)::int n from xls_processamento group by 1 order by 1');
    for (const r of rows) expect(['SUCESSO', 'ERRO', 'IGNORADO', 'DUPLICADO', 'RETIDO']).toContain(r.status);
    expect((await p.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    console.log(`fuzz: ${n} envios pelo caminho real em ${((Date.now() - inicio) / 1000).toFixed(1)} s — respostas ${[...statuses].map(([s, c]) => `${s}×${c}`).join(', ')}; processamentos ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}`);
  }, 240_000);
});
