// @bench-helper
/**
 * The reference of bench/ingest: a bare exceljs streaming read of a file, in a process of
 * its own that loads nothing else (measured: importing the embedded object store into the
 * same process slowed this very read by 25–50 %), with exceljs as published (a devDependency,
 * unpatched). Prints {rows, seconds, cpu} as JSON: cpu is this process' CPU seconds during the
 * read, every thread (V8's helpers and libuv's pool too).
 *
 *   node --import tsx bench/bare-read.ts <file.xlsx>
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';

const bytes = readFileSync(process.argv[2]!);
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), {
  entries: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', worksheets: 'emit',
});
let rows = 0;
for await (const ws of reader) for await (const _row of ws) rows += 1;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({ rows, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpu: (cpu.user + cpu.system) / 1e6 }));
