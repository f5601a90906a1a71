/**
 * Temporary files of the intake: an upload body, a zip entry being extracted, an original
 * read back for processing. A stream is written to disk while its SHA-256 and size are
 * computed, so a file is never held whole in memory; the caller removes the directory
 * (`TempDir.remove`) when done, also on failure.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpProblem } from '../errors.js';

export interface Spooled {
  path: string;
  size: number;
  /** SHA-256 in hex */
  sha256: string;
}

/** Thrown by `spool` when the source passes `maxBytes` (the file is left partial: remove the dir). */
export class SpoolTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`mais de ${maxBytes} bytes`);
    this.name = 'SpoolTooLarge';
  }
}

/** An error of the source stream (the client's body, an inflater), as opposed to the disk. */
export class SpoolSourceError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SpoolSourceError';
  }
}

export class TempDir {
  private n = 0;
  private constructor(readonly path: string) {}

  /** A fresh directory under the system's temporary directory (TMPDIR). */
  static async create(prefix = 'bi-xls-'): Promise<TempDir> {
    return new TempDir(await mkdtemp(join(tmpdir(), prefix)));
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
 * `maxBytes` throws SpoolTooLarge at once (the rest is not read); an error of the source
 * is a SpoolSourceError, one of the disk is thrown as is.
 */
export async function spool(source: AsyncIterable<Buffer>, path: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Spooled> {
  const hash = createHash('sha256');
  const fh = await open(path, 'wx');
  let size = 0;
  try {
    const it = source[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await it.next();
      } catch (err) {
        // our own refusals (an inflater's ArchiveError) pass through; anything else is the source's fault
        throw err instanceof SpoolTooLarge || err instanceof HttpProblem ? err : new SpoolSourceError(err);
      }
      if (next.done) break;
      const chunk = next.value;
      size += chunk.length;
      if (size > maxBytes) {
        await it.return?.().catch(() => undefined);
        throw new SpoolTooLarge(maxBytes);
      }
      hash.update(chunk);
      let at = 0;
      while (at < chunk.length) at += (await fh.write(chunk, at, chunk.length - at)).bytesWritten;
    }
  } finally {
    await fh.close();
  }
  return { path, size, sha256: hash.digest('hex') };
}
