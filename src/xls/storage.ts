/**
 * Where originals live, by storage mode (S3_FILE_STORAGE):
 *   PSQL           column arquivo_bytes only
 *   PSQL_OBJSTORE  both; reads from the object store (the column is the fallback)
 *   OBJSTORE       object store only
 * Keys are decided by SQL (xls_objeto_chave: <yyyy>/<mm>/<checksum>.xlsx).
 */
import { buffer } from 'node:stream/consumers';
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { xlsArquivoBytes } from '../db/xls.js';

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
 * The whole original in memory (the reader needs random access to the zip directory). With
 * the size known, chunks are copied into one buffer as they arrive, so a 100 MB file costs
 * 100 MB, not the 200 MB of collecting chunks and concatenating them.
 */
export async function readOriginal(ctx: AppContext, p: { id: string; objetoChave: string | null; objetoTamanhoBytes?: number | null }): Promise<Buffer> {
  const src = await openOriginal(ctx, p);
  if (Buffer.isBuffer(src)) return src;
  const size = p.objetoTamanhoBytes;
  if (!size) return buffer(src);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for await (const chunk of src as AsyncIterable<Buffer>) {
    if (at + chunk.length > size) {
      src.destroy();
      throw new Error(`o original no object store tem mais que os ${size} bytes registrados`);
    }
    chunk.copy(out, at);
    at += chunk.length;
  }
  if (at !== size) throw new Error(`o original no object store tem ${at} bytes, não os ${size} registrados`);
  return out;
}
