// @bench-tiny 300 1
// @bench-prints ours / bare throughput
/**
 * Benchmark of the xlsx reader alone: a generated RELATORIO18 (exceljs' writer) read
 *   (a) bare: exceljs' WorkbookReader (4.4.0 as published) on the file, every row's values touched;
 *   (b) ours: openWorkbook → detectType → readRows(RELATORIO18) → every StagingRow;
 *   (c) ours with the upload check first (inspectUpload inflates every part once);
 *   (d) ours on the same workbook saved as .ods, and (e) as a legacy .xls — at most 131,070
 *       data rows, what a .xls holds in tabs 20 and 30 (65,536 rows a sheet, one a header) —
 *       both written by LibreOffice (`soffice --headless --convert-to`) when it is installed,
 *       else by SheetJS's writer (@e965/xlsx); each opened by path, as the parse worker does.
 * Each run is a child process, so its peak RSS (VmHWM) is its own.
 *
 *   npm run bench -- xlsx-read [rows=200000] [runs=1]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs'; // the reference: exceljs 4.4.0 as published (a devDependency; nothing patched)
import { detectType, openWorkbook, readRows } from '../src/xlsx/index.js';
import { inspectUpload } from '../src/planilhas/upload.js';

interface Result { rows: number; ms: number; maxRssMb: number }

/**
 * Peak RSS of this process: VmHWM of /proc (Linux). getrusage's maxRSS is not used: Linux
 * keeps it across execve, so a child would report its parent's peak (the fixture builder's).
 */
function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS / 1024;
}

async function child(mode: string, file: string): Promise<void> {
  const t0 = performance.now();
  let rows = 0;
  if (mode === 'bare') {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {});
    for await (const ws of reader) {
      for await (const row of ws) {
        if (row.values) rows++;
      }
    }
  } else {
    let bytes: Buffer = mode === 'xls' || mode === 'ods' ? Buffer.alloc(0) : readFileSync(file);
    if (mode === 'upload') {
      const entry = (await inspectUpload(bytes, 'relatorio18.xlsx')).entries[0];
      if (!entry.ok) throw new Error(entry.motivo);
      bytes = entry.bytes;
    }
    const wb = await openWorkbook(mode === 'xls' || mode === 'ods' ? file : bytes);
    const tipo = await detectType(wb);
    if (tipo !== 'RELATORIO18') throw new Error(`detected ${tipo}`);
    const reader = readRows(wb, tipo);
    await reader.meta();
    for await (const row of reader.rows()) if (row.values) rows++;
    if (reader.rejectedRows() !== 0) throw new Error(`${reader.rejectedRows()} rows rejected`);
  }
  const ms = performance.now() - t0;
  const result: Result = { rows, ms, maxRssMb: peakRssMb() };
  process.stdout.write(JSON.stringify(result));
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 200_000);
  const runs = Number(process.argv[3] ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'bench-xlsx-'));
  const file = join(dir, 'relatorio18.xlsx');
  try {
    const { buildRelatorio18 } = await import('../test/fixtures/builder.js');
    const t0 = performance.now();
    writeFileSync(file, await buildRelatorio18({ rows: total }));
    console.log(`RELATORIO18 with ${total} data rows (tab 20: ${Math.ceil(total / 2)}, tab 30: ${Math.floor(total / 2)}): `
      + `${(statSync(file).size / 1048576).toFixed(1)} MiB, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const legacy = await legacyFiles(dir, total);
    const self = fileURLToPath(import.meta.url);
    const best: Record<string, Result> = {};
    const fileOf: Record<string, string> = { bare: file, ours: file, upload: file, ods: legacy.ods, xls: legacy.xls };
    for (let i = 0; i < runs; i++) {
      for (const mode of ['bare', 'ours', 'upload', 'ods', 'xls']) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', mode, fileOf[mode]!], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const r = JSON.parse(out) as Result;
        const prev = best[mode];
        if (!prev || r.ms < prev.ms) best[mode] = { ...r, maxRssMb: Math.max(r.maxRssMb, prev?.maxRssMb ?? 0) };
      }
    }
    const line = (name: string, r: Result) => `${name.padEnd(34)} ${String(r.rows).padStart(8)} rows  ${(r.ms / 1000).toFixed(2).padStart(6)} s  `
      + `${Math.round(r.rows / (r.ms / 1000)).toLocaleString('en').padStart(8)} rows/s  peak RSS ${r.maxRssMb.toFixed(0)} MB`;
    console.log(line('bare exceljs WorkbookReader', best.bare!));
    console.log(line('ours (open+detect+RELATORIO18)', best.ours!));
    console.log(line('ours + inspectUpload first', best.upload!));
    console.log(line(`ours on the .ods (${legacy.writer})`, best.ods!));
    console.log(line(`ours on the .xls (${legacy.writer})`, best.xls!));
    const ratio = (best.ours!.rows / best.ours!.ms) / (best.bare!.rows / best.bare!.ms);
    console.log(`ours / bare throughput: ${ratio.toFixed(2)}x${runs > 1 ? ` (best of ${runs})` : ''}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The RELATORIO18 as .ods (all rows) and .xls (at most 65,535 data rows a tab): LibreOffice
 * converts the exceljs .xlsx when `soffice` is installed; otherwise SheetJS writes them.
 */
async function legacyFiles(dir: string, total: number): Promise<{ xls: string; ods: string; writer: string }> {
  const { buildRelatorio18 } = await import('../test/fixtures/builder.js');
  const xlsRows = Math.min(total, 2 * 65_535);
  const t0 = performance.now();
  const odsSrc = join(dir, 'r18-ods.xlsx');
  const xlsSrc = join(dir, 'r18-xls.xlsx');
  writeFileSync(odsSrc, await buildRelatorio18({ rows: total }));
  writeFileSync(xlsSrc, xlsRows === total ? readFileSync(odsSrc) : await buildRelatorio18({ rows: xlsRows }));
  let writer = 'LibreOffice';
  const lo = (fmt: string, src: string) => spawnSync('soffice', ['--headless', '--convert-to', fmt, '--outdir', dir, src], { stdio: 'ignore' });
  if (lo('ods', odsSrc).status !== 0 || lo('xls', xlsSrc).status !== 0) {
    writer = 'SheetJS';
    const XLSX = await import('@e965/xlsx');
    for (const [src, type] of [[odsSrc, 'ods'], [xlsSrc, 'biff8']] as const) {
      const wb = XLSX.read(readFileSync(src), { dense: true, cellDates: true });
      writeFileSync(src.replace(/xlsx$/, type === 'ods' ? 'ods' : 'xls'), XLSX.write(wb, { bookType: type, type: 'buffer' }) as Buffer);
    }
  }
  const out = { ods: odsSrc.replace(/xlsx$/, 'ods'), xls: xlsSrc.replace(/xlsx$/, 'xls'), writer };
  console.log(`.ods (${total} rows) ${(statSync(out.ods).size / 1048576).toFixed(1)} MiB and .xls (${xlsRows} rows) `
    + `${(statSync(out.xls).size / 1048576).toFixed(1)} MiB written by ${writer} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, process.argv[4]!);
} else {
  await main();
}
