/**
 * Opening a stored spreadsheet by what it is, not by its name (docs/xlsx.md, "Formats"):
 *
 * - a zip whose `mimetype` entry is `application/vnd.oasis.opendocument.spreadsheet`, or with
 *   no `mimetype` but a `content.xml` (and no OOXML part; the manifest's media type, when
 *   given, must be the spreadsheet's): `.ods` (ods.ts; an encrypted one — an `encryption-data`
 *   element in its manifest — is refused);
 * - a zip holding `xl/workbook.bin`: `.xlsb`, refused with a reason;
 * - any other zip: `.xlsx` (package.ts, scanner.ts);
 * - a CFB container (`D0 CF 11 E0`): a `.xls` with a `Workbook` (BIFF8) or `Book` (BIFF5)
 *   stream (biff.ts), read whole within `maxBiffBytes`; an encrypted `.xls` (FILEPASS) or a
 *   password-protected `.xlsx` (`EncryptedPackage`) is refused;
 * - anything else: `formato não suportado: …`.
 */
import { XlsWorkbook, openXls } from './biff.js';
import { ArchiveError, WorkbookError, unsupported } from './errors.js';
import { type ArchiveLimits, DEFAULT_READER_LIMITS, type ReaderLimits, formatBytes, resolveLimits } from './limits.js';
import { ODS_MIMETYPE, OdsWorkbook, isEncryptedOds, openOds, readOdsManifest } from './ods.js';
import { type PackageStructure, readPackageStructure } from './package.js';
import { type ByteSource, toSource } from './source.js';
import { type Workbook, XlsxWorkbook } from './workbook.js';
import { type ZipIndex, MAGIC_BYTES, REASON_BYTES, isCfb, isZip, notZipReason, readCentralDirectory, readSmallPart } from './zip.js';

export const XLSB_REASON = 'formato não suportado: arquivo .xlsb (pasta de trabalho binária do Excel); abra no Excel e salve como .xlsx';
export const ODS_ENCRYPTED_REASON = 'formato não suportado: arquivo .ods protegido por senha (criptografado); remova a senha no LibreOffice e envie novamente';

/** What a zip holds, from its directory: an OpenDocument, an xlsb, or (by default) an xlsx. */
export async function zipKind(source: ByteSource, index: ZipIndex): Promise<'ods' | 'opendocument' | 'xlsb' | 'xlsx'> {
  const mt = index.byName.get('mimetype');
  if (mt && mt.uncompressedSize <= 1024) {
    const type = (await readSmallPart(source, mt)).toString('latin1').trim();
    if (type === ODS_MIMETYPE) return 'ods';
    if (type.startsWith('application/vnd.oasis.opendocument.')) return 'opendocument';
  }
  if (index.byName.has('xl/workbook.bin')) return 'xlsb';
  if (!mt && index.byName.has('content.xml') && !index.byName.has('[content_types].xml') && !index.byName.has('xl/workbook.xml')) {
    // an OpenDocument without its mimetype entry (the standard says "should"; other readers
    // open it): the manifest's media type says which, else content.xml is read as a spreadsheet's
    const type = (await readOdsManifest(source, index))?.mediaType ?? ODS_MIMETYPE;
    if (type === ODS_MIMETYPE) return 'ods';
    if (type.startsWith('application/vnd.oasis.opendocument.')) return 'opendocument';
  }
  return 'xlsx';
}

/**
 * Opens a stored workbook — bytes in memory, or a file path (read through a descriptor;
 * `close()` releases it) — by its content. Zip formats are checked again (central directory,
 * limits, overlap; the real sizes were verified at upload). Throws WorkbookError
 * (`formato não suportado: …`, or the reason an encrypted file is refused).
 */
export async function openWorkbook(input: Buffer | string | ByteSource, limits?: Partial<ArchiveLimits & ReaderLimits>): Promise<Workbook> {
  const L = resolveLimits(limits);
  const maxCellChars = limits?.maxCellChars ?? DEFAULT_READER_LIMITS.maxCellChars;
  const maxBiffBytes = limits?.maxBiffBytes ?? DEFAULT_READER_LIMITS.maxBiffBytes;
  const source = await toSource(input);
  let keepOpen = false;
  try {
    const magic = await source.read(0, MAGIC_BYTES);
    if (isCfb(magic)) {
      // a password-protected OOXML package says so even when its container is damaged
      const reason = notZipReason(await source.read(0, REASON_BYTES));
      if (/protegido por senha/.test(reason)) throw unsupported(reason);
      if (source.size > maxBiffBytes) {
        throw unsupported(`o arquivo .xls tem ${formatBytes(source.size)}; o limite de leitura de um .xls é ${formatBytes(maxBiffBytes)} (XLS_BIFF_MAX_BYTES)`);
      }
      const wb: XlsWorkbook = openXls(await source.read(0, source.size), maxCellChars);
      return wb;
    }
    if (!isZip(magic)) throw unsupported(notZipReason(await source.read(0, REASON_BYTES)));
    let index: ZipIndex;
    try {
      index = await readCentralDirectory(source, L, null);
    } catch (err) {
      if (err instanceof ArchiveError) throw unsupported(err.motivo, err);
      throw err;
    }
    const kind = await zipKind(source, index);
    if (kind === 'xlsb') throw new WorkbookError(XLSB_REASON);
    if (kind === 'opendocument') throw unsupported('documento OpenDocument que não é uma planilha (.ods)');
    if (kind === 'ods') {
      if (await isEncryptedOds(source, index)) throw new WorkbookError(ODS_ENCRYPTED_REASON);
      const wb: OdsWorkbook = await openOds(source, index, maxCellChars);
      keepOpen = true;
      return wb;
    }
    let structure: PackageStructure;
    try {
      structure = await readPackageStructure(source, index);
    } catch (err) {
      if (err instanceof ArchiveError) throw unsupported(err.motivo, err);
      throw err;
    }
    keepOpen = true;
    return new XlsxWorkbook(source, index, structure, maxCellChars);
  } finally {
    // a path was opened here: its descriptor is ours to release (a .xls is read whole: released at once)
    if (!keepOpen && typeof input === 'string') await source.close().catch(() => undefined);
  }
}

/** The extension of a file's format, read from its content (the object key and the download keep it). */
export type Extensao = 'xlsx' | 'xls' | 'ods' | 'xlsb';

/**
 * The format of a file by its content: a CFB is a `.xls` (unless it is a password-protected
 * OOXML package: `.xlsx`), a zip an `.ods`, `.xlsb` or `.xlsx` by what it holds; anything
 * else null (its processing will end ERRO; stored as `.xlsx`, as the upload was sent).
 * Never throws for a malformed file: that is the reader's to say.
 */
export async function extensaoDoConteudo(src: Buffer | ByteSource, limits?: Partial<ArchiveLimits>): Promise<Extensao | null> {
  const source = Buffer.isBuffer(src) ? await toSource(src) : src;
  const magic = await source.read(0, MAGIC_BYTES);
  if (isCfb(magic)) return /protegido por senha/.test(notZipReason(await source.read(0, REASON_BYTES))) ? 'xlsx' : 'xls';
  if (!isZip(magic)) return null;
  try {
    const kind = await zipKind(source, await readCentralDirectory(source, resolveLimits(limits), null));
    return kind === 'ods' ? 'ods' : kind === 'xlsb' ? 'xlsb' : 'xlsx';
  } catch {
    return 'xlsx';
  }
}
