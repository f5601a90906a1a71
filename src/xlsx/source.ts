/**
 * Random-access byte sources for archives: the zip checks and the workbook reader read an
 * archive through `{ size, read(offset, length) }`, so the same code works on a Buffer held
 * in memory and on a file on disk (an upload spooled to a temporary file, an original
 * downloaded to one) without loading the file whole.
 */
import { open, type FileHandle } from 'node:fs/promises';

export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /**
   * Exactly `length` bytes from `offset` (fewer only past the end). The result may be a
   * view of memory the source owns (BufferSource): do not write into it.
   */
  read(offset: number, length: number): Promise<Buffer>;
  /** Releases the file descriptor, if any. Idempotent; reads after close reopen nothing. */
  close(): Promise<void>;
}

/** A Buffer as a source: reads are zero-copy views. */
export class BufferSource implements ByteSource {
  constructor(readonly buffer: Buffer) {}
  get size(): number { return this.buffer.length; }
  read(offset: number, length: number): Promise<Buffer> {
    return Promise.resolve(this.readSync(offset, length));
  }
  readSync(offset: number, length: number): Buffer {
    const start = Math.max(0, Math.min(offset, this.buffer.length));
    return this.buffer.subarray(start, Math.min(this.buffer.length, start + Math.max(0, length)));
  }
  close(): Promise<void> { return Promise.resolve(); }
}

/** A file as a source, read with positional reads on one descriptor (opened by `FileSource.open`). */
export class FileSource implements ByteSource {
  private handle: FileHandle | null;

  private constructor(readonly path: string, handle: FileHandle, readonly size: number) {
    this.handle = handle;
  }

  static async open(path: string): Promise<FileSource> {
    const handle = await open(path, 'r');
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new Error(`${path}: não é um arquivo`);
      return new FileSource(path, handle, st.size);
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  async read(offset: number, length: number): Promise<Buffer> {
    const h = this.handle;
    if (!h) throw new Error(`${this.path}: fonte já fechada`);
    const start = Math.max(0, Math.min(offset, this.size));
    const want = Math.max(0, Math.min(length, this.size - start));
    const out = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await h.read(out, got, want - got, start + got);
      if (bytesRead === 0) break; // the file shrank under us
      got += bytesRead;
    }
    return got === want ? out : out.subarray(0, got);
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    await h?.close();
  }
}

/** A Buffer stays a BufferSource; a string is a path, opened as a FileSource. */
export async function toSource(input: Buffer | string | ByteSource): Promise<ByteSource> {
  if (Buffer.isBuffer(input)) return new BufferSource(input);
  if (typeof input === 'string') return FileSource.open(input);
  return input;
}

/** The first `n` bytes (magic numbers: zip, CFB). */
export function head(source: ByteSource, n: number): Promise<Buffer> {
  return source.read(0, Math.min(n, source.size));
}
