/**
 * An opened workbook: the validated archive, its structure (read by us), and streaming
 * passes over chosen sheets with exceljs' WorkbookReader fed by the canonical repack.
 */
import ExcelJS from 'exceljs';
import { ArchiveError, WorkbookError, unsupported } from './errors.js';
import { type ArchiveLimits, resolveLimits } from './limits.js';
import { type PackageStructure, type SheetInfo, readPackageStructure } from './package.js';
import { HEADER_SCAN_ROWS, rowTexts } from './headers.js';
import { canonicalStream } from './repack.js';
import { type ByteSource, BufferSource, toSource } from './source.js';
import { type ZipIndex, MAGIC_BYTES, REASON_BYTES, isZip, notZipReason, readCentralDirectory } from './zip.js';

export type { SheetInfo } from './package.js';

/**
 * A row as our patched exceljs gives it with `rows: 'values'`: the sheet's 1-based row
 * number and the cell values by column (values[0] = column A; sparse, undefined = empty).
 * Values are what exceljs makes of a cell: string, number, boolean, Date, { richText },
 * { formula, result }, { error }.
 */
export interface SheetRow {
  readonly number: number;
  readonly values: readonly unknown[];
}

/** The reader options, set explicitly (see docs/xlsx.md). */
export const READER_OPTIONS = {
  worksheets: 'emit',
  sharedStrings: 'compact', // patch: the table held once as UTF-8 bytes outside the JS heap
  styles: 'cache', // needed to tell date cells from numbers
  hyperlinks: 'ignore', // a hyperlinked cell keeps its value
  entries: 'emit',
  rows: 'values', // patch: plain {number, values} rows, no Row/Cell objects per cell
} as const;

export interface SheetPass {
  sheet: SheetInfo;
  /** The sheet's rows, in batches, in sheet order. */
  batches: AsyncGenerator<SheetRow[]>;
}

export class Workbook {
  /** Normalised texts of rows 1..20, per sheet position (detection fills it, readers reuse it). */
  private readonly headerCache = new Map<number, Array<{ number: number; texts: string[] }>>();

  constructor(
    readonly source: ByteSource,
    readonly index: ZipIndex,
    private readonly structure: PackageStructure,
  ) {}

  /** The archive's bytes, when it was opened from a Buffer. */
  get bytes(): Buffer {
    if (this.source instanceof BufferSource) return this.source.buffer;
    throw new Error('Workbook.bytes: a pasta de trabalho foi aberta de um arquivo, não de um Buffer');
  }

  /** Releases the source (the file descriptor of a workbook opened from a path). */
  close(): Promise<void> { return this.source.close(); }

  get sheets(): readonly SheetInfo[] { return this.structure.sheets; }
  get date1904(): boolean { return this.structure.date1904; }
  get sheetNames(): string[] { return this.structure.sheets.map((s) => s.name); }

  /** The sheet with exactly this name (names are compared after trimming). */
  sheet(name: string): SheetInfo | undefined {
    return this.structure.sheets.find((s) => s.name === name) ?? this.structure.sheets.find((s) => s.name.trim() === name.trim());
  }

  /**
   * The first rows (1..HEADER_SCAN_ROWS) of a sheet as normalised texts. Reads only those
   * rows (the pass is abandoned after them) and caches the result.
   */
  async headerRows(sheet: SheetInfo): Promise<Array<{ number: number; texts: string[] }>> {
    const cached = this.headerCache.get(sheet.position);
    if (cached) return cached;
    const out: Array<{ number: number; texts: string[] }> = [];
    if (sheet.kind === 'worksheet') {
      scan: for await (const { batches } of this.pass([sheet])) {
        for await (const batch of batches) {
          for (const row of batch) {
            if (row.number > HEADER_SCAN_ROWS) break scan;
            out.push({ number: row.number, texts: rowTexts(row) });
          }
        }
      }
    }
    this.headerCache.set(sheet.position, out);
    return out;
  }

  /**
   * One streaming pass over `sheets`, in that order. Yields each sheet with its rows, in
   * batches (the rows of one parsed chunk: one await per batch, not per row). The rows of a
   * sheet must be consumed (or the pass abandoned) before asking for the next sheet.
   * Abandoning the pass (break/return) stops inflating at once. Sheets that are not
   * worksheets yield no rows.
   */
  async *pass(sheets: readonly SheetInfo[]): AsyncGenerator<SheetPass> {
    const readable = sheets.filter((s) => s.kind === 'worksheet' && s.part);
    for (const s of sheets) {
      if (s.kind === 'worksheet' && !s.part) throw unsupported(`a aba '${s.name}' aponta para uma parte que não existe no arquivo`);
    }
    const input = canonicalStream({
      bytes: this.source instanceof BufferSource ? this.source.buffer : await this.source.read(0, this.source.size),
      date1904: this.structure.date1904,
      styles: this.structure.styles,
      sharedStrings: this.structure.sharedStrings,
      sheets: readable.map((s) => ({ name: s.name, part: s.part! })),
    });
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, READER_OPTIONS as unknown as ExcelJS.stream.xlsx.WorkbookStreamReaderOptions);
    const worksheets = (reader as unknown as AsyncIterable<WorksheetParser>)[Symbol.asyncIterator]();
    let next = 0;
    try {
      for (const s of sheets) {
        if (s.kind !== 'worksheet') {
          yield { sheet: s, batches: noRows() };
          continue;
        }
        // exceljs yields worksheets in archive order, which is ours (sheetId = position + 1).
        const ws = await nextWorksheet(worksheets, s, ++next);
        yield { sheet: s, batches: batchesOf(ws, s) };
      }
    } finally {
      input.destroy();
      worksheets.return?.(undefined).catch(() => undefined);
    }
  }
}

async function nextWorksheet(worksheets: AsyncIterator<WorksheetParser>, sheet: SheetInfo, id: number): Promise<WorksheetParser> {
  let res: IteratorResult<WorksheetParser>;
  try {
    res = await worksheets.next();
  } catch (err) {
    throw readError(sheet, err);
  }
  if (res.done) throw unsupported(`a aba '${sheet.name}' não pôde ser lida`);
  if (typeof res.value.valueBatches !== 'function') {
    throw new Error('exceljs sem o patch de patches/exceljs+4.4.0.patch (WorksheetReader.valueBatches): rode npm install');
  }
  if (String(res.value.id) !== String(id)) throw new Error(`xlsx: expected worksheet ${id}, exceljs gave ${String(res.value.id)}`);
  return res.value;
}

interface WorksheetParser {
  id: number | string;
  /** patch: the rows of a `rows: 'values'` pass, in batches (the fast scanner). */
  valueBatches(): AsyncIterable<SheetRow[]>;
}

async function* noRows(): AsyncGenerator<SheetRow[]> { /* a chart sheet has no cells */ }

async function* batchesOf(ws: WorksheetParser, sheet: SheetInfo): AsyncGenerator<SheetRow[]> {
  try {
    yield* ws.valueBatches();
  } catch (err) {
    throw readError(sheet, err);
  }
}

/** The rows of a pass's sheet one by one (convenience for callers that do not batch). */
export async function* rowsOf(batches: AsyncIterable<readonly SheetRow[]>): AsyncGenerator<SheetRow> {
  for await (const batch of batches) yield* batch;
}

function readError(sheet: SheetInfo, err: unknown): WorkbookError {
  if (err instanceof WorkbookError) return err;
  const msg = (err as Error)?.message?.split('\n')[0] ?? String(err);
  return unsupported(`erro ao ler a aba '${sheet.name}' (${msg})`, err);
}

/** Without patches/exceljs+4.4.0.patch the reader would silently read wrong columns. */
function assertPatchedExceljs(): void {
  const options = (ExcelJS.stream.xlsx.WorkbookReader as unknown as { Options?: Record<string, string[]> }).Options;
  if (!options?.rows?.includes('values') || !options.sharedStrings?.includes('compact')) {
    throw new Error('exceljs sem o patch de patches/exceljs+4.4.0.patch: rode npm install (postinstall patch-package)');
  }
}

/**
 * Opens stored bytes as a workbook: checks the archive again (central directory, limits,
 * overlap; the real sizes were verified at upload) and reads its structure. Throws
 * WorkbookError('formato não suportado: …') for anything that is not a readable xlsx.
 */
export async function openWorkbook(input: Buffer | string | ByteSource, limits?: Partial<ArchiveLimits>): Promise<Workbook> {
  assertPatchedExceljs();
  const source = await toSource(input);
  try {
    const magic = await source.read(0, MAGIC_BYTES);
    if (!isZip(magic)) throw unsupported(notZipReason(await source.read(0, REASON_BYTES)));
    let index: ZipIndex;
    try {
      index = await readCentralDirectory(source, resolveLimits(limits), null);
    } catch (err) {
      if (err instanceof ArchiveError) throw unsupported(err.motivo, err);
      throw err;
    }
    let structure: PackageStructure;
    try {
      structure = await readPackageStructure(source, index);
    } catch (err) {
      if (err instanceof ArchiveError) throw unsupported(err.motivo, err);
      throw err;
    }
    return new Workbook(source, index, structure);
  } catch (err) {
    // a path was opened here: its descriptor is ours to release
    if (typeof input === 'string') await source.close().catch(() => undefined);
    throw err;
  }
}
