/**
 * Legacy Excel `.xls`: BIFF8 (Excel 97–2003) and BIFF5 (Excel 5/95) records, read by our own
 * code from the `Workbook` / `Book` stream of the CFB container (cfb.ts). The file is read
 * whole (at most XLS_BIFF_MAX_BYTES, checked before anything is parsed); the rows of each
 * sheet are then decoded from its records into the same SheetRow values as the xlsx reader
 * gives (string, number, boolean, Date by the cell's number format in the 1900 or 1904 system,
 * `{ error }`, TruncatedText), so every type reader works unchanged.
 *
 * Read: BOF/EOF (nested chart substreams skipped), FILEPASS (an encrypted file: refused),
 * CODEPAGE (BIFF5 text), DATEMODE (1904), FORMAT and XF (date formats), BOUNDSHEET (tabs:
 * name, state, kind, offset), SST with its CONTINUE records (strings split across records,
 * rich and phonetic runs skipped), LABELSST, LABEL, RSTRING, NUMBER, RK, MULRK, BOOLERR,
 * FORMULA with its cached result (a STRING record for text; BIFF3/4's FORMULA numbers too). Merged
 * cells keep their value in the first cell, as in the other formats. Every offset, length and
 * index the file gives is checked; a string longer than the cell limit is cut and marked
 * (TruncatedText); a shared-string index past the table is an error value (cells.ts,
 * missingSharedString). Cell records out of row order are read in passes over row ranges.
 */
import { TextDecoder } from 'node:util';
import { TruncatedText, excelToDate, missingSharedString } from './cells.js';
import { Cfb } from './cfb.js';
import { WorkbookError, unsupported } from './errors.js';
import type { SheetInfo } from './package.js';
import { MAX_COLUMNS } from './scanner.js';
import { BUILTIN_DATE_IDS, isDateFormat } from './styles.js';
import type { SheetRow } from './row.js';
import { Workbook, readError } from './workbook.js';

const BOF = 0x0809, EOF = 0x000a, CONTINUE = 0x003c, FILEPASS = 0x002f, CODEPAGE = 0x0042, DATEMODE = 0x0022;
const FORMAT = 0x041e, XF = 0x00e0, BOUNDSHEET = 0x0085, SST = 0x00fc;
const LABELSST = 0x00fd, LABEL = 0x0204, RSTRING = 0x00d6, NUMBER = 0x0203, RK = 0x027e, MULRK = 0x00bd;
const BOOLERR = 0x0205, FORMULA = 0x0006, STRING = 0x0207;
/** FORMULA as BIFF3 and BIFF4 numbered it: some writers put these in BIFF5/8 files (Excel reads them; the cell's first 14 bytes are laid out alike). */
const FORMULA3 = 0x0206, FORMULA4 = 0x0406;
/** The records holding a cell (their row first): the row-order check reads only these. */
const CELL_RECORDS = new Set([NUMBER, RK, MULRK, LABELSST, LABEL, RSTRING, BOOLERR, FORMULA, FORMULA3, FORMULA4]);
/**
 * A sheet whose cell records come out of row order is read in passes over row ranges, each
 * holding at most this many cells (rows are handed over in order, in bounded memory).
 */
export const XLS_UNORDERED_PASS_CELLS = 250_000;

/** Records that may come between a FORMULA and the STRING holding its text (CONTINUE, SHRFMLA, ARRAY, TABLE). */
const KEEPS_PENDING_STRING = new Set([STRING, CONTINUE, 0x04bc, 0x0221, 0x0236]);

const ERRORS: Record<number, string> = { 0x00: '#NULL!', 0x07: '#DIV/0!', 0x0f: '#VALUE!', 0x17: '#REF!', 0x1d: '#NAME?', 0x24: '#NUM!', 0x2a: '#N/A' };

/** Rows handed over per batch (one await per batch). */
const BATCH_ROWS = 1000;
/** The records walked are counted (Workbook.bytesRead) at least every this many bytes. */
const WALK_COUNT_BYTES = 64 * 1024;

export const ENCRYPTED_REASON = 'formato não suportado: arquivo .xls protegido por senha (criptografado); remova a senha no Excel e envie novamente';
export const ENCRYPTED_OOXML_REASON = 'formato não suportado: arquivo protegido por senha; remova a senha no Excel e envie novamente';

function corrupt(reason: string): WorkbookError {
  return unsupported(`arquivo .xls corrompido (${reason})`);
}

/** The data of a record followed by its CONTINUE records, read as one sequence of bytes. */
class Segments {
  private si = 0;
  private pos = 0;
  constructor(private readonly segs: Buffer[], private readonly what: string) {}

  private seg(): Buffer {
    for (;;) {
      const s = this.segs[this.si];
      if (!s) throw corrupt(`registro ${this.what} termina antes do esperado`);
      if (this.pos < s.length) return s;
      this.si++;
      this.pos = 0;
    }
  }
  get atEnd(): boolean {
    while (this.si < this.segs.length && this.pos >= this.segs[this.si]!.length) { this.si++; this.pos = 0; }
    return this.si >= this.segs.length;
  }
  u8(): number { const s = this.seg(); return s[this.pos++]!; }
  u16(): number { return this.u8() | (this.u8() << 8); }
  u32(): number { return (this.u16() + this.u16() * 65536) >>> 0; }
  skip(n: number): void {
    while (n > 0) {
      const s = this.seg();
      const k = Math.min(n, s.length - this.pos);
      this.pos += k;
      n -= k;
    }
  }
  /**
   * `cch` characters (BIFF8: compressed Latin-1 or UTF-16LE by the flags; a CONTINUE in the
   * middle starts with a new flags byte). Keeps at most `max` characters.
   */
  chars(cch: number, flags: number, max: number, partial = false): string | TruncatedText {
    let high = flags & 1;
    let out = '';
    let kept = 0;
    let left = cch;
    while (left > 0) {
      let s = this.segs[this.si];
      if (!s || this.pos >= s.length) {
        // characters going on in a CONTINUE record: it starts with a new flags byte (as Apache POI reads it)
        this.si++;
        this.pos = 0;
        s = this.segs[this.si];
        if (!s || s.length < 2) {
          if (partial) return out; // what the record holds (a FORMAT cut short by its writer)
          throw corrupt(`texto do registro ${this.what} termina antes de ${cch} caracteres`);
        }
        high = s[0]! & 1;
        this.pos = 1;
      }
      const avail = high ? (s.length - this.pos) >> 1 : s.length - this.pos;
      if (avail === 0) throw corrupt(`texto do registro ${this.what} partido no meio de um caractere`);
      const n = Math.min(left, avail);
      const take = Math.min(n, max - kept);
      if (take > 0) {
        out += high ? s.toString('utf16le', this.pos, this.pos + take * 2) : s.toString('latin1', this.pos, this.pos + take);
        kept += take;
      }
      this.pos += high ? n * 2 : n;
      left -= n;
    }
    return cch > kept ? truncated(out, cch) : out;
  }
}

function truncated(text: string, chars: number): TruncatedText {
  const last = text.charCodeAt(text.length - 1);
  return new TruncatedText(last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text, chars);
}

/** TextDecoder of a BIFF5 code page (CODEPAGE record); Windows-1252 when unknown. */
function codepageDecoder(cp: number): TextDecoder {
  const label = cp >= 1250 && cp <= 1258 ? `windows-${cp}` : cp === 10000 || cp === 0x8000 ? 'macintosh' : cp === 866 ? 'ibm866' : 'windows-1252';
  return new TextDecoder(label);
}

interface Globals {
  biff: 5 | 8;
  date1904: boolean;
  sheets: Array<SheetInfo & { offset: number }>;
  sst: Array<string | TruncatedText>;
  dateXf: Uint8Array;
  decoder: TextDecoder;
}

/** Record at `pos` of `s`: type, data, and where the next one starts. */
function recordAt(s: Buffer, pos: number): { type: number; data: Buffer; next: number } {
  if (pos + 4 > s.length) throw corrupt(`registro truncado na posição ${pos}`);
  const type = s.readUInt16LE(pos);
  const len = s.readUInt16LE(pos + 2);
  if (pos + 4 + len > s.length) throw corrupt(`registro 0x${type.toString(16)} de ${len} bytes passa do fim do fluxo`);
  return { type, data: s.subarray(pos + 4, pos + 4 + len), next: pos + 4 + len };
}

/** The data of the record at `pos` plus its CONTINUE records; `next` after the last one. */
function withContinues(s: Buffer, pos: number): { segs: Buffer[]; next: number } {
  const first = recordAt(s, pos);
  const segs = [first.data];
  let next = first.next;
  while (next + 4 <= s.length && s.readUInt16LE(next) === CONTINUE) {
    const c = recordAt(s, next);
    segs.push(c.data);
    next = c.next;
  }
  return { segs, next };
}

function need(data: Buffer, n: number, what: string): void {
  if (data.length < n) throw corrupt(`registro ${what} com ${data.length} bytes, menos que os ${n} esperados`);
}

function readGlobals(s: Buffer, maxCellChars: number): Globals {
  const bof = recordAt(s, 0);
  if (bof.type !== BOF) throw unsupported('o fluxo Workbook não começa por um registro BOF; não parece um .xls');
  need(bof.data, 4, 'BOF');
  const vers = bof.data.readUInt16LE(0);
  // 0x0580: the BIFF5 of Microsoft Graph's "Book" (a chart's data sheet embedded in an Office document)
  const biff = vers === 0x0600 ? 8 : vers === 0x0500 || vers === 0x0580 ? 5 : null;
  if (biff === null) throw unsupported(`versão BIFF 0x${vers.toString(16)} não suportada (lemos Excel 97–2003 e Excel 5/95)`);
  const g: Globals = { biff, date1904: false, sheets: [], sst: [], dateXf: new Uint8Array(0), decoder: codepageDecoder(1252) };
  const formats = new Map<number, string>();
  const xfFormats: number[] = [];
  let pos = bof.next;
  for (;;) {
    if (pos >= s.length) throw corrupt('fim do fluxo antes do fim da pasta de trabalho (EOF)');
    const r = recordAt(s, pos);
    switch (r.type) {
      case EOF:
        g.dateXf = Uint8Array.from(xfFormats, (id) => {
          const code = formats.get(id);
          return (code !== undefined ? isDateFormat(code) : BUILTIN_DATE_IDS.has(id)) ? 1 : 0;
        });
        return g;
      case FILEPASS:
        throw new WorkbookError(ENCRYPTED_REASON);
      case CODEPAGE:
        need(r.data, 2, 'CODEPAGE');
        g.decoder = codepageDecoder(r.data.readUInt16LE(0));
        break;
      case DATEMODE:
        need(r.data, 2, 'DATEMODE');
        g.date1904 = r.data.readUInt16LE(0) === 1;
        break;
      case FORMAT: {
        const { segs, next } = withContinues(s, pos);
        need(r.data, 2, 'FORMAT');
        const rd = new Segments(segs, 'FORMAT');
        const id = rd.u16();
        // a FORMAT cut short is read as far as it goes, as other readers do: it only tells dates apart
        let code = '';
        try {
          code = String(biff === 8 ? rd.chars(rd.u16(), rd.u8(), 1024, true) : bytesText(rd, rd.u8(), g.decoder, true));
        } catch (err) {
          if (!(err instanceof WorkbookError)) throw err;
        }
        formats.set(id, code);
        pos = next;
        continue;
      }
      case XF:
        need(r.data, 4, 'XF');
        if (xfFormats.length < 65_536) xfFormats.push(r.data.readUInt16LE(2));
        break;
      case BOUNDSHEET: {
        need(r.data, 7, 'BOUNDSHEET'); // a BIFF5 tab with an empty name has 7 bytes
        const offset = r.data.readUInt32LE(0);
        const st = r.data[4]! & 3;
        const dt = r.data[5]!;
        const rd = new Segments([r.data.subarray(6)], 'BOUNDSHEET');
        const cch = rd.u8();
        const name = String(biff === 8 ? rd.chars(cch, rd.u8(), 255) : bytesText(rd, cch, g.decoder));
        g.sheets.push({
          name, position: g.sheets.length, offset, part: null,
          state: st === 1 ? 'hidden' : st === 2 ? 'veryHidden' : 'visible',
          kind: dt === 0 ? 'worksheet' : dt === 2 ? 'chartsheet' : 'other',
        });
        break;
      }
      case SST: {
        const { segs, next } = withContinues(s, pos);
        g.sst = readSst(new Segments(segs, 'SST'), maxCellChars);
        pos = next;
        continue;
      }
    }
    pos = r.next;
  }
}

function bytesText(rd: Segments, n: number, decoder: TextDecoder, partial = false): string {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    if (partial && rd.atEnd) return decoder.decode(b.subarray(0, i));
    b[i] = rd.u8();
  }
  return decoder.decode(b);
}

/** The shared strings: count, unique count, then each string (rich and phonetic data skipped). */
function readSst(rd: Segments, maxCellChars: number): Array<string | TruncatedText> {
  rd.u32();
  const unique = rd.u32();
  const out: Array<string | TruncatedText> = [];
  // the declared count is not trusted to size anything: read while there are bytes
  while (out.length < unique && !rd.atEnd) {
    const cch = rd.u16();
    const flags = rd.u8();
    const runs = flags & 0x08 ? rd.u16() : 0;
    const ext = flags & 0x04 ? rd.u32() : 0;
    out.push(rd.chars(cch, flags, maxCellChars));
    rd.skip(runs * 4);
    rd.skip(ext);
  }
  return out;
}

/** RK number: a 30-bit integer or the high 30 bits of a double, optionally divided by 100. */
function rkNumber(rk: number): number {
  let n: number;
  if (rk & 2) n = rk >> 2;
  else {
    const b = Buffer.alloc(8);
    b.writeUInt32LE((rk & 0xfffffffc) >>> 0, 4);
    n = b.readDoubleLE(0);
  }
  return rk & 1 ? n / 100 : n;
}

/** Rows [lo, hi) (0-based) of an out-of-order sheet: one pass collects them and hands them over sorted. */
interface RowRange { lo: number; hi: number }

/**
 * The row order of a sheet's cell records: null when they come in order (the sheet is
 * streamed), else the row ranges to read it in, each holding at most XLS_UNORDERED_PASS_CELLS cells.
 */
function rowRanges(s: Buffer, offset: number, passCells: number): RowRange[] | null {
  let perRow: Uint32Array | null = null;
  for (;;) {
    let last = -1;
    let unordered = false;
    let pos = offset;
    let depth = 0;
    while (pos + 4 <= s.length) {
      const type = s.readUInt16LE(pos);
      const len = s.readUInt16LE(pos + 2);
      const d = pos + 4;
      pos = d + len;
      if (pos > s.length) break; // the pass itself reports the cut record
      if (type === BOF) depth++;
      else if (type === EOF) { if (--depth === 0) break; }
      else if (depth === 1 && len >= 2 && CELL_RECORDS.has(type)) {
        const row = s.readUInt16LE(d);
        if (perRow) perRow[row]! += type === MULRK ? Math.max(1, Math.floor((len - 6) / 6)) : 1;
        else if (row < last) { unordered = true; break; }
        else last = row;
      }
    }
    if (perRow) break;
    if (!unordered) return null;
    perRow = new Uint32Array(65_536); // a second walk counts the cells of each row
  }
  const ranges: RowRange[] = [];
  let lo = 0, cells = 0;
  for (let r = 0; r < 65_536; r++) {
    const n = perRow[r]!;
    if (cells > 0 && cells + n > passCells) { ranges.push({ lo, hi: r }); lo = r; cells = 0; }
    cells += n;
  }
  ranges.push({ lo, hi: 65_536 });
  return ranges;
}

/** The opened `.xls`: its globals, and one pass over a sheet's records per request. */
export class XlsWorkbook extends Workbook {
  readonly formato = 'xls' as const;
  /** Per tab offset: null (in row order: streamed) or the row ranges of its passes. */
  private readonly order = new Map<number, RowRange[] | null>();
  /** Most cells a pass over an out-of-order tab holds (tests lower it). */
  unorderedPassCells = XLS_UNORDERED_PASS_CELLS;

  constructor(private stream: Buffer, private readonly g: Globals, private readonly maxCellChars: number) {
    super();
  }

  get sheets(): readonly SheetInfo[] { return this.g.sheets; }
  get date1904(): boolean { return this.g.date1904; }
  /** Tabs are told apart by where their records start: tabs pointing at one offset are one sheet. */
  protected override sheetKey(sheet: SheetInfo): string { return `@${this.g.sheets[sheet.position]!.offset}`; }
  /** Whether the file is BIFF5 (Excel 5/95) rather than BIFF8. */
  get biff(): 5 | 8 { return this.g.biff; }

  close(): Promise<void> {
    this.stream = Buffer.alloc(0);
    return Promise.resolve();
  }

  protected async *sheetBatches(sheet: SheetInfo): AsyncGenerator<SheetRow[]> {
    const info = this.g.sheets[sheet.position]!;
    let ranges = this.order.get(info.offset);
    if (ranges === undefined) {
      ranges = info.offset < this.stream.length ? rowRanges(this.stream, info.offset, this.unorderedPassCells) : null;
      this.order.set(info.offset, ranges);
    }
    for (const range of ranges ?? [null]) {
      const rows = this.decode(info, range);
      for (;;) {
        let next: IteratorResult<SheetRow[]>;
        try {
          next = rows.next();
        } catch (err) {
          throw readError(sheet, err);
        }
        if (next.done) break;
        yield next.value;
      }
    }
  }

  /** Counts the records walked (detection's cap: docs/formatos.md). */
  private walked(from: number, to: number): number {
    this.sheetBytes += to - from;
    return to;
  }

  /**
   * The rows of a sheet, decoded synchronously in batches: streamed as the records come
   * (range null: they are in row order), or the rows of one range collected and handed over
   * sorted (a writer that put its cell records out of row order, as Excel and other readers accept).
   */
  private *decode(info: SheetInfo & { offset: number }, range: RowRange | null): Generator<SheetRow[]> {
    const s = this.stream;
    const { biff, sst, dateXf, date1904, decoder } = this.g;
    const max = this.maxCellChars;
    if (info.offset >= s.length) throw corrupt(`a aba começa na posição ${info.offset}, além do fim do fluxo (${s.length} bytes)`);
    const bof = recordAt(s, info.offset);
    if (bof.type !== BOF) throw corrupt(`a aba não começa por um registro BOF (posição ${info.offset})`);
    let pos = bof.next;
    let counted = info.offset;
    let depth = 1;
    let batch: SheetRow[] = [];
    const open: { row: { number: number; values: unknown[] } | null } = { row: null };
    const collected = new Map<number, unknown[]>();
    let pendingString: { row: number; col: number } | null = null;
    const num = (xf: number, n: number): unknown => (dateXf[xf] === 1 ? excelToDate(n, date1904) : n);
    const set = (row: number, col: number, v: unknown): void => {
      if (col >= MAX_COLUMNS) throw new Error(`célula na coluna ${col + 1} fora dos limites da planilha (a última coluna é XFD, a ${MAX_COLUMNS.toLocaleString('pt-BR')}ª)`);
      if (range) {
        if (row < range.lo || row >= range.hi) return;
        let values = collected.get(row);
        if (!values) collected.set(row, values = []);
        values[col] = v;
        return;
      }
      const number = row + 1;
      let cur = open.row;
      if (cur === null || cur.number !== number) {
        if (cur !== null) {
          if (number < cur.number) throw new Error(`registros fora de ordem: linha ${number} depois da linha ${cur.number}`);
          batch.push(cur);
        }
        cur = open.row = { number, values: [] };
      }
      cur.values[col] = v;
    };
    while (depth > 0) {
      if (pos >= s.length) throw corrupt('fim do fluxo antes do fim da aba (EOF)');
      const r = recordAt(s, pos);
      const d = r.data;
      pos = r.next;
      if (r.type === BOF) { depth++; continue; }
      if (r.type === EOF) { depth--; continue; }
      if (depth > 1) continue; // an embedded chart's records
      if (!KEEPS_PENDING_STRING.has(r.type)) pendingString = null;
      switch (r.type) {
        case NUMBER:
          need(d, 14, 'NUMBER');
          set(d.readUInt16LE(0), d.readUInt16LE(2), num(d.readUInt16LE(4), d.readDoubleLE(6)));
          break;
        case RK:
          need(d, 10, 'RK');
          set(d.readUInt16LE(0), d.readUInt16LE(2), num(d.readUInt16LE(4), rkNumber(d.readUInt32LE(6))));
          break;
        case MULRK: {
          need(d, 6, 'MULRK');
          const row = d.readUInt16LE(0);
          const first = d.readUInt16LE(2);
          const n = Math.floor((d.length - 6) / 6);
          for (let i = 0; i < n; i++) set(row, first + i, num(d.readUInt16LE(4 + 6 * i), rkNumber(d.readUInt32LE(6 + 6 * i))));
          break;
        }
        case LABELSST: {
          need(d, 10, 'LABELSST');
          const i = d.readUInt32LE(6);
          set(d.readUInt16LE(0), d.readUInt16LE(2), sst[i] ?? missingSharedString(i, sst.length)); // as in .xlsx: a row error, not the file refused
          break;
        }
        case LABEL:
        case RSTRING: {
          need(d, 8, 'LABEL');
          const { segs, next } = withContinues(s, pos - d.length - 4);
          const rd = new Segments(segs, 'LABEL');
          rd.skip(6);
          const cch = rd.u16();
          const v = biff === 8 ? rd.chars(cch, rd.u8(), max) : bytesText(rd, cch, decoder);
          set(d.readUInt16LE(0), d.readUInt16LE(2), typeof v === 'string' && v.length > max ? truncated(v.slice(0, max), v.length) : v);
          pos = next;
          break;
        }
        case BOOLERR:
          need(d, 8, 'BOOLERR');
          set(d.readUInt16LE(0), d.readUInt16LE(2), d[7] ? { error: ERRORS[d[6]!] ?? '#N/A' } : d[6] !== 0);
          break;
        case FORMULA:
        case FORMULA3:
        case FORMULA4: {
          need(d, 14, 'FORMULA');
          const row = d.readUInt16LE(0), col = d.readUInt16LE(2), xf = d.readUInt16LE(4);
          if (d.readUInt16LE(12) !== 0xffff) set(row, col, num(xf, d.readDoubleLE(6)));
          else {
            const t = d[6];
            if (t === 0) pendingString = { row, col }; // the text comes in the STRING record that follows
            else if (t === 1) set(row, col, d[8] !== 0);
            else if (t === 2) set(row, col, { error: ERRORS[d[8]!] ?? '#N/A' });
            else set(row, col, '');
          }
          break;
        }
        case STRING: {
          if (!pendingString) break;
          const { segs, next } = withContinues(s, pos - d.length - 4);
          const rd = new Segments(segs, 'STRING');
          const cch = rd.u16();
          const v = biff === 8 ? rd.chars(cch, rd.u8(), max) : bytesText(rd, cch, decoder);
          set(pendingString.row, pendingString.col, v);
          pendingString = null;
          pos = next;
          break;
        }
      }
      if (batch.length >= BATCH_ROWS || pos - counted >= WALK_COUNT_BYTES) {
        counted = this.walked(counted, pos);
        if (batch.length > 0) yield batch;
        batch = [];
      }
    }
    counted = this.walked(counted, pos);
    if (open.row !== null) batch.push(open.row);
    for (const row of [...collected.keys()].sort((a, b) => a - b)) {
      batch.push({ number: row + 1, values: collected.get(row)! });
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}

/**
 * Opens a `.xls` held whole in `file` (a CFB container). Throws WorkbookError: encrypted
 * (FILEPASS, or an encrypted OOXML package), not a spreadsheet, or corrupt.
 */
export function openXls(file: Buffer, maxCellChars: number): XlsWorkbook {
  try {
    return openXlsChecked(file, maxCellChars);
  } catch (err) {
    if (err instanceof WorkbookError) throw err;
    // every number is checked before use; should one slip through, the staff still get words, not Node's
    throw corrupt('estrutura do contêiner ou dos registros inválida');
  }
}

function openXlsChecked(file: Buffer, maxCellChars: number): XlsWorkbook {
  const cfb = new Cfb(file);
  if (cfb.find('EncryptedPackage') || cfb.find('EncryptionInfo')) throw new WorkbookError(ENCRYPTED_OOXML_REASON);
  const entry = cfb.find('Workbook') ?? cfb.find('Book');
  if (!entry) throw unsupported('arquivo do Office antigo sem o fluxo Workbook: não é uma planilha do Excel');
  const stream = cfb.read(entry);
  const g = readGlobals(stream, maxCellChars);
  if (g.sheets.length === 0) throw unsupported('a pasta de trabalho não declara nenhuma aba');
  return new XlsWorkbook(stream, g, maxCellChars);
}
