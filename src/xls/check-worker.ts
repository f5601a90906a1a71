/**
 * The archive check's worker thread (started by isolated-check.ts): opens the file by path,
 * runs `checkArchive` on it (directory, limits, every part inflated once, sizes and CRCs) and
 * posts the verdict. Inflating the parts allocates their whole inflated size in output
 * buffers (122 MB for a 19.6 MB workbook); here they are this thread's, so the main thread's
 * heap is not collected over and over while the upload is received (docs/pipeline.md).
 *
 * Posts one message: { ok: true, zip } | { ok: false, status, motivo } (an ArchiveError) |
 * { erro } (anything else).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ArchiveLimits } from '../xlsx/limits.js';
import { ArchiveError } from '../xlsx/errors.js';
import { FileSource } from '../xlsx/source.js';
import { checkArchive } from './upload.js';

export interface CheckWorkerData {
  path: string;
  limits: ArchiveLimits;
  label: string | null;
}

export type CheckWorkerResult =
  | { ok: true; zip: boolean }
  | { ok: false; status: ArchiveError['status']; motivo: string }
  | { erro: string };

async function main(data: CheckWorkerData): Promise<CheckWorkerResult> {
  const source = await FileSource.open(data.path);
  try {
    return { ok: true, zip: await checkArchive(source, data.limits, data.label) };
  } catch (err) {
    if (err instanceof ArchiveError) return { ok: false, status: err.status, motivo: err.motivo };
    return { erro: (err as Error)?.message ?? String(err) };
  } finally {
    await source.close();
  }
}

void main(workerData as CheckWorkerData).then((r) => parentPort!.postMessage(r));
