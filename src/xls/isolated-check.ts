/**
 * The archive check of an upload (`checkArchive`: directory, limits, every part inflated
 * once, sizes and CRCs) in a worker thread of its own, one per file: its output buffers and
 * their collections stay off the main thread, which meanwhile answers requests and has SQL
 * receive the file (docs/pipeline.md, "The upload's archive check").
 *
 * An ArchiveError of the check is rethrown here as is (400/413/415 with its reason). No verdict
 * (the thread could not run, or failed otherwise) is the service's fault, not the file's: the
 * check streams the parts with bounded memory, so no file can exhaust it. The client gets a 503
 * with Retry-After and reason; nothing was stored (the receipt rolls back).
 */
import { Worker } from 'node:worker_threads';
import type { ArchiveLimits } from '../xlsx/limits.js';
import { HttpProblem } from '../errors.js';
import { ArchiveError } from '../xlsx/errors.js';
import type { CheckWorkerData, CheckWorkerResult } from './check-worker.js';
import { workerEntry } from './worker-entry.js';

/** Heap of the check's thread: the directory and the streams' state (the inflated bytes live outside it). */
export const CHECK_HEAP_MB = 32;

/** Checks the file at `path` as an archive; false when it is not a zip at all (see checkArchive). */
export function checkArchiveIsolado(path: string, limits: ArchiveLimits, label: string | null, heapMb = CHECK_HEAP_MB): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const { script, eval: isEval } = workerEntry('check-worker');
    const data: CheckWorkerData = { path, limits, label };
    let veredito = false;
    // the internal reason (paths, thread errors) goes to the logs as the cause, not to the client
    const semVeredito = (causa: string, erro?: unknown) => {
      const p = new HttpProblem(503, 'Serviço indisponível', 'não foi possível verificar o arquivo agora; nada foi gravado, reenvie em instantes',
        undefined, { retryAfter: 30 });
      p.cause = erro ?? new Error(`verificação do arquivo sem resultado: ${causa}`);
      reject(p);
    };
    const worker = new Worker(script, {
      eval: isEval,
      workerData: data,
      // below ~3 MB V8 cannot even create the thread's isolate and ends the whole process: never less than 4
      resourceLimits: { maxOldGenerationSizeMb: Math.max(4, heapMb), maxYoungGenerationSizeMb: Math.min(8, Math.max(1, Math.floor(heapMb / 4))), stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    worker.once('message', (r: CheckWorkerResult) => {
      veredito = true;
      if ('erro' in r) semVeredito(r.erro);
      else if (r.ok) resolve(r.zip);
      else reject(new ArchiveError(r.status, r.motivo));
    });
    worker.once('error', (err) => {
      if (!veredito) semVeredito(`a verificação foi interrompida: ${err.message.split('\n')[0]}`, err);
    });
    worker.once('exit', (code) => {
      if (!veredito) semVeredito(`a verificação terminou sem resultado, código ${code}`);
    });
  });
}
