/**
 * Where originals live, by storage mode (S3_FILE_STORAGE):
 *   PSQL           column arquivo_bytes only
 *   PSQL_OBJSTORE  both; reads from the object store (the column is the fallback)
 *   OBJSTORE       object store only
 * Keys are decided by SQL (xls_objeto_chave: <yyyy>/<mm>/<checksum>.xlsx).
 */
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { xlsArquivoBytes } from '../db/xls.js';
import { SpoolSourceError, SpoolTooLarge, spool } from './spool.js';

export function writesColumn(ctx: AppContext): boolean {
  return ctx.config.storage.mode !== 'OBJSTORE';
}

export function writesObjectStore(ctx: AppContext): boolean {
  return ctx.config.storage.mode !== 'PSQL' && ctx.objstore !== null;
}

export class OriginalIndisponivel extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginalIndisponivel';
  }
}

/** The original as a stream (download) — from the store when the mode reads it, else the column. */
export async function openOriginal(ctx: AppContext, p: { id: string; objetoChave: string | null }): Promise<Readable | Buffer> {
  if (writesObjectStore(ctx) && p.objetoChave) {
    try {
      return await ctx.objstore!.get(p.objetoChave);
    } catch (err) {
      if (!(err instanceof ObjectStoreUnavailable) || ctx.config.storage.mode === 'OBJSTORE') throw err;
      // PSQL_OBJSTORE: the column still has the bytes
    }
  }
  const bytes = await xlsArquivoBytes(ctx.pool, p.id);
  if (!bytes) throw new OriginalIndisponivel('o arquivo original não está guardado neste modo de armazenamento');
  return bytes;
}

/**
 * The original for processing, without holding it in memory when it comes from the object
 * store: streamed into `path` (a temporary file the caller removes), whose name is returned;
 * the reader then opens it as a random-access file. From the legacy column (PSQL mode, or the
 * store down in PSQL_OBJSTORE) the driver has already returned it as one Buffer, returned as is.
 * The size must match the recorded one.
 */
export async function readOriginalToFile(ctx: AppContext, p: { id: string; objetoChave: string | null; objetoTamanhoBytes?: number | null },
  path: string): Promise<string | Buffer> {
  const src = await openOriginal(ctx, p);
  if (Buffer.isBuffer(src)) return src;
  const size = p.objetoTamanhoBytes;
  let file;
  try {
    file = await spool(src as AsyncIterable<Buffer>, path, size ?? undefined);
  } catch (err) {
    src.destroy();
    if (err instanceof SpoolTooLarge) throw new Error(`o original no object store tem mais que os ${size} bytes registrados`);
    if (err instanceof SpoolSourceError) throw new ObjectStoreUnavailable(err.cause);
    throw err;
  }
  if (size != null && file.size !== size) throw new Error(`o original no object store tem ${file.size} bytes, não os ${size} registrados`);
  return file.path;
}

/**
 * The whole original in memory (kept for callers that need the bytes; the job uses
 * readOriginalToFile). A stream from the store is collected into one buffer of the recorded size.
 */
export async function readOriginal(ctx: AppContext, p: { id: string; objetoChave: string | null; objetoTamanhoBytes?: number | null }): Promise<Buffer> {
  const src = await openOriginal(ctx, p);
  if (Buffer.isBuffer(src)) return src;
  const chunks: Buffer[] = [];
  let at = 0;
  for await (const chunk of src as AsyncIterable<Buffer>) {
    at += chunk.length;
    if (p.objetoTamanhoBytes != null && at > p.objetoTamanhoBytes) {
      src.destroy();
      throw new Error(`o original no object store tem mais que os ${p.objetoTamanhoBytes} bytes registrados`);
    }
    chunks.push(chunk);
  }
  if (p.objetoTamanhoBytes != null && at !== p.objetoTamanhoBytes) throw new Error(`o original no object store tem ${at} bytes, não os ${p.objetoTamanhoBytes} registrados`);
  return Buffer.concat(chunks, at);
}
