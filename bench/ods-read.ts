// @bench-tiny 300 1
// @bench-prints ours .ods / SheetJS .ods throughput
// @bench-prints ours .ods / ours .xlsx throughput
// @bench-prints same cells in all three: yes
/**
 * Benchmark of the `.ods` reader: one generated table of 20 columns (text,
 * numbers, dates, booleans, as a commercial report has them) written by SheetJS' writer
 * (@e965/xlsx) as `.ods` and as `.xlsx`, then read in the same run
 *   (a) ours on the .ods: openWorkbook(path) → every row of every tab (content.xml streamed,
 *       one tab per pass), with the parse worker's heap (`--max-old-space-size` = 128 MB, the
 *       default XLS_LEITURA_HEAP_MB: a read that needs more dies here as it would there);
 *   (b) SheetJS on the same .ods: `XLSX.read` (dense, no text/HTML), every cell touched;
 *   (c) ours on the same data as .xlsx, as (a).
 * Each read is a child process, so its peak RSS (VmHWM) is its own; the peak heap is sampled
 * after every batch of rows for ours, and taken right after `XLSX.read` for SheetJS (the whole
 * workbook is alive then: its peak is at least that). Rows/s count data rows; the three must
 * find the same number of non-empty cells.
 *
 *   npm run bench -- ods-read [rows=65000] [runs=1]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWorkbook } from '../src/xlsx/index.js';

interface Result { rows: number; cells: number; ms: number; heapMb: number; maxRssMb: number }

const HEAP_MB = 128; // the parse worker's default heap (XLS_LEITURA_HEAP_MB)

function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS / 1024;
}

async function child(mode: string, file: string): Promise<void> {
  const heap = () => process.memoryUsage().heapUsed / 1048576;
  let heapMb = heap();
  const t0 = performance.now();
  let rows = 0;
  let cells = 0;
  if (mode === 'sheetjs') {
    const XLSX = await import('@e965/xlsx');
    const wb = XLSX.read(readFileSync(file), { dense: true, cellText: false, cellHTML: false, cellDates: true });
    heapMb = Math.max(heapMb, heap());
    for (const name of wb.SheetNames) {
      const data = (wb.Sheets[name] as unknown as { '!data'?: Array<Array<{ v?: unknown } | undefined> | undefined> })['!data'] ?? [];
      for (const row of data) {
        if (!row) continue;
        let any = false;
        for (const c of row) if (c && c.v !== undefined && c.v !== '') { cells++; any = true; }
        if (any) rows++;
      }
    }
  } else {
    const wb = await openWorkbook(file);
    for await (const { batches } of wb.pass(wb.sheets)) {
      for await (const batch of batches) {
        for (const row of batch) {
          rows++;
          for (const v of row.values) if (v !== undefined) cells++;
        }
        const h = heap();
        if (h > heapMb) heapMb = h;
      }
    }
    await wb.close();
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ rows, cells, ms, heapMb, maxRssMb: peakRssMb() } satisfies Result));
}

/** The report: a header row and `total` rows of 20 columns. */
function table(total: number): unknown[][] {
  const head = ['Filial', 'Data', 'Nota fiscal', 'Série', 'Cliente', 'CNPJ', 'Cidade', 'UF', 'Produto', 'Descrição',
    'Volume', 'Preço', 'Valor', 'Desconto', 'Custo', 'Margem', 'Vendedor', 'Pago', 'Vencimento', 'Observação'];
  const out: unknown[][] = [head];
  const produtos = ['GASOLINA C', 'ETANOL HIDRATADO', 'DIESEL S10', 'DIESEL S500', 'ARLA 32'];
  for (let i = 0; i < total; i++) {
    const volume = 1000 + (i * 37) % 20000;
    const preco = 5 + ((i * 13) % 300) / 100;
    out.push([
      `F${(i % 12) + 1}`, new Date(Date.UTC(2026, 10, 1 + (i % 30))), 100000 + i, 1 + (i % 3), `Cliente ${i % 997} & Filhos Ltda`,
      `${String(10000000 + (i % 89999)).padStart(8, '0')}/0001-${String(i % 100).padStart(2, '0')}`, ['Curitiba', 'Londrina', 'Maringá', 'Cascavel'][i % 4],
      'PR', 1000 + (i % 5), produtos[i % 5], volume, preco, Math.round(volume * preco * 100) / 100, i % 7 === 0 ? 12.5 : 0,
      Math.round(volume * (preco - 0.4) * 100) / 100, 0.4 * volume, `Vendedor ${i % 40}`, i % 2 === 0,
      new Date(Date.UTC(2026, 11, 1 + (i % 28))), i % 10 === 0 ? 'entrega programada' : null,
    ]);
  }
  return out;
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 65_000);
  const runs = Number(process.argv[3] ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'bench-ods-'));
  try {
    const XLSX = await import('@e965/xlsx');
    const t0 = performance.now();
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(table(total), { cellDates: true }), 'Vendas');
    const ods = join(dir, 'vendas.ods');
    const xlsx = join(dir, 'vendas.xlsx');
    writeFileSync(ods, XLSX.write(wb, { bookType: 'ods', type: 'buffer', compression: true }) as Buffer);
    writeFileSync(xlsx, XLSX.write(wb, { bookType: 'xlsx', type: 'buffer', compression: true }) as Buffer);
    const contentMb = contentXmlMb(ods);
    console.log(`${total} rows × 20 columns written by SheetJS in ${((performance.now() - t0) / 1000).toFixed(1)} s: `
      + `.ods ${(statSync(ods).size / 1048576).toFixed(1)} MiB (content.xml ${contentMb.toFixed(1)} MiB uncompressed), .xlsx ${(statSync(xlsx).size / 1048576).toFixed(1)} MiB`);
    const self = fileURLToPath(import.meta.url);
    const modes = [
      { mode: 'ours', file: ods, label: 'ours on the .ods', node: [`--max-old-space-size=${HEAP_MB}`] },
      { mode: 'sheetjs', file: ods, label: 'SheetJS on the .ods', node: [] },
      { mode: 'ours', file: xlsx, label: 'ours on the .xlsx', node: [`--max-old-space-size=${HEAP_MB}`] },
    ];
    const best: Result[] = [];
    for (let i = 0; i < runs; i++) {
      modes.forEach((m, k) => {
        const out = execFileSync(process.execPath, [...m.node, '--import', 'tsx', self, '--child', m.mode, m.file], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const r = JSON.parse(out) as Result;
        const prev = best[k];
        if (!prev || r.ms < prev.ms) best[k] = { ...r, heapMb: Math.max(r.heapMb, prev?.heapMb ?? 0), maxRssMb: Math.max(r.maxRssMb, prev?.maxRssMb ?? 0) };
      });
    }
    const rate = (r: Result) => r.rows / (r.ms / 1000);
    modes.forEach((m, k) => {
      const r = best[k]!;
      console.log(`${m.label.padEnd(22)} ${String(r.rows).padStart(8)} rows ${String(r.cells).padStart(9)} cells  ${(r.ms / 1000).toFixed(2).padStart(6)} s  `
        + `${Math.round(rate(r)).toLocaleString('en').padStart(8)} rows/s  heap peak ${r.heapMb.toFixed(0)} MB  peak RSS ${r.maxRssMb.toFixed(0)} MB`
        + (m.node.length ? ` (heap capped at ${HEAP_MB} MB)` : ''));
    });
    const [ours, sheetjs, xl] = best as [Result, Result, Result];
    const suffix = runs > 1 ? ` (best of ${runs})` : '';
    console.log(`ours .ods / SheetJS .ods throughput: ${(rate(ours) / rate(sheetjs)).toFixed(2)}x${suffix}`);
    console.log(`ours .ods / ours .xlsx throughput: ${(rate(ours) / rate(xl)).toFixed(2)}x${suffix}`);
    const same = ours.cells === sheetjs.cells && ours.cells === xl.cells && ours.rows === sheetjs.rows && ours.rows === xl.rows;
    console.log(`same cells in all three: ${same ? 'yes' : `NO (${ours.cells} / ${sheetjs.cells} / ${xl.cells} cells)`}`);
    if (!same) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Uncompressed size of the .ods' content.xml (its central directory entry). */
function contentXmlMb(file: string): number {
  const bytes = readFileSync(file);
  const name = Buffer.from('content.xml');
  for (let i = bytes.length - 22; i >= 0; i--) {
    if (bytes.readUInt32LE(i) !== 0x02014b50) continue;
    const n = bytes.readUInt16LE(i + 28);
    if (n === name.length && bytes.subarray(i + 46, i + 46 + n).equals(name)) return bytes.readUInt32LE(i + 24) / 1048576;
  }
  return NaN;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, process.argv[4]!);
} else {
  await main();
}
