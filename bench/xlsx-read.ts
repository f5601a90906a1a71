// @bench-tiny 300 1
// @bench-prints ours / bare throughput
/**
 * Benchmark of the xlsx reader alone: a generated RELATORIO18 (exceljs' writer) read
 *   (a) bare: exceljs' WorkbookReader (4.4.0 as published) on the file, every row's values touched;
 *   (b) ours: openWorkbook → detectType → readRows(RELATORIO18) → every StagingRow;
 *   (c) ours with the upload check first (inspectUpload inflates every part once).
 * Each run is a child process, so its peak RSS (VmHWM) is its own.
 *
 *   npm run bench -- xlsx-read [rows=200000] [runs=1]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs'; // the reference: exceljs 4.4.0 as published (a devDependency; nothing patched)
import { detectType, openWorkbook, readRows } from '../src/xlsx/index.js';
import { inspectUpload } from '../src/xls/upload.js';

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
    let bytes: Buffer = readFileSync(file);
    if (mode === 'upload') {
      const entry = (await inspectUpload(bytes, 'relatorio18.xlsx')).entries[0];
      if (!entry.ok) throw new Error(entry.motivo);
      bytes = entry.bytes;
    }
    const wb = await openWorkbook(bytes);
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
    const self = fileURLToPath(import.meta.url);
    const best: Record<string, Result> = {};
    for (let i = 0; i < runs; i++) {
      for (const mode of ['bare', 'ours', 'upload']) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', mode, file], { encoding: 'utf8' });
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
    const ratio = (best.ours!.rows / best.ours!.ms) / (best.bare!.rows / best.bare!.ms);
    console.log(`ours / bare throughput: ${ratio.toFixed(2)}x${runs > 1 ? ` (best of ${runs})` : ''}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, process.argv[4]!);
} else {
  await main();
}
