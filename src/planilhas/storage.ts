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
import { xlsArquivoBytesStream } from './db.js';
import { TempFileSourceError, TempFileTooLarge, writeTempFile } from './temp-file.js';
import { tomarOriginal } from './originais-locais.js';

export function writesColumn(ctx: AppContext): boolean {
  return ctx.config.storage.mode !== 'OBJSTORE';
}

export function writesObjectStore(ctx: AppContext): boolean {
  return ctx.config.storage.mode !== 'PSQL' && ctx.objstore !== null;
}

export class OriginalUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginalUnavailable';
  }
}

/** Where an original comes from: the object store, or the legacy column. */
type Origem = 'objstore' | 'coluna';

async function abrir(ctx: AppContext, p: { id: string; objetoChave: string | null }): Promise<{ stream: Readable; origem: Origem }> {
  if (writesObjectStore(ctx) && p.objetoChave) {
    try {
      return { stream: await ctx.objstore!.get(p.objetoChave), origem: 'objstore' };
    } catch (err) {
      if (!(err instanceof ObjectStoreUnavailable) || ctx.config.storage.mode === 'OBJSTORE') throw err;
      // PSQL_OBJSTORE: the column still has the bytes
    }
  }
  const stream = await xlsArquivoBytesStream(ctx.pool, p.id);
  if (!stream) throw new OriginalUnavailable('o arquivo original não está guardado neste modo de armazenamento');
  return { stream, origem: 'coluna' };
}

/** The original as a stream (download) — from the store when the mode reads it, else the column (streamed too). */
export async function openOriginal(ctx: AppContext, p: { id: string; objetoChave: string | null }): Promise<Readable> {
  return (await abrir(ctx, p)).stream;
}

/**
 * The original for processing, never held in memory: streamed into `path` (a temporary file
 * the caller removes) from the object store or the legacy column — or, when this host has
 * just received the same bytes (same SHA-256 and size), that file moved into `path`
 * (originais-locais.ts); the reader then opens it as a random-access file. The size must match the recorded one. A failure of the object
 * store while reading is ObjectStoreUnavailable (transient).
 */
export async function readOriginalToFile(ctx: AppContext, p: { id: string; checksum: string; objetoChave: string | null; objetoTamanhoBytes?: number | null },
  path: string): Promise<string> {
  // the same bytes just received by this host (originais-locais.ts): no download
  if (await tomarOriginal(ctx.config.xls.originaisLocais, p.checksum, p.objetoTamanhoBytes == null ? null : Number(p.objetoTamanhoBytes), path)) return path;
  const { stream: src, origem } = await abrir(ctx, p);
  const onde = origem === 'objstore' ? 'no object store' : 'no banco';
  const size = p.objetoTamanhoBytes;
  let file;
  try {
    file = await writeTempFile(src as AsyncIterable<Buffer>, path, size ?? undefined);
  } catch (err) {
    src.destroy();
    if (err instanceof TempFileTooLarge) throw new Error(`o original ${onde} tem mais que os ${size} bytes registrados`);
    if (err instanceof TempFileSourceError && origem === 'objstore') throw new ObjectStoreUnavailable(err.cause);
    if (err instanceof TempFileSourceError) throw err.cause;
    throw err;
  }
  if (size != null && file.size !== size) throw new Error(`o original ${onde} tem ${file.size} bytes, não os ${size} registrados`);
  return file.path;
}
