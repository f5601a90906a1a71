/**
 * The parse worker (a worker thread started by isolated-parse.ts): opens the original,
 * detects its type, reads the type's parameters and streams its rows back as COPY chunks.
 * Everything a hostile or huge spreadsheet can make expensive happens here, under the
 * thread's own heap limit (resourceLimits): if it dies, only the parse dies.
 *
 * Protocol (messages on parentPort), in order:
 *   → { type: 'tipo', tipo, formato }     detected (or given) type, the format read (xlsx, xls, ods); tipo null: the end
 *   → { type: 'meta', meta }              the type's parameters
 *   ← { type: 'tabelas', tabelas }        the staging tables, once the job has created them
 *   ← { type: 'credito' }                 one more chunk may be sent (two are granted at start)
 *   → { type: 'chunk', staging, linhas, bytes: ArrayBuffer (transferred) }
 *   → { type: 'fim', erros, rejeitadas }  the rows are over; the invalid rows' fields
 *   → { type: 'erro', mensagem, workbook }  anywhere: the parse failed (workbook: a WorkbookError)
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { StagingTabela } from './db.js';
import { type ArchiveLimits, type TipoPlanilha, WorkbookError, detectType, openWorkbook, readRows } from '../xlsx/index.js';
import { chunksCopia } from './chunks.js';

export interface ParseWorkerData {
  /** The original: a file path, or its bytes. */
  input: string | Uint8Array;
  /** The type already recorded for the processing (null: detect it). */
  tipo: TipoPlanilha | null;
  limits: Partial<ArchiveLimits> & { maxCellChars?: number; maxBiffBytes?: number };
  chunkLinhas: number;
}

type Inbound = { type: 'tabelas'; tabelas: StagingTabela[] } | { type: 'credito' };

const port = parentPort!;
const inbox: Inbound[] = [];
let wake: (() => void) | null = null;
port.on('message', (m: Inbound) => {
  inbox.push(m);
  wake?.();
  wake = null;
});

async function receive<T extends Inbound['type']>(type: T): Promise<Extract<Inbound, { type: T }>> {
  for (;;) {
    const i = inbox.findIndex((m) => m.type === type);
    if (i >= 0) return inbox.splice(i, 1)[0] as Extract<Inbound, { type: T }>;
    await new Promise<void>((resolve) => { wake = resolve; });
  }
}

async function main(data: ParseWorkerData): Promise<void> {
  const input = typeof data.input === 'string' ? data.input : Buffer.from(data.input.buffer, data.input.byteOffset, data.input.byteLength);
  const wb = await openWorkbook(input, data.limits);
  try {
    const tipo = data.tipo ?? (await detectType(wb));
    port.postMessage({ type: 'tipo', tipo, formato: wb.formato });
    if (!tipo) return;
    const reader = readRows(wb, tipo);
    try {
      port.postMessage({ type: 'meta', meta: await reader.meta() });
      const { tabelas } = await receive('tabelas');
      let credits = 2;
      for await (const chunk of chunksCopia(tabelas, reader.rows(), data.chunkLinhas)) {
        while (credits === 0) {
          await receive('credito');
          credits += 1;
        }
        credits -= 1;
        const ab = chunk.bytes.buffer as ArrayBuffer;
        port.postMessage({ type: 'chunk', staging: chunk.staging, linhas: chunk.linhas, bytes: ab }, [ab]);
      }
      port.postMessage({ type: 'fim', erros: reader.errors(), rejeitadas: reader.rejectedRows() });
    } finally {
      await reader.close();
    }
  } finally {
    await wb.close();
  }
}

main(workerData as ParseWorkerData).catch((err: unknown) => {
  const e = err as Error;
  port.postMessage({ type: 'erro', mensagem: e?.message ?? String(err), workbook: err instanceof WorkbookError });
}).finally(() => {
  port.unref(); // the thread ends once its messages are out (the host terminates it too)
});
