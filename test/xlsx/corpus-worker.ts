/**
 * The worker thread of test/xlsx/corpus.test.ts: opens each file it is sent the way the parse
 * worker does (openWorkbook by path, the configured limits, then detectType), reads every tab
 * whole and answers its cells in the references' shape (`[row, col, kind, value]`, rows and
 * columns from 0; kind n, s, b, e, or d for a date as a serial day count from 1899-12-30).
 * A WorkbookError is a refusal with its staff reason; anything else thrown is answered as
 * `bruto` (a raw error, a defect). The host starts it under the parse worker's resourceLimits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TruncatedText, WorkbookError, detectType, openWorkbook } from '../../src/xlsx/index.js';
import { unwrap } from '../../src/xlsx/cells.js';
import type { ArchiveLimits } from '../../src/xlsx/index.js';

export type CorpusCell = [number, number, 'n' | 's' | 'b' | 'e' | 'd', unknown];
export type CorpusAnswer =
  | { file: string; ok: true; formato: string; sheets: Array<{ name: string; cells: CorpusCell[]; truncated: Array<[number, number, number]> }>; ms: number }
  | { file: string; ok: false; workbook: boolean; motivo: string; ms: number };

const limits = workerData as Partial<ArchiveLimits> & { maxCellChars?: number; maxBiffBytes?: number };
const port = parentPort!;

function cellOf(v: unknown): [CorpusCell[2], unknown] | null {
  const u = unwrap(v);
  if (u === undefined || u === null) return null;
  if (typeof u === 'string') return u === '' ? null : ['s', u];
  if (u instanceof TruncatedText) return ['s', u.text];
  if (typeof u === 'number') return ['n', u];
  if (typeof u === 'boolean') return ['b', u];
  if (u instanceof Date) return ['d', u.getTime() / 86_400_000 + 25_569];
  if (typeof u === 'object' && 'error' in u) return ['e', String((u as { error: unknown }).error)];
  return ['s', String(u)];
}

async function read(file: string): Promise<CorpusAnswer> {
  const t0 = performance.now();
  try {
    const wb = await openWorkbook(file, limits);
    try {
      await detectType(wb);
      const sheets: Array<{ name: string; cells: CorpusCell[]; truncated: Array<[number, number, number]> }> = [];
      for await (const { sheet, batches } of wb.pass(wb.sheets)) {
        const cells: CorpusCell[] = [];
        const truncated: Array<[number, number, number]> = [];
        for await (const batch of batches) {
          for (const row of batch) {
            row.values.forEach((v, col) => {
              const c = cellOf(v);
              if (c) cells.push([row.number - 1, col, c[0], c[1]]);
              const u = unwrap(v);
              if (u instanceof TruncatedText) truncated.push([row.number - 1, col, u.chars]);
            });
          }
        }
        sheets.push({ name: sheet.name, cells, truncated });
      }
      return { file, ok: true, formato: wb.formato, sheets, ms: performance.now() - t0 };
    } finally {
      await wb.close();
    }
  } catch (err) {
    const e = err as Error;
    return { file, ok: false, workbook: err instanceof WorkbookError, motivo: e?.message ?? String(err), ms: performance.now() - t0 };
  }
}

port.on('message', (m: { file: string }) => {
  void read(m.file).then((answer) => port.postMessage(answer));
});
port.postMessage({ ready: true });
