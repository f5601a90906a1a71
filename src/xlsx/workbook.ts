/**
 * An opened workbook: the validated archive (over a ByteSource: a Buffer or a file), its
 * structure (package.ts), and streaming passes over chosen sheets, read by our scanner
 * (scanner.ts) from the inflated sheet parts, with the shared strings (shared-strings.ts)
 * and the date styles (styles.ts) read once per workbook.
 */
import { WorkbookError, ArchiveError, unsupported } from './errors.js';
import { type DecodeContext, cellDecoder } from './cells.js';
import { DEFAULT_READER_LIMITS, formatBytes } from './limits.js';
import type { PackageStructure, SheetInfo } from './package.js';
import { HEADER_SCAN_ROWS, rowTexts } from './headers.js';
import type { SheetRow } from './row.js';
import { type CellDecoder, SheetScanner } from './scanner.js';
import { readSharedStrings } from './shared-strings.js';
import { type ByteSource, BufferSource } from './source.js';
import { Styles } from './styles.js';
import { type ZipIndex, entryChunks, readSmallPart } from './zip.js';

export type { SheetInfo } from './package.js';

export type { SheetRow } from './row.js';

/** The normalised texts of a sheet's first rows, with their row numbers. */
export type HeaderRows = Array<{ number: number; texts: string[] }>;

/** Refuses a detection that has read more than its cap (docs/formatos.md, "Detection"). */
export function checkHeaderBudget(read: number, maxBytes: number, sheets: number): void {
  if (read > maxBytes) {
    throw unsupported(`a detecção do tipo leu ${formatBytes(read)} das primeiras linhas das ${sheets.toLocaleString('pt-BR')} abas `
      + `sem terminar (o limite é ${formatBytes(maxBytes)}): a planilha tem abas demais ou abas malformadas; envie só as abas do relatório`);
  }
}

export interface SheetPass {
  sheet: SheetInfo;
  /** The sheet's rows, in batches, in sheet order. */
  batches: AsyncGenerator<SheetRow[]>;
}

/** The formats read by content (docs/xlsx.md, "Formats"). */
export type Formato = 'xlsx' | 'xls' | 'ods';

/**
 * An opened workbook of any format: its tabs, its date system, and streaming passes over
 * chosen sheets. The per-type readers and detection see only this; each format gives the
 * same SheetRow values (XlsxWorkbook here, XlsWorkbook in biff.ts, OdsWorkbook in ods.ts).
 */
export abstract class Workbook {
  /** Normalised texts of rows 1..20, per distinct sheet (sheetKey; detection fills it, readers reuse it). */
  private readonly headerCache = new Map<string, HeaderRows | Error>();
  /** Bytes of sheet data the passes have read so far (detection's cap is counted with it). */
  protected sheetBytes = 0;

  abstract readonly formato: Formato;
  abstract get sheets(): readonly SheetInfo[];
  /** The workbook counts date serials from 1904-01-01. */
  abstract get date1904(): boolean;
  /** Releases what the workbook holds (the file descriptor of a workbook opened from a path). */
  abstract close(): Promise<void>;
  /** The rows of one worksheet, in batches, in sheet order. */
  protected abstract sheetBatches(sheet: SheetInfo): AsyncGenerator<SheetRow[]>;
  /** Whether the sheet has cells to read. */
  protected hasRows(sheet: SheetInfo): boolean { return sheet.kind === 'worksheet'; }
  /**
   * What identifies the content of a sheet: two tabs with the same key read the same cells
   * (a hostile file may point thousands of tabs at one sheet; it is read once).
   */
  protected sheetKey(sheet: SheetInfo): string { return `#${sheet.position}`; }

  /** Bytes of sheet data read so far by every pass over this workbook. */
  get bytesRead(): number { return this.sheetBytes; }

  get sheetNames(): string[] { return this.sheets.map((s) => s.name); }

  /** The sheet with exactly this name (names are compared after trimming). */
  sheet(name: string): SheetInfo | undefined {
    return this.sheets.find((s) => s.name === name) ?? this.sheets.find((s) => s.name.trim() === name.trim());
  }

  /** The cached header rows of a sheet (read by headerRows or readHeaders), or the error of reading them. */
  protected cachedHeaders(sheet: SheetInfo): HeaderRows | Error | undefined {
    return this.headerCache.get(this.sheetKey(sheet));
  }

  protected cacheHeaders(sheet: SheetInfo, rows: HeaderRows | Error): void {
    this.headerCache.set(this.sheetKey(sheet), rows);
  }

  /**
   * The first rows (1..HEADER_SCAN_ROWS) of a sheet as normalised texts. Reads only those
   * rows (the pass is abandoned after them) and caches the result per distinct sheet.
   */
  async headerRows(sheet: SheetInfo): Promise<HeaderRows> {
    const cached = this.cachedHeaders(sheet);
    if (cached instanceof Error) throw cached;
    if (cached) return cached;
    const out: HeaderRows = [];
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
    this.cacheHeaders(sheet, out);
    return out;
  }

  /**
   * Reads (and caches) the header rows of all these sheets, each distinct sheet once, in as few
   * passes as the format allows (an .ods reads them all in one pass over content.xml). A sheet
   * that cannot be read keeps its error, thrown when headerRows asks for it (as if read then).
   * Throws a WorkbookError once more than `maxBytes` of sheet data have been read for it.
   */
  async readHeaders(sheets: readonly SheetInfo[], maxBytes = Number.POSITIVE_INFINITY): Promise<void> {
    const start = this.sheetBytes;
    for (const s of sheets) {
      if (this.cachedHeaders(s)) continue;
      checkHeaderBudget(this.sheetBytes - start, maxBytes, sheets.length);
      try {
        await this.headerRows(s);
      } catch (err) {
        this.cacheHeaders(s, err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  /**
   * One streaming pass over `sheets`, in that order. Yields each sheet with its rows, in
   * batches (one await per batch, not per row). Each sheet is read when its batches are
   * pulled; pauses between sheets lose nothing. Abandoning the pass (break/return) stops
   * reading at once. Sheets that are not worksheets yield no rows.
   */
  async *pass(sheets: readonly SheetInfo[]): AsyncGenerator<SheetPass> {
    let current: AsyncGenerator<SheetRow[]> | null = null;
    try {
      for (const s of sheets) {
        if (current) await current.return(undefined);
        current = this.hasRows(s) ? this.sheetBatches(s) : noRows();
        yield { sheet: s, batches: current };
      }
    } finally {
      await current?.return(undefined);
    }
  }
}

/** An xlsx: a zip package read by our scanner (package.ts, scanner.ts). */
export class XlsxWorkbook extends Workbook {
  readonly formato = 'xlsx' as const;
  private decoderPromise: Promise<CellDecoder> | null = null;

  constructor(
    readonly source: ByteSource,
    readonly index: ZipIndex,
    private readonly structure: PackageStructure,
    /** Most characters one cell or shared string keeps. */
    readonly maxCellChars: number = DEFAULT_READER_LIMITS.maxCellChars,
  ) {
    super();
  }

  /** The archive's bytes, when it was opened from a Buffer. */
  get bytes(): Buffer {
    if (this.source instanceof BufferSource) return this.source.buffer;
    throw new Error('Workbook.bytes: a pasta de trabalho foi aberta de um arquivo, não de um Buffer');
  }

  close(): Promise<void> { return this.source.close(); }

  get sheets(): readonly SheetInfo[] { return this.structure.sheets; }
  get date1904(): boolean { return this.structure.date1904; }
  protected override hasRows(sheet: SheetInfo): boolean { return sheet.kind === 'worksheet' && sheet.part !== null; }
  protected override sheetKey(sheet: SheetInfo): string { return sheet.part ? `@${sheet.part.name}` : super.sheetKey(sheet); }

  /** The cell decoder of this workbook: shared strings and styles, read on first use. */
  private decoder(): Promise<CellDecoder> {
    this.decoderPromise ??= (async () => {
      const { sharedStrings, styles, date1904 } = this.structure;
      const table = sharedStrings ? await readSharedStrings(this.source, sharedStrings, this.maxCellChars) : null;
      const st = styles ? Styles.parse(await readSmallPart(this.source, styles), styles.name) : Styles.NONE;
      const ctx: DecodeContext = { date1904, sharedStrings: table, isDateStyle: (s) => st.isDate(s) };
      return cellDecoder(ctx);
    })();
    // a failed read is not cached: the error belongs to this pass
    this.decoderPromise.catch(() => { this.decoderPromise = null; });
    return this.decoderPromise;
  }

  protected async *sheetBatches(sheet: SheetInfo): AsyncGenerator<SheetRow[]> {
    let scanner: SheetScanner;
    try {
      scanner = new SheetScanner(await this.decoder(), this.maxCellChars);
    } catch (err) {
      throw readError(sheet, err);
    }
    const decoder = new TextDecoder('utf-8');
    const chunks = entryChunks(this.source, sheet.part!, null);
    try {
      for (;;) {
        let rows: SheetRow[];
        try {
          const next = await chunks.next();
          if (next.done) {
            rows = scanner.scan(decoder.decode());
            scanner.end();
            if (rows.length > 0) yield rows;
            return;
          }
          this.sheetBytes += next.value.length;
          rows = scanner.scan(decoder.decode(next.value, { stream: true }));
        } catch (err) {
          throw readError(sheet, err);
        }
        if (rows.length > 0) yield rows;
      }
    } finally {
      await chunks.return(undefined);
    }
  }
}

async function* noRows(): AsyncGenerator<SheetRow[]> { /* a chart sheet has no cells */ }

/** The rows of a pass's sheet one by one (convenience for callers that do not batch). */
export async function* rowsOf(batches: AsyncIterable<readonly SheetRow[]>): AsyncGenerator<SheetRow> {
  for await (const batch of batches) yield* batch;
}

export function readError(sheet: SheetInfo, err: unknown): WorkbookError {
  if (err instanceof WorkbookError) return err;
  const msg = err instanceof ArchiveError ? err.motivo : (err as Error)?.message?.split('\n')[0] ?? String(err);
  return unsupported(`erro ao ler a aba '${sheet.name}' (${msg})`, err);
}
