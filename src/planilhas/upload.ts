/**
 * Upload inspection: decides whether an upload is one file or a batch zip, and checks every
 * archive level before anything is stored. Works on a random-access source (the upload
 * written to a temporary file), one entry at a time: nothing is held whole in memory.
 *
 * - `planUpload` reads directories only (no inflating) and refuses at once what can be
 *   judged there: sizes, entry count, ratio, names, zip inside the zip, and an entry that
 *   would inflate beyond the single-file limit (`maxUploadBytes`).
 * - A loose file that is not a zip (a legacy .xls, a password-protected xlsx, anything else),
 *   or a zip whose directory cannot be read (truncated: UnreadableZipError), is accepted: the reader decides by its content (a .xls is read; anything unreadable ends
 *   in ERRO with its reason, the original kept; docs/formatos.md, "Receiving files"). So is such
 *   a file inside a batch.
 * - A zip holding `[Content_Types].xml` or `xl/workbook.xml` (an xlsx or xlsb), or a
 *   `content.xml` with `mimetype` or `META-INF/manifest.xml` (an OpenDocument: .ods), is one file; any other zip is a
 *   batch, whose entries named .xlsx, .xlsm, .xls, .xlsb or .ods are spreadsheets. Batch
 *   entries that are not spreadsheets (PDF, images, `__MACOSX/`, `~$` lock files,
 *   `Thumbs.db`, …) are reported as ignored. Folders are skipped silently.
 * - `extractEntryToFile` inflates one batch entry to a file (hashing it, with the size and
 *   CRC checks), then `checkArchive` checks it as an archive itself.
 */
import { ArchiveError } from '../xlsx/errors.js';
import { type ArchiveLimits, formatBytes, resolveLimits } from '../xlsx/limits.js';
import { type ByteSource, FileSource } from '../xlsx/source.js';
import {
  type ZipEntry, type ZipIndex, MAGIC_BYTES, asSource, entryChunks, extractEntry, isZip,
  UnreadableZipError, readCentralDirectory, verifyEntry,
} from '../xlsx/zip.js';
import { type TempFile, TempFileTooLarge, writeTempFile } from './temp-file.js';

export type UploadEntry =
  | { arquivo: string; ok: true; bytes: Buffer }
  | { arquivo: string; ok: false; motivo: string };

export type UploadInspection =
  | { kind: 'zip'; entries: UploadEntry[] }
  | { kind: 'xlsx'; entries: [UploadEntry] };

/** One entry of a batch, as planned from the directory. */
export type PlannedEntry =
  | { arquivo: string; entry: ZipEntry; processar: true }
  | { arquivo: string; entry: ZipEntry; processar: false; motivo: string };

export type UploadPlan =
  /** a loose file: an xlsx checked whole, or a non-zip whose processing will end in ERRO */
  | { kind: 'arquivo'; arquivo: string; zip: boolean }
  | { kind: 'zip'; index: ZipIndex; entries: PlannedEntry[] };

function baseName(path: string): string {
  const parts = path.split(/[/\\]/);
  return parts[parts.length - 1] ?? path;
}

/** One spreadsheet rather than a batch: an OOXML package (.xlsx, .xlsb) or an OpenDocument (.ods). */
function looksLikeSpreadsheetPackage(index: ZipIndex): boolean {
  return index.byName.has('[content_types].xml') || index.byName.has('xl/workbook.xml')
    || (index.byName.has('content.xml') && (index.byName.has('mimetype') || index.byName.has('meta-inf/manifest.xml')));
}

/** Names of batch entries that are spreadsheets; which format each is, its content decides. */
export const SPREADSHEET_NAME = /\.(xlsx|xlsm|xls|xlsb|ods)$/i;

/** Why a batch entry is not processed, or null when it is a spreadsheet to process (.xlsx, .xls, .ods; an .xlsb ends ERRO). */
export function ignoredReason(name: string): string | null {
  const base = baseName(name);
  if (name.split('/').includes('__MACOSX')) return 'metadados do macOS (__MACOSX/), ignorado';
  if (base.startsWith('~$')) return 'arquivo de bloqueio do Excel (~$), ignorado';
  if (base.startsWith('._')) return 'metadados do macOS (._), ignorado';
  if (/^thumbs\.db$/i.test(base) || /^\.ds_store$/i.test(base) || /^desktop\.ini$/i.test(base)) return 'arquivo do sistema, ignorado';
  if (!SPREADSHEET_NAME.test(base)) return 'não é uma planilha (.xlsx, .xls ou .ods), ignorado';
  return null;
}

async function verifyAll(src: Buffer | ByteSource, index: ZipIndex, label: string | null): Promise<void> {
  for (const e of index.entries) await verifyEntry(src, e, label);
}

/**
 * Checks one file as an xlsx archive (directory, limits, every part inflated once).
 * Returns false, refusing nothing, when it is not a zip at all or its directory cannot be
 * read (truncated): its processing ends ERRO with the reason.
 */
export async function checkArchive(src: Buffer | ByteSource, limits: ArchiveLimits, label: string | null): Promise<boolean> {
  const source = asSource(src);
  if (!isZip(await source.read(0, MAGIC_BYTES))) return false;
  let index: ZipIndex;
  try {
    index = await readCentralDirectory(source, limits, label);
  } catch (err) {
    // a truncated spreadsheet (in a batch: its entry is whole, its content is not) is a file
    // its processing will end ERRO, not a reason to refuse its batch
    if (err instanceof UnreadableZipError) return false;
    throw err;
  }
  await verifyAll(source, index, label);
  return true;
}

/**
 * Plans the receipt of an upload from its directory alone; throws ArchiveError for what can
 * be refused before anything is inflated or stored.
 */
export async function planUpload(src: Buffer | ByteSource, filename: string, limits?: Partial<ArchiveLimits>): Promise<UploadPlan> {
  const L = resolveLimits(limits);
  const source = asSource(src);
  const arquivo = baseName(filename).trim() || 'arquivo';
  if (source.size === 0) throw new ArchiveError(400, 'arquivo vazio');
  if (source.size > L.maxUploadBytes) {
    throw new ArchiveError(413, `o arquivo tem ${formatBytes(source.size)}; o limite de envio é ${formatBytes(L.maxUploadBytes)}`);
  }
  if (!isZip(await source.read(0, MAGIC_BYTES))) return { kind: 'arquivo', arquivo, zip: false };

  let index: ZipIndex;
  try {
    index = await readCentralDirectory(source, L, null);
  } catch (err) {
    // a loose spreadsheet whose directory cannot be read (truncated) is received like any
    // unreadable file: its processing ends ERRO with the reason, the original kept; a batch
    // (.zip) that cannot be read has nothing to process and is refused
    if (err instanceof UnreadableZipError && !/\.zip$/i.test(arquivo)) return { kind: 'arquivo', arquivo, zip: false };
    throw err;
  }
  if (looksLikeSpreadsheetPackage(index) || (/\.(xlsx|ods)$/i.test(arquivo) && !index.entries.some((e) => SPREADSHEET_NAME.test(e.name)))) {
    return { kind: 'arquivo', arquivo, zip: true };
  }

  const entries: PlannedEntry[] = [];
  for (const e of index.entries) {
    if (e.isDirectory) continue;
    const reason = ignoredReason(e.name);
    if (reason === null) {
      // one file of the batch may not be larger than a file sent alone
      if (e.uncompressedSize > L.maxUploadBytes) {
        throw new ArchiveError(413, `a entrada '${e.name}' descompacta para ${formatBytes(e.uncompressedSize)}; o limite de um arquivo é ${formatBytes(L.maxUploadBytes)}`);
      }
      entries.push({ arquivo: e.name, entry: e, processar: true });
      continue;
    }
    if (/\.zip$/i.test(e.name) && !e.name.split('/').includes('__MACOSX')) {
      throw new ArchiveError(400, `o zip contém outro zip ('${e.name}'); envie as planilhas .xlsx diretamente no zip`);
    }
    entries.push({ arquivo: e.name, entry: e, processar: false, motivo: reason });
  }
  return { kind: 'zip', index, entries };
}

/**
 * Inflates one batch entry into `path` while hashing it (size and CRC checked; never more
 * than the declared size, itself within the single-file limit), then checks it as an
 * archive. `zip` false: not a zip (its processing will end ERRO).
 */
export async function extractEntryToFile(src: ByteSource, entry: ZipEntry, path: string, limits?: Partial<ArchiveLimits>): Promise<TempFile & { zip: boolean }> {
  const L = resolveLimits(limits);
  let file: TempFile;
  try {
    file = await writeTempFile(entryChunks(src, entry, null, 1024 * 1024), path, L.maxUploadBytes);
  } catch (err) {
    if (err instanceof TempFileTooLarge) {
      throw new ArchiveError(413, `a entrada '${entry.name}' passa do limite de um arquivo (${formatBytes(L.maxUploadBytes)})`);
    }
    throw err;
  }
  const fs = await FileSource.open(path);
  try {
    return { ...file, zip: await checkArchive(fs, L, entry.name) };
  } finally {
    await fs.close();
  }
}

/** Verifies an entry that is not processed (inflated once, output discarded). */
export function verifyIgnored(src: ByteSource, entry: ZipEntry): Promise<void> {
  return verifyEntry(src, entry, null);
}

/**
 * The whole inspection in memory (tests, benchmarks): every entry extracted into a Buffer.
 * The service uses planUpload / extractEntryToFile on a temporary file instead.
 */
export async function inspectUpload(file: Buffer, filename: string, limits?: Partial<ArchiveLimits>): Promise<UploadInspection> {
  const L = resolveLimits(limits);
  const plan = await planUpload(file, filename, L);
  if (plan.kind === 'arquivo') {
    if (plan.zip) await checkArchive(file, L, null);
    return { kind: 'xlsx', entries: [{ arquivo: plan.arquivo, ok: true, bytes: file }] };
  }
  const entries: UploadEntry[] = [];
  for (const p of plan.entries) {
    if (p.processar) {
      const bytes = await extractEntry(file, p.entry, null);
      await checkArchive(bytes, L, p.entry.name);
      entries.push({ arquivo: p.arquivo, ok: true, bytes });
    } else {
      await verifyEntry(file, p.entry, null);
      entries.push({ arquivo: p.arquivo, ok: false, motivo: p.motivo });
    }
  }
  return { kind: 'zip', entries };
}
