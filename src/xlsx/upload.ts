/**
 * Upload inspection: decides whether an upload is one xlsx or a batch zip, and checks
 * every archive level before anything is stored. Throws ArchiveError (nothing stored);
 * never writes anywhere.
 *
 * - A loose file that is not a zip at all (legacy .xls, password-protected xlsx, anything
 *   else) is refused with 415 and a pt-BR reason.
 * - A zip holding `[Content_Types].xml` or `xl/workbook.xml` is one xlsx; any other zip is
 *   a batch. Every entry of the batch and every part of every xlsx is inflated once to
 *   verify its real size and CRC.
 * - Batch entries that are not `.xlsx` (PDF, `__MACOSX/`, `~$` lock files, …) are reported
 *   as ignored; a zip inside the zip is refused (400). Folders are skipped silently.
 * - An `.xlsx` entry that is not a zip (e.g. protected by a password) is accepted here and
 *   fails later in openWorkbook with `formato não suportado: …` (the processing ends ERRO,
 *   the rest of the batch goes on).
 */
import { ArchiveError } from './errors.js';
import { type ArchiveLimits, formatBytes, resolveLimits } from './limits.js';
import {
  type ZipIndex, extractEntry, isZip, notZipReason, readCentralDirectory, verifyEntry,
} from './zip.js';

export type UploadEntry =
  | { arquivo: string; ok: true; bytes: Buffer }
  | { arquivo: string; ok: false; motivo: string };

export type UploadInspection =
  | { kind: 'zip'; entries: UploadEntry[] }
  | { kind: 'xlsx'; entries: [UploadEntry] };

function baseName(path: string): string {
  const parts = path.split(/[/\\]/);
  return parts[parts.length - 1] ?? path;
}

function looksLikeXlsxPackage(index: ZipIndex): boolean {
  return index.byName.has('[content_types].xml') || index.byName.has('xl/workbook.xml');
}

/** Why a batch entry is not processed, or null when it is an xlsx to process. */
export function ignoredReason(name: string): string | null {
  const base = baseName(name);
  if (name.split('/').includes('__MACOSX')) return 'metadados do macOS (__MACOSX/), ignorado';
  if (base.startsWith('~$')) return 'arquivo de bloqueio do Excel (~$), ignorado';
  if (base.startsWith('._')) return 'metadados do macOS (._), ignorado';
  if (!/\.xlsx$/i.test(base)) return 'não é um arquivo .xlsx, ignorado';
  return null;
}

async function verifyAll(buf: Buffer, index: ZipIndex, label: string | null): Promise<void> {
  for (const e of index.entries) await verifyEntry(buf, e, label);
}

/** Checks one xlsx given as bytes (loose or from a batch). Non-zips are left to openWorkbook. */
async function checkXlsx(bytes: Buffer, limits: ArchiveLimits, label: string): Promise<void> {
  if (!isZip(bytes)) return;
  const index = await readCentralDirectory(bytes, limits, label);
  await verifyAll(bytes, index, label);
}

export async function inspectUpload(file: Buffer, filename: string, limits?: Partial<ArchiveLimits>): Promise<UploadInspection> {
  const L = resolveLimits(limits);
  const arquivo = baseName(filename).trim() || 'arquivo';
  if (file.length === 0) throw new ArchiveError(400, 'arquivo vazio');
  if (file.length > L.maxUploadBytes) {
    throw new ArchiveError(413, `o arquivo tem ${formatBytes(file.length)}; o limite de envio é ${formatBytes(L.maxUploadBytes)}`);
  }
  if (!isZip(file)) throw new ArchiveError(415, `formato não suportado: ${notZipReason(file)}`);

  const index = await readCentralDirectory(file, L, null);
  if (looksLikeXlsxPackage(index) || (/\.xlsx$/i.test(arquivo) && !index.entries.some((e) => /\.xlsx$/i.test(e.name)))) {
    await verifyAll(file, index, null);
    return { kind: 'xlsx', entries: [{ arquivo, ok: true, bytes: file }] };
  }

  const entries: UploadEntry[] = [];
  for (const e of index.entries) {
    if (e.isDirectory) continue;
    const reason = ignoredReason(e.name);
    if (reason === null) {
      const bytes = await extractEntry(file, e, null);
      await checkXlsx(bytes, L, e.name);
      entries.push({ arquivo: e.name, ok: true, bytes });
      continue;
    }
    if (/\.zip$/i.test(e.name) && !e.name.split('/').includes('__MACOSX')) {
      throw new ArchiveError(400, `o zip contém outro zip ('${e.name}'); envie as planilhas .xlsx diretamente no zip`);
    }
    await verifyEntry(file, e, null);
    entries.push({ arquivo: e.name, ok: false, motivo: reason });
  }
  return { kind: 'zip', entries };
}
