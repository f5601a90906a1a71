/**
 * Originals this host has just received, kept on its local disk for the processing that
 * comes right after (most often on the same replica): the job then takes the file instead
 * of downloading it again from the object store or the database (a 20 MB workbook: about a
 * quarter of a second before the first row is read). Only a shortcut — the stored original
 * (object store or column) stays the one of record, and any replica without the file
 * downloads it as before.
 *
 * A file is named by its SHA-256 and size (what SQL recorded for the processing), so a file
 * is only ever taken by a processing of the same bytes; taking is a rename (one taker, even
 * between processes on the same host), and the taker owns the file (its temporary directory
 * removes it). What nobody takes (another replica processed it, a batch rolled back) is
 * removed after `IDADE_MAXIMA_MS`, and the directory never holds more than `MAX_ARQUIVOS`
 * files or `MAX_BYTES` bytes (oldest first). No state in memory: the directory
 * (XLS_ORIGINAIS_LOCAIS, default TMPDIR/bi-originais-locais; "off" turns this off) is the
 * whole record, shared by the service processes of a host.
 */
import { mkdirSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const IDADE_MAXIMA_MS = 10 * 60_000;
export const MAX_ARQUIVOS = 8;
export const MAX_BYTES = 1024 * 1024 * 1024;

const nomeDe = (sha256: string, tamanho: number) => `${sha256.toLowerCase()}-${tamanho}`;

/**
 * Keeps `path` (moved, not copied) as the original of SHA-256 `sha256` and `tamanho` bytes.
 * Never fails the caller: a file that cannot be kept is left where it was (its temporary
 * directory removes it).
 */
export async function guardarOriginal(diretorio: string | null, path: string, sha256: string, tamanho: number): Promise<void> {
  if (!diretorio || !/^[0-9a-f]{64}$/i.test(sha256) || !Number.isSafeInteger(tamanho) || tamanho < 0) return;
  try {
    mkdirSync(diretorio, { recursive: true, mode: 0o700 });
    await rename(path, join(diretorio, nomeDe(sha256, tamanho)));
  } catch {
    return;
  }
  await podar(diretorio).catch(() => undefined);
}

/**
 * Moves the kept original of these bytes to `destino` and answers true, or answers false
 * (not here, taken by another processing, or of another size than recorded).
 */
export async function tomarOriginal(diretorio: string | null, sha256: string, tamanho: number | null, destino: string): Promise<boolean> {
  if (!diretorio || tamanho == null || !/^[0-9a-f]{64}$/i.test(sha256)) return false;
  try {
    await rename(join(diretorio, nomeDe(sha256, tamanho)), destino);
  } catch {
    return false;
  }
  try {
    if ((await stat(destino)).size === tamanho) return true;
  } catch { /* gone: download */ }
  await rm(destino, { force: true });
  return false;
}

/** Removes what is too old, then the oldest while there are too many files or bytes. */
async function podar(diretorio: string): Promise<void> {
  const agora = Date.now();
  const arquivos: Array<{ nome: string; mtime: number; tamanho: number }> = [];
  for (const nome of await readdir(diretorio)) {
    try {
      const s = await stat(join(diretorio, nome));
      arquivos.push({ nome, mtime: s.mtimeMs, tamanho: s.size });
    } catch { /* taken meanwhile */ }
  }
  arquivos.sort((a, b) => b.mtime - a.mtime); // newest first
  let bytes = 0;
  for (let i = 0; i < arquivos.length; i++) {
    const a = arquivos[i]!;
    bytes += a.tamanho;
    if (agora - a.mtime > IDADE_MAXIMA_MS || i >= MAX_ARQUIVOS || (i > 0 && bytes > MAX_BYTES)) {
      await rm(join(diretorio, a.nome), { force: true });
    }
  }
}
