/**
 * The spreadsheet reader (its caller is src/planilhas). See docs/xlsx.md.
 *
 *   processing: wb = await openWorkbook(bytes | path) (throws WorkbookError 'formato não suportado: …'; wb.close())
 *               tipo = await detectType(wb)           (null → IGNORADO 'tipo não reconhecido')
 *               r = readRows(wb, tipo); await r.meta(); for await (const row of r.rows()) …; r.errors()
 */
export { ArchiveError, WorkbookError } from './errors.js';
export type { ArchiveStatus } from './errors.js';
export { DEFAULT_ARCHIVE_LIMITS, DEFAULT_READER_LIMITS } from './limits.js';
export type { ArchiveLimits, ReaderLimits } from './limits.js';
export { BufferSource, FileSource, toSource } from './source.js';
export type { ByteSource } from './source.js';
export { TruncatedText } from './cells.js';
export { Workbook, XlsxWorkbook } from './workbook.js';
export type { Formato } from './workbook.js';
export { openWorkbook } from './open.js';
export type { SheetInfo } from './workbook.js';
export { detectType } from './detect.js';
export { readRows, hasReader } from './readers/index.js';
export { TIPOS_PLANILHA, MAX_ROW_ERRORS } from './types.js';
export type { TipoPlanilha, TypeReader, StagingRow, RowError } from './types.js';
