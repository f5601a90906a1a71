// @bench-helper
/**
 * The floor of bench/ingest: our own reader alone on the same file (open, detect the type, every
 * staged row, nothing written anywhere), in a process of its own like bench/bare-read.ts. An
 * import that reads every row cannot end sooner than this. Prints {rows, seconds, cpu} as JSON
 * (cpu: this process' CPU seconds during the read, every thread).
 *
 *   node --import tsx bench/leitor-read.ts <file.xlsx>
 */
import { readFileSync } from 'node:fs';
import { detectType, openWorkbook, readRows } from '../src/xlsx/index.js';

const bytes = readFileSync(process.argv[2]!);
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const wb = await openWorkbook(bytes);
const tipo = await detectType(wb);
if (!tipo) throw new Error('tipo não reconhecido');
const reader = readRows(wb, tipo);
await reader.meta();
let rows = 0;
for await (const _row of reader.rows()) rows += 1;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({ rows, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpu: (cpu.user + cpu.system) / 1e6 }));
