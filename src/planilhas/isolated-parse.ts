/**
 * Parsing isolated from the service: the spreadsheet of a processing is opened, detected
 * and read in a worker thread (parse-worker.ts) with its own heap limit (resourceLimits).
 * A hostile or huge file can only kill that thread: the job gets a WorkbookError with a
 * clear pt-BR reason (the processing ends ERRO, never left PROCESSANDO), and the HTTP
 * server, the job runner and the webhook intake, on the main thread, keep answering.
 *
 * The worker streams the rows back as COPY chunks (transferred, not copied); the job COPYs
 * them into the staging tables and merges each chunk (chunks.ts). At most two chunks wait at a
 * time (credits), so a slow database holds the reader back instead of filling memory.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StagingTabela } from './db.js';
import { type Formato, type RowError, type TipoPlanilha, WorkbookError } from '../xlsx/index.js';
import type { ChunkCopia } from './chunks.js';
import type { ParseWorkerData } from './parse-worker.js';

export interface IsolatedParseOptions extends Omit<ParseWorkerData, 'input'> {
  /** Old-generation heap of the parse thread, in MB (XLS_LEITURA_HEAP_MB). */
  heapMb: number;
  /** Young generation of the parse thread, in MB (default: a quarter of heapMb, 4 to 16). */
  youngMb?: number;
  /**
   * Most milliseconds the parse may take for one step — opening and detecting the type, the
   * type's parameters, each chunk of rows — counted only while the job waits for it (never
   * while the worker waits for the job or the database) (XLS_LEITURA_TEMPO_MAX_MS). Past it the
   * worker is stopped and the parse fails with a WorkbookError (the processing ends ERRO).
   */
  tempoMaxMs?: number;
}

type Outbound =
  | { type: 'tipo'; tipo: TipoPlanilha | null; formato: Formato }
  | { type: 'meta'; meta: Record<string, string | null> }
  | { type: 'chunk'; staging: string; linhas: number; bytes: ArrayBuffer }
  | { type: 'fim'; erros: RowError[]; rejeitadas: number }
  | { type: 'erro'; mensagem: string; workbook: boolean };

/** How the worker is started: compiled JavaScript as is; TypeScript sources (tests, tsx) through tsx. */
function workerEntry(): { script: string | URL; eval: boolean } {
  const self = import.meta.url;
  if (!/\.ts$/.test(new URL(self).pathname)) return { script: new URL('./parse-worker.js', self), eval: false };
  // tsx's ESM entry (its `import` export), found from its package.json
  const pkg = createRequire(self).resolve('tsx/package.json');
  const tsx = pathToFileURL(join(dirname(pkg), 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL('./parse-worker.ts', self).href;
  return { script: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, eval: true };
}

/** The parse thread's resource limits (resourceLimits of its Worker): the heap of XLS_LEITURA_HEAP_MB. */
export function parseThreadLimits(heapMb: number, youngMb?: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number; stackSizeMb: number } {
  return { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: youngMb ?? Math.min(16, Math.max(4, Math.floor(heapMb / 4))), stackSizeMb: 4 };
}

function deathReason(err: Error | null, code: number | null, heapMb: number): string {
  const c = (err as NodeJS.ErrnoException | null)?.code;
  if (c === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `a leitura da planilha foi interrompida: memória esgotada (limite de ${heapMb} MB da leitura); o arquivo é grande ou malformado demais para ser lido`;
  }
  if (err) return `a leitura da planilha foi interrompida (${err.message.split('\n')[0]})`;
  return `a leitura da planilha foi interrompida (a linha de execução da leitura terminou com o código ${code ?? '?'})`;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${(ms / 1000).toLocaleString('pt-BR')} s` : `${ms.toLocaleString('pt-BR')} ms`;
}

export class IsolatedParse {
  private readonly worker: Worker;
  private readonly queue: Outbound[] = [];
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private erros: RowError[] = [];
  private rejeitadas = 0;
  private closed = false;
  private formatoLido: Formato | null = null;

  /**
   * Starts the parse of `input`: a file path (the worker opens it), or the bytes — moved to
   * the worker when the Buffer owns its whole ArrayBuffer (it is then detached here).
   */
  constructor(input: string | Buffer, private readonly options: IsolatedParseOptions) {
    const { script, eval: isEval } = workerEntry();
    const { heapMb, youngMb, tempoMaxMs: _tempo, ...rest } = options;
    const bytes = typeof input === 'string' ? null : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    const data: ParseWorkerData = { ...rest, input: bytes ?? (input as string) };
    // Bytes that own their whole memory are moved to the worker (the caller's Buffer is
    // detached: do not use it afterwards); a view into shared memory is copied.
    const owned = bytes !== null && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      && !(bytes.buffer instanceof SharedArrayBuffer) && bytes.byteLength > 4096;
    this.worker = new Worker(script, {
      eval: isEval,
      workerData: data,
      transferList: owned ? [bytes.buffer as ArrayBuffer] : [],
      resourceLimits: parseThreadLimits(heapMb, youngMb),
      stdout: false,
      stderr: false,
    });
    this.worker.on('message', (m: Outbound) => this.push(m));
    this.worker.on('error', (err) => this.fail(new WorkbookError(deathReason(err, null, heapMb), { cause: err })));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.fail(new WorkbookError(deathReason(null, code, heapMb)));
    });
  }

  private push(m: Outbound): void {
    this.queue.push(m);
    this.wake?.();
    this.wake = null;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.wake?.();
    this.wake = null;
  }

  /** The next message, which must be of `type` (an 'erro' is thrown; a dead worker too). */
  private async next<T extends Outbound['type']>(...types: T[]): Promise<Extract<Outbound, { type: T }>> {
    for (;;) {
      const m = this.queue.shift();
      if (m) {
        if (m.type === 'erro') throw m.workbook ? new WorkbookError(m.mensagem) : new Error(m.mensagem);
        if (!(types as string[]).includes(m.type)) throw new Error(`leitura isolada: mensagem '${m.type}' fora de ordem`);
        return m as Extract<Outbound, { type: T }>;
      }
      if (this.failure) throw this.failure;
      // every message received so far is taken and credited: the worker is at work (or dead)
      const limite = this.options.tempoMaxMs;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        if (limite !== undefined && limite > 0) timer = setTimeout(() => this.timeout(limite), limite);
      });
      clearTimeout(timer);
    }
  }

  /** The step went past its time limit: the worker is stopped, the parse fails with the reason. */
  private timeout(limite: number): void {
    this.fail(new WorkbookError(`a leitura da planilha foi interrompida: passou de ${formatMs(limite)} sem concluir uma etapa `
      + '(abrir e reconhecer o tipo, ler os parâmetros ou um bloco de linhas; limite XLS_LEITURA_TEMPO_MAX_MS); '
      + 'o arquivo é grande ou malformado demais para ser lido'));
    this.closed = true;
    void this.worker.terminate();
  }

  /** The type: the one given, or the detected one; null when the file matches no type. */
  async tipo(): Promise<TipoPlanilha | null> {
    const m = await this.next('tipo');
    this.formatoLido = m.formato;
    return m.tipo;
  }

  /** The format the worker read the file as (by content), once tipo() has answered. */
  get formato(): Formato | null { return this.formatoLido; }

  /** The type's parameters (call after tipo()). */
  async meta(): Promise<Record<string, string | null>> {
    return (await this.next('meta')).meta;
  }

  /** The rows as COPY chunks for these staging tables (call once, after meta()). */
  async *chunks(tabelas: StagingTabela[]): AsyncGenerator<ChunkCopia> {
    this.worker.postMessage({ type: 'tabelas', tabelas });
    for (;;) {
      const m = await this.next('chunk', 'fim');
      if (m.type === 'fim') {
        this.erros = m.erros;
        this.rejeitadas = m.rejeitadas;
        return;
      }
      yield { staging: m.staging, linhas: m.linhas, bytes: Buffer.from(m.bytes) };
      this.worker.postMessage({ type: 'credito' });
    }
  }

  /** Invalid rows' fields (after chunks() is drained). */
  errors(): RowError[] { return this.erros; }
  rejectedRows(): number { return this.rejeitadas; }

  /** Stops the worker (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker.terminate();
  }
}
