/**
 * OpenDocument spreadsheets (`.ods`, LibreOffice's own format), read by our own streaming
 * code: the zip's `content.xml` is inflated from the archive in chunks (zip.ts: sizes, CRC,
 * ratio checked as for xlsx) and read by a hand-written scanner (ods-scanner.ts), one sheet
 * per pass, never held whole.
 *
 * - Structure: one scan of the inflated bytes (no XML parse) finds each `<table:table>` start
 *   tag — the tab's name and its byte offset — and the null date (`table:null-date`: a
 *   1904-01-01 base makes the workbook a 1904 one). A pass over a sheet inflates again, skips
 *   to that offset and parses that table alone, so reading the third tab does not parse the
 *   first two.
 * - Cells give the same values as the xlsx reader: float/percentage/currency → number, date
 *   → Date (UTC), time → fraction of a day, boolean, string (its paragraphs joined by `\n`,
 *   `text:s` spaces, tabs and line breaks; annotations left out), an error result
 *   (`calcext:value-type="error"`) → `{ error }`. Formulas give their cached value. Covered
 *   (merged) cells are empty, keeping their place.
 * - Hostile input: a DOCTYPE is refused (so no entity can be defined: an entity bomb stops at
 *   its first reference, which the scanner does not know); one XML token (a tag or a run of
 *   text) over 1 Mi characters is refused before it is buffered; a cell keeps at most
 *   `maxCellChars` characters (TruncatedText); `number-columns-repeated` /
 *   `number-rows-repeated` never go past column XFD / row 1,048,576, empty repeats cost
 *   nothing, and the cells made by repeating a non-empty cell or row are bounded
 *   (ODS_MAX_REPEATED_CELLS) — a tiny file cannot expand into billions of cells.
 */
import { SaxesParser } from 'saxes';
import { unsupported } from './errors.js';
import { OdsTableScanner } from './ods-scanner.js';
import type { SheetInfo } from './package.js';
import { MAX_MARKUP_CHARS } from './scanner.js';
import type { ByteSource } from './source.js';
import type { SheetRow } from './row.js';
import { HEADER_SCAN_ROWS, rowTexts } from './headers.js';
import { type HeaderRows, Workbook, checkHeaderBudget, readError } from './workbook.js';
import { type ZipEntry, type ZipIndex, entryChunks, readSmallPart } from './zip.js';

export const ODS_MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';

const NS_TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
const NS_OFFICE = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const NS_TEXT = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
const NS_CALCEXT = 'urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0';

export { ODS_MAX_REPEATED_CELLS } from './ods-scanner.js';

const BATCH_ROWS = 1000;

const NS_MANIFEST = 'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0';

/** What the package's manifest says: encrypted parts (a password-protected .ods), the package's media type. */
export interface OdsManifest { encrypted: boolean; mediaType: string | null }

/**
 * Reads `META-INF/manifest.xml` (null when absent): an `encryption-data` element of the
 * manifest namespace means encrypted parts — the element, not the words (a comment or a
 * file name saying `encryption-data` is not one) — and the media type of the `/` entry.
 * A manifest that is not XML is ignored (content.xml decides), as other readers do.
 */
export async function readOdsManifest(source: ByteSource, index: ZipIndex): Promise<OdsManifest | null> {
  const entry = index.byName.get('meta-inf/manifest.xml');
  if (!entry) return null;
  const xml = (await readSmallPart(source, entry, 16 * 1024 * 1024)).toString('utf8');
  const out: OdsManifest = { encrypted: false, mediaType: null };
  const parser = new SaxesParser({ xmlns: true, position: false });
  parser.on('doctype', () => { throw new Error('DOCTYPE'); });
  parser.on('opentag', (tag) => {
    if (tag.uri !== NS_MANIFEST) return;
    if (tag.local === 'encryption-data') out.encrypted = true;
    else if (tag.local === 'file-entry') {
      const attrs = tag.attributes as Record<string, { uri: string; local: string; value: string }>;
      const attr = (local: string) => Object.values(attrs).find((a) => a.uri === NS_MANIFEST && a.local === local)?.value;
      if (attr('full-path') === '/') out.mediaType = attr('media-type') ?? null;
    }
  });
  try {
    parser.write(xml).close();
  } catch {
    // an encryption-data element seen before the error still counts
    return out.encrypted ? out : { encrypted: false, mediaType: null };
  }
  return out;
}

/** Whether the package's manifest declares encrypted parts (a password-protected .ods). */
export async function isEncryptedOds(source: ByteSource, index: ZipIndex): Promise<boolean> {
  return (await readOdsManifest(source, index))?.encrypted ?? false;
}

interface OdsSheet extends SheetInfo {
  /** Byte offset of the table's start tag in the inflated content.xml. */
  offset: number;
}

interface Prefixes { table: string; office: string; text: string; calcext: string; decls: string }

function xmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
    }
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e]!;
  });
}

function attrOf(tag: string, qname: string): string | undefined {
  const re = new RegExp(`\\s${qname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=\\s*("([^"]*)"|'([^']*)')`);
  const m = re.exec(tag);
  return m ? xmlUnescape(m[2] ?? m[3] ?? '') : undefined;
}

/** The namespace prefixes declared on the root element (`<office:document-content xmlns:…>`). */
function rootPrefixes(rootTag: string): Prefixes {
  const decls: string[] = [];
  const byUri = new Map<string, string>();
  for (const m of rootTag.matchAll(/\sxmlns:([\w.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    decls.push(m[0].trim());
    byUri.set(xmlUnescape(m[3] ?? m[4] ?? ''), m[1]!);
  }
  const table = byUri.get(NS_TABLE);
  const office = byUri.get(NS_OFFICE);
  if (!table || !office) throw unsupported('content.xml do .ods não declara os espaços de nomes de planilha');
  return { table, office, text: byUri.get(NS_TEXT) ?? 'text', calcext: byUri.get(NS_CALCEXT) ?? 'calcext', decls: decls.join(' ') };
}

/**
 * The structure scan: the root's prefixes, every `<table:table …>` start tag (name, offset),
 * and the null date. Bytes only: no XML parse, one inflate of content.xml.
 */
async function scanStructure(source: ByteSource, content: ZipEntry): Promise<{ prefixes: Prefixes; sheets: OdsSheet[]; date1904: boolean }> {
  let prefixes: Prefixes | null = null;
  let prolog = '';
  let needle: Buffer | null = null;
  let nullDateNeedle: Buffer | null = null;
  let date1904 = false;
  const sheets: OdsSheet[] = [];
  let carry = Buffer.alloc(0);
  let base = 0; // offset of carry[0] in the inflated stream
  for await (const chunk of entryChunks(source, content, null)) {
    let buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    if (!prefixes) {
      // the prolog and the root start tag
      prolog += chunk.toString('latin1');
      const root = /<(?![?!])[^>]*>/.exec(prolog.replace(/<!--[\s\S]*?-->/g, (c) => ' '.repeat(c.length)));
      if (/<!DOCTYPE/i.test(prolog.slice(0, root ? root.index : prolog.length))) throw unsupported('content.xml do .ods com DOCTYPE (declarações de entidades não são aceitas)');
      if (!root) {
        if (prolog.length > MAX_MARKUP_CHARS) throw unsupported('content.xml do .ods sem elemento raiz no primeiro 1 MiB');
        carry = Buffer.alloc(0);
        base += chunk.length;
        continue;
      }
      prefixes = rootPrefixes(Buffer.from(root[0], 'latin1').toString('utf8'));
      needle = Buffer.from(`<${prefixes.table}:table`);
      nullDateNeedle = Buffer.from(`<${prefixes.table}:null-date`);
      // scan the whole prolog-and-root buffer from the start
      buf = Buffer.from(prolog, 'latin1');
      base = 0;
    }
    let at = 0;
    let pendingFrom = -1;
    for (;;) {
      if (sheets.length === 0) {
        const nd = buf.indexOf(nullDateNeedle!, at);
        if (nd >= 0) {
          const end = buf.indexOf(0x3e, nd);
          if (end >= 0) {
            const v = attrOf(buf.toString('utf8', nd, end + 1), `${prefixes.table}:date-value`);
            if (v !== undefined) date1904 = v.startsWith('1904-01-01');
          }
        }
      }
      const hit = buf.indexOf(needle!, at);
      if (hit < 0) break;
      const after = buf[hit + needle!.length];
      if (after === undefined) { pendingFrom = hit; break; }
      if (after !== 0x20 && after !== 0x3e && after !== 0x2f && after !== 0x09 && after !== 0x0a && after !== 0x0d) { at = hit + 1; continue; }
      const end = buf.indexOf(0x3e, hit);
      if (end < 0) { pendingFrom = hit; break; }
      const tag = buf.toString('utf8', hit, end + 1);
      sheets.push({
        name: attrOf(tag, `${prefixes.table}:name`) ?? `Planilha${sheets.length + 1}`,
        position: sheets.length, state: 'visible', kind: 'worksheet', part: null, offset: base + hit,
      });
      at = end + 1;
    }
    // the tail is kept for a tag cut by the chunk's end, never a tag already taken (a small
    // table's start tag in the last 64 bytes was counted twice: a tab read twice)
    const keepFrom = pendingFrom >= 0 ? pendingFrom : Math.max(at, buf.length - 64);
    if (buf.length - keepFrom > MAX_MARKUP_CHARS) throw unsupported(`content.xml do .ods: marcação com mais de ${MAX_MARKUP_CHARS} caracteres`);
    carry = Buffer.from(buf.subarray(keepFrom));
    base += keepFrom;
  }
  if (!prefixes) throw unsupported('content.xml do .ods vazio');
  if (sheets.length === 0) throw unsupported('a pasta de trabalho não declara nenhuma aba');
  return { prefixes, sheets, date1904 };
}

export async function openOds(source: ByteSource, index: ZipIndex, maxCellChars: number): Promise<OdsWorkbook> {
  const content = index.byName.get('content.xml');
  if (!content) throw unsupported('o .ods não contém content.xml');
  const s = await scanStructure(source, content);
  return new OdsWorkbook(source, content, s.prefixes, s.sheets, s.date1904, maxCellChars);
}

export class OdsWorkbook extends Workbook {
  readonly formato = 'ods' as const;

  constructor(
    private readonly source: ByteSource,
    private readonly content: ZipEntry,
    private readonly p: Prefixes,
    private readonly odsSheets: OdsSheet[],
    private readonly nullDate1904: boolean,
    private readonly maxCellChars: number,
  ) {
    super();
  }

  get sheets(): readonly SheetInfo[] { return this.odsSheets; }
  get date1904(): boolean { return this.nullDate1904; }
  close(): Promise<void> { return this.source.close(); }

  /** Tabs are told apart by where their table starts in content.xml. */
  protected override sheetKey(sheet: SheetInfo): string { return `@${this.odsSheets[sheet.position]!.offset}`; }

  /**
   * Every tab's first rows in ONE pass over content.xml: inflated once, each table parsed from
   * its start tag until its header rows are read, the bytes up to the next table skipped
   * unparsed (reading them tab by tab inflated content.xml from its start for every tab:
   * 20,000 empty tabs took two minutes). A table that cannot be read keeps its error.
   */
  override async readHeaders(sheets: readonly SheetInfo[], maxBytes = Number.POSITIVE_INFINITY): Promise<void> {
    const todo = new Map<string, SheetInfo>();
    for (const s of sheets) if (s.kind === 'worksheet' && !this.cachedHeaders(s)) todo.set(this.sheetKey(s), s);
    const ordered = [...todo.values()].sort((a, b) => this.odsSheets[a.position]!.offset - this.odsSheets[b.position]!.offset);
    // a table ends before the next one starts (unless nested): its parse is fed up to there only
    const starts = [...new Set(this.odsSheets.map((t) => t.offset))].sort((a, b) => a - b);
    let k = 0;
    const start = this.sheetBytes;
    const cursor = this.cursor();
    try {
      for (const s of ordered) {
        const offset = this.odsSheets[s.position]!.offset;
        while (k < starts.length && starts[k]! <= offset) k++;
        const until = starts[k];
        checkHeaderBudget(this.sheetBytes - start, maxBytes, sheets.length);
        if (cursor.pos > this.odsSheets[s.position]!.offset) {
          // a table that starts inside the one read before (nested): a pass of its own
          await this.headerRows(s).catch((err: unknown) => this.cacheHeaders(s, err instanceof Error ? err : new Error(String(err))));
          continue;
        }
        const out: HeaderRows = [];
        try {
          scan: for await (const batch of this.tableBatches(s, cursor, until)) {
            for (const row of batch) {
              if (row.number > HEADER_SCAN_ROWS) break scan;
              out.push({ number: row.number, texts: rowTexts(row) });
            }
          }
          this.cacheHeaders(s, out);
        } catch (err) {
          this.cacheHeaders(s, err instanceof Error ? err : new Error(String(err)));
        }
      }
    } finally {
      await cursor.chunks.return(undefined);
    }
  }

  /** A reading position over the inflated content.xml, shared by the tables of one pass. */
  private cursor(): Cursor {
    return { chunks: entryChunks(this.source, this.content, null), buf: null, pos: 0 };
  }

  protected async *sheetBatches(sheet: SheetInfo): AsyncGenerator<SheetRow[]> {
    const cursor = this.cursor();
    try {
      yield* this.tableBatches(sheet, cursor);
    } finally {
      await cursor.chunks.return(undefined);
    }
  }

  /**
   * The rows of one table, read from `cursor`, which must not be past the table's start. When
   * the table is over (or the caller stops), the cursor stays on the chunk it read last, so a
   * later table of the same pass starts from there. `until`: where the next table starts; the
   * parser is fed up to there first, and past it only if the table is not over (a nested table).
   */
  private async *tableBatches(sheet: SheetInfo, cursor: Cursor, until?: number): AsyncGenerator<SheetRow[]> {
    const { offset } = this.odsSheets[sheet.position]!;
    const scanner = new OdsTableScanner(this.p, this.maxCellChars, this.nullDate1904);
    const out = scanner.rows;
    const decoder = new TextDecoder('utf-8');
    let from = offset; // the next byte of content.xml this table needs
    if (cursor.pos > from) throw readError(sheet, new Error('a leitura do content.xml já passou do início da aba'));
    for (;;) {
      try {
        while (cursor.buf === null || cursor.pos + cursor.buf.length <= from) {
          if (cursor.buf !== null) { cursor.pos += cursor.buf.length; cursor.buf = null; }
          const next = await cursor.chunks.next();
          if (next.done) {
            if (!scanner.done) throw new Error('content.xml termina antes do fim da aba');
            return;
          }
          cursor.buf = next.value;
        }
        let end = cursor.pos + cursor.buf.length;
        if (until !== undefined && from < until && until < end) end = until;
        const buf = cursor.buf.subarray(from - cursor.pos, end - cursor.pos);
        from = end;
        this.sheetBytes += buf.length;
        // the scanner stops at the table's end tag: what follows is not ours
        scanner.write(decoder.decode(buf, { stream: true }));
      } catch (err) {
        throw readError(sheet, err);
      }
      while (out.length > 0) {
        const batch: SheetRow[] = [];
        while (out.length > 0 && batch.length < BATCH_ROWS) {
          const r = out[0]!;
          batch.push({ number: r.number, values: r.values });
          if (r.repeat > 1) { r.number++; r.repeat--; } else out.shift();
        }
        yield batch;
      }
      if (scanner.done) return;
    }
  }

}

interface Cursor {
  chunks: AsyncGenerator<Buffer>;
  /** The chunk read last (null before the first and at the end). */
  buf: Buffer | null;
  /** Offset of buf[0] in the inflated content.xml. */
  pos: number;
}
