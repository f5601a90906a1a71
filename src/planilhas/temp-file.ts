/**
 * Temporary files of the spreadsheet upload: an upload body, a zip entry being extracted, an original
 * read back for processing. A stream is written to disk while its SHA-256 and size are
 * computed, so a file is never held whole in memory; the caller removes the directory
 * (`TempDir.remove`) when done, also on failure. A full disk is a 507 problem (discoCheio).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { HttpProblem } from '../errors.js';

export interface TempFile {
  path: string;
  size: number;
  /** SHA-256 in hex */
  sha256: string;
  /** CRC-32 (as a zip records it), when asked for */
  crc32?: number;
}

/** Thrown by `writeTempFile` when the source passes `maxBytes` (the file is left partial: remove the dir). */
export class TempFileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`mais de ${maxBytes} bytes`);
    this.name = 'TempFileTooLarge';
  }
}

/** An error of the source stream (the client's body, an inflater), as opposed to the disk. */
export class TempFileSourceError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'TempFileSourceError';
  }
}

/** The codes of a full (or quota-bound) disk. */
const DISCO_CHEIO = new Set(['ENOSPC', 'EDQUOT']);

/**
 * A full temporary disk (TMPDIR) as the problem the client sees: 507, nothing stored, try
 * again later. Anything else is returned as is.
 */
export function discoCheio(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !DISCO_CHEIO.has(code)) return err;
  return new HttpProblem(507, 'Armazenamento insuficiente',
    `o disco temporário do serviço está cheio (${code}): nada foi gravado; reenvie em alguns minutos`,
    'disco_temporario_cheio', { retryAfter: 60 });
}

export class TempDir {
  private n = 0;
  private constructor(readonly path: string) {}

  /** A fresh directory under the system's temporary directory (TMPDIR). */
  static async create(prefix = 'bi-planilhas-'): Promise<TempDir> {
    try {
      return new TempDir(await mkdtemp(join(tmpdir(), prefix)));
    } catch (err) {
      throw discoCheio(err);
    }
  }

  /** A new file name inside the directory (nothing is created). */
  file(suffix = ''): string {
    this.n += 1;
    return join(this.path, `${this.n}${suffix}`);
  }

  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}

/**
 * Writes `source` to `path` (created, must not exist), hashing as it goes. More than
 * `maxBytes` throws TempFileTooLarge at once (the rest is not read); an error of the source
 * is a TempFileSourceError, one of the disk is thrown as is.
 */
export async function writeTempFile(source: AsyncIterable<Buffer>, path: string, maxBytes = Number.MAX_SAFE_INTEGER,
  opts: { crc32?: boolean } = {}): Promise<TempFile> {
  const hash = createHash('sha256');
  let crc = 0;
  const fh = await open(path, 'wx').catch((err: unknown) => { throw discoCheio(err); });
  let size = 0;
  try {
    const it = source[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await it.next();
      } catch (err) {
        // our own refusals (an inflater's ArchiveError) pass through; anything else is the source's fault
        throw err instanceof TempFileTooLarge || err instanceof HttpProblem ? err : new TempFileSourceError(err);
      }
      if (next.done) break;
      const chunk = next.value;
      size += chunk.length;
      if (size > maxBytes) {
        await it.return?.().catch(() => undefined);
        throw new TempFileTooLarge(maxBytes);
      }
      hash.update(chunk);
      if (opts.crc32) crc = crc32(chunk, crc);
      let at = 0;
      try {
        while (at < chunk.length) at += (await fh.write(chunk, at, chunk.length - at)).bytesWritten;
      } catch (err) {
        await it.return?.().catch(() => undefined);
        throw discoCheio(err);
      }
    }
  } finally {
    await fh.close();
  }
  return { path, size, sha256: hash.digest('hex'), ...(opts.crc32 ? { crc32: crc >>> 0 } : {}) };
}
