/**
 * XML scanners for the two big parts of an xlsx: worksheets (rows of cells) and the shared
 * strings table. A specialised scanner walks the decoded text once, with no event or node
 * object per tag and no object per cell: it checks that tags nest, decodes the predefined
 * and numeric entities, normalises line ends as XML requires, and hands over only what the
 * reader needs. (Measured on the 200k-row RELATORIO18 of bench/ingest: 4.3 s with saxes and
 * exceljs' event objects, 1.9 s with this scanner; see docs/xlsx.md.)
 *
 * What it reads is what a conforming XML parser gives an application: the five predefined
 * entities and character references, CDATA sections as literal text, comments and
 * processing instructions skipped, `\r\n`/`\r` → `\n`, attribute values normalised, `>`
 * inside quoted attributes, prefixes bound by the root element to the SpreadsheetML main
 * namespace stripped. It refuses a DOCTYPE, an unknown entity, a bare `&`, an unquoted
 * attribute, text outside the root, a close tag that does not match, a part that ends
 * inside markup or with an element open. It is not a validating parser.
 *
 * Bounds (a hostile part can only make it fail, never grow without limit):
 * - one value (cell text, formula, shared string) keeps at most `maxChars` characters; the
 *   rest is counted, not kept (the reader then treats the value as truncated);
 * - one markup token (tag, comment, CDATA section) may not pass MAX_MARKUP_CHARS;
 * - a cell past column XFD (16,384) or a row past 1,048,576 is an error: the limits of a
 *   sheet, checked before any array is sized by a number read from the file.
 */

export const MAX_COLUMNS = 16_384; // XFD
export const MAX_ROWS = 1_048_576;
/** Longest tag/comment/CDATA section accepted (characters). */
export const MAX_MARKUP_CHARS = 1024 * 1024;
/** Default cap of one cell or shared string: Excel's own limit of a cell (characters). */
export const DEFAULT_MAX_CELL_CHARS = 32_767;

const MAIN_NAMESPACES = [
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  'http://purl.oclc.org/ooxml/spreadsheetml/main',
];

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const ENTITY_RE = /&([^;&<>\s]*);?/g;

function decodeEntity(whole: string, name: string): string {
  if (!whole.endsWith(';')) throw new Error(`XML: '&' sem ';' (${whole.slice(0, 40)})`);
  if (name.charCodeAt(0) === 35 /* # */) {
    const code = name.charCodeAt(1) === 120 /* x */ ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (!(code >= 0 && code <= 0x10ffff) || Number.isNaN(code)) throw new Error(`XML: referência de caractere inválida &${name.slice(0, 20)};`);
    return String.fromCodePoint(code);
  }
  const v = ENTITIES[name];
  if (v === undefined) throw new Error(`XML: entidade desconhecida &${name.slice(0, 20)};`);
  return v;
}

/** Character data as XML gives it to an application: line ends normalised, references decoded. */
export function textOf(raw: string): string {
  let s = raw;
  if (s.indexOf('\r') !== -1) s = s.replace(/\r\n?/g, '\n');
  if (s.indexOf('&') !== -1) s = s.replace(ENTITY_RE, decodeEntity);
  return s;
}

/** Attribute value normalisation (XML 1.0 §3.3.3) for CDATA attributes; '<' is refused. */
function attrOf(raw: string): string {
  let plain = true;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charCodeAt(i);
    if (ch === 38 /* & */ || ch === 60 /* < */ || ch < 32) {
      plain = false;
      break;
    }
  }
  if (plain) return raw;
  if (raw.indexOf('<') !== -1) throw new Error(`XML: '<' num atributo ('${raw.slice(0, 40)}')`);
  let s = raw;
  if (/[\t\n\r]/.test(s)) s = s.replace(/\r\n|[\t\n\r]/g, ' ');
  if (s.indexOf('&') !== -1) s = s.replace(ENTITY_RE, decodeEntity);
  return s;
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 10 || ch === 13 || ch === 9;
}

/** The column letters of a reference (`AB12` → 28), 0 when it has none, MAX_COLUMNS + 1 when past XFD. */
export function columnOf(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const ch = ref.charCodeAt(i);
    if (ch >= 65 && ch <= 90) col = col * 26 + (ch - 64);
    else if (ch >= 97 && ch <= 122) col = col * 26 + (ch - 96);
    else break;
    if (col > MAX_COLUMNS) return MAX_COLUMNS + 1; // never a number the file chose
  }
  return col;
}

/** `LPFILT1` → 'LPFILT1'; long references are cut for messages. */
function showRef(ref: string): string {
  return ref.length > 24 ? `${ref.slice(0, 21)}...` : ref;
}

/** Appends `piece` to `kept` without passing `cap` characters (a surrogate pair is never split). */
function capped(kept: string, piece: string, cap: number): string {
  if (kept.length + piece.length <= cap) return kept + piece;
  let end = cap - kept.length;
  if (end <= 0) return kept;
  const last = piece.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return kept + piece.slice(0, end);
}

class Incomplete extends Error {}
const INCOMPLETE = new Incomplete('incomplete');

/**
 * The XML tokenizer both scanners share. Subclasses get open/close of every element (local
 * name, prefix stripped) and the character data of the value being captured.
 */
abstract class XmlScanner {
  private rest = '';
  private readonly stack: string[] = [];
  protected prefixes: string[] | null = null;
  private root = true;
  /** Text is captured (into the value being read) only while this is true. */
  protected capturing = false;
  /** The captured value: at most maxChars characters … */
  protected kept = '';
  /** … of this many (larger when it was cut). */
  protected chars = 0;
  /** r, s and t of the element being opened (only when wantsAttrs(name)). */
  protected aR: string | undefined = undefined;
  protected aS: string | undefined = undefined;
  protected aT: string | undefined = undefined;

  constructor(protected readonly maxChars: number) {}

  protected abstract open(name: string): void;
  protected abstract close(name: string): void;
  /** Whether r/s/t attributes of this element are read (into aR/aS/aT). */
  protected abstract wantsAttrs(name: string): boolean;
  /** A one-step read of the element just opened (sheet cells), or -1 for the general path. */
  protected fastPath(_s: string, _i: number, _name: string): number { return -1; }
  /**
   * A one-step read of the whole element starting at s[lt] === '<' (sheet cells, tag and
   * value), or -1 for the general path; it must change nothing when it answers -1.
   */
  protected fastMarkup(_s: string, _lt: number): number { return -1; }

  protected localName(name: string): string {
    const prefixes = this.prefixes;
    if (prefixes) {
      for (let i = 0; i < prefixes.length; i++) {
        if (name.startsWith(prefixes[i]!)) return name.slice(prefixes[i]!.length);
      }
    }
    return name;
  }

  protected capture(piece: string): void {
    this.chars += piece.length;
    if (this.kept.length < this.maxChars) this.kept = capped(this.kept, piece, this.maxChars);
  }

  /** Feeds decoded text. */
  write(chunk: string): void {
    const s = this.rest.length ? this.rest + chunk : chunk;
    let pos = 0;
    const n = s.length;
    for (;;) {
      const lt = s.indexOf('<', pos);
      if (lt === -1) {
        // Text that goes on in the next chunk: hand over what is complete now (a long value
        // is never held whole), keeping back a reference without its ';' and a lone '\r'.
        let keep = n;
        const amp = s.lastIndexOf('&');
        if (amp >= pos && s.indexOf(';', amp) === -1) keep = amp;
        if (keep > pos && s.charCodeAt(keep - 1) === 13) keep -= 1;
        if (n - keep > 64) throw new Error(`XML: referência sem ';' (${s.slice(keep, keep + 20)})`);
        if (keep > pos) this.text(s, pos, keep);
        pos = keep;
        break;
      }
      if (lt > pos) this.text(s, pos, lt);
      const fast = this.fastMarkup(s, lt);
      if (fast >= 0) {
        pos = fast;
        continue;
      }
      try {
        pos = this.markup(s, lt);
      } catch (err) {
        if (err !== INCOMPLETE) throw err;
        if (n - lt > MAX_MARKUP_CHARS) throw new Error(`XML: marcação com mais de ${MAX_MARKUP_CHARS} caracteres`);
        pos = lt;
        break;
      }
    }
    this.rest = pos < n ? s.slice(pos) : '';
  }

  end(): void {
    if (this.rest.trim().length > 0) throw new Error('XML: a parte terminou no meio de uma marcação');
    if (this.stack.length > 0) throw new Error(`XML: elemento <${this.stack[this.stack.length - 1]}> não fechado`);
    if (this.root) throw new Error('XML: parte vazia');
  }

  /** Character data between pos and end. */
  private text(s: string, pos: number, end: number): void {
    if (this.capturing) {
      this.capture(textOf(s.slice(pos, end)));
    } else if (this.stack.length === 0) {
      for (let i = pos; i < end; i++) {
        if (!isSpace(s.charCodeAt(i))) throw new Error('XML: texto fora do elemento raiz');
      }
    }
  }

  /** Parses the markup at s[lt] === '<'; returns the position after it or throws INCOMPLETE. */
  private markup(s: string, lt: number): number {
    const n = s.length;
    if (lt + 1 >= n) throw INCOMPLETE;
    const ch = s.charCodeAt(lt + 1);
    if (ch === 47 /* / */) {
      const gt = s.indexOf('>', lt + 2);
      if (gt === -1) throw INCOMPLETE;
      let e = gt;
      while (e > lt + 2 && isSpace(s.charCodeAt(e - 1))) e--;
      const name = s.slice(lt + 2, e);
      const open = this.stack.pop();
      if (open !== name) throw new Error(`XML: </${name.slice(0, 40)}> não fecha <${open === undefined ? '' : open}>`);
      this.close(this.localName(name));
      return gt + 1;
    }
    if (ch === 33 /* ! */) {
      if (s.startsWith('<!--', lt)) {
        const e = s.indexOf('-->', lt + 4);
        if (e === -1) throw INCOMPLETE;
        return e + 3;
      }
      if (n - lt < 9) throw INCOMPLETE;
      if (s.startsWith('<![CDATA[', lt)) {
        const e = s.indexOf(']]>', lt + 9);
        if (e === -1) throw INCOMPLETE;
        if (this.capturing) {
          let raw = s.slice(lt + 9, e);
          if (raw.indexOf('\r') !== -1) raw = raw.replace(/\r\n?/g, '\n');
          this.capture(raw);
        }
        return e + 3;
      }
      if (s.startsWith('<!DOCTYPE', lt)) throw new Error('XML: DOCTYPE não é aceito numa planilha');
      throw new Error('XML: marcação inválida');
    }
    if (ch === 63 /* ? */) {
      const e = s.indexOf('?>', lt + 2);
      if (e === -1) throw INCOMPLETE;
      return e + 2;
    }
    // start tag: name, attributes, '>' or '/>'
    let i = lt + 1;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isSpace(c) || c === 62 /* > */ || c === 47 /* / */) break;
      i++;
    }
    if (i >= n) throw INCOMPLETE;
    const qname = s.slice(lt + 1, i);
    if (qname.length === 0) throw new Error('XML: marcação sem nome');
    const root = this.root;
    const name = root ? qname : this.localName(qname);
    // attributes read: every one of the root (namespaces), r/s/t of the elements asked for
    const wanted = !root && this.wantsAttrs(name);
    let attrs: Record<string, string> | null = null;
    if (wanted) {
      this.aR = undefined;
      this.aS = undefined;
      this.aT = undefined;
    }
    for (;;) {
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) throw INCOMPLETE;
      const c = s.charCodeAt(i);
      if (c === 62 /* > */) {
        i++;
        if (root) this.openRoot(attrs);
        else this.open(name);
        const fast = root ? -1 : this.fastPath(s, i, name);
        if (fast >= 0) return fast;
        this.stack.push(qname);
        return i;
      }
      if (c === 47 /* / */) {
        if (i + 1 >= n) throw INCOMPLETE;
        if (s.charCodeAt(i + 1) !== 62) throw new Error(`XML: '/' inesperado em <${qname}>`);
        if (root) this.openRoot(attrs);
        else {
          this.open(name);
          this.close(name);
        }
        return i + 2;
      }
      const eq = s.indexOf('=', i);
      if (eq === -1) throw INCOMPLETE;
      let ne = eq;
      while (ne > i && isSpace(s.charCodeAt(ne - 1))) ne--;
      let q = eq + 1;
      while (q < n && isSpace(s.charCodeAt(q))) q++;
      if (q >= n) throw INCOMPLETE;
      const quote = s.charCodeAt(q);
      if (quote !== 34 && quote !== 39) throw new Error(`XML: atributo sem aspas em <${qname}>`);
      const ve = s.indexOf(quote === 34 ? '"' : "'", q + 1);
      if (ve === -1) throw INCOMPLETE;
      if (wanted) {
        if (ne - i === 1) {
          const an = s.charCodeAt(i);
          if (an === 114 /* r */) this.aR = attrOf(s.slice(q + 1, ve));
          else if (an === 115 /* s */) this.aS = attrOf(s.slice(q + 1, ve));
          else if (an === 116 /* t */) this.aT = attrOf(s.slice(q + 1, ve));
        }
      } else if (root) {
        (attrs ??= {})[s.slice(i, ne)] = attrOf(s.slice(q + 1, ve));
      }
      i = ve + 1;
      if (i < n) {
        const after = s.charCodeAt(i);
        if (!isSpace(after) && after !== 62 && after !== 47) throw new Error(`XML: atributos sem espaço em <${qname}>`);
      }
    }
  }

  private openRoot(attrs: Record<string, string> | null): void {
    this.root = false;
    if (!attrs) return;
    for (const key in attrs) {
      if (key.startsWith('xmlns:') && MAIN_NAMESPACES.includes(attrs[key]!)) {
        (this.prefixes ??= []).push(`${key.slice(6)}:`);
      }
    }
  }
}

/** A row of a sheet: its 1-based number and the cell values by column (values[0] = column A). */
export interface ScannedRow { number: number; values: unknown[] }

/**
 * Turns one cell into its value (undefined = empty). `t` and `s` are the cell's attributes,
 * `v` the text of `<v>` (or of the inline string), `f` the formula, null when absent;
 * `vChars` is the length `v` had before it was cut to maxChars (equal when not cut).
 */
export type CellDecoder = (t: string | undefined, s: number, v: string | null, f: string | null, vChars: number) => unknown;

const V = 1;
const F = 2;

/** Scans one worksheet part; rows come out of write() as they complete. */
export class SheetScanner extends XmlScanner {
  private out: ScannedRow[] = [];
  private inRows = false;
  private row: ScannedRow | null = null;
  private lastRow = 0;
  private lastCol = 0;
  // the cell being read
  private inCell = false;
  private col = 0;
  private cS = 0;
  private cT: string | undefined = undefined;
  private v: string | null = null;
  private vChars = 0;
  private f: string | null = null;
  /** What the captured text is: V (value / inline string) or F (formula). */
  private target = 0;
  private inInline = false;
  private inPhonetic = false;

  constructor(private readonly decode: CellDecoder, maxChars = DEFAULT_MAX_CELL_CHARS) {
    super(maxChars);
  }

  /** Feeds decoded text; returns the rows completed by it. */
  scan(chunk: string): ScannedRow[] {
    this.write(chunk);
    const out = this.out;
    this.out = [];
    return out;
  }

  protected wantsAttrs(name: string): boolean {
    return name === 'c' || name === 'row';
  }

  private startCapture(target: number, fresh: boolean): void {
    if (fresh || this.target !== target) {
      this.kept = '';
      this.chars = 0;
    }
    this.target = target;
    this.capturing = true;
  }

  /** Ends the capture: the text goes to v or f. */
  private endCapture(): void {
    if (!this.capturing) return;
    this.capturing = false;
    if (this.target === V) {
      this.v = this.kept;
      this.vChars = this.chars;
    } else if (this.target === F) {
      this.f = this.kept;
    }
  }

  /**
   * The common cell read in one step, tag and value: `<c r="B7" s="3" t="s"><v>12</v></c>` or
   * `<c r="B7" s="3"/>`, attributes r, s and t only (any order, one space before each, double
   * quotes; r letters then digits, s all digits, t without a reference or control character).
   * Anything else — another
   * attribute, a formula, an inline string, other spacing, a value over maxChars, a part that
   * ends inside the cell, a column past XFD — goes the general way (markup, open, fastPath,
   * close), which gives the same result; nothing is changed before the cell is known whole.
   */
  protected override fastMarkup(s: string, lt: number): number {
    if (this.row === null || this.inCell || this.prefixes !== null || s.charCodeAt(lt + 1) !== 99 /* c */) return -1;
    const n = s.length;
    let i = lt + 2;
    let col = 0;
    let hasR = false;
    let hasS = false;
    let style = 0;
    let t: string | undefined;
    let empty = false;
    for (;;) {
      if (i >= n) return -1;
      const c = s.charCodeAt(i);
      if (c === 62 /* > */) {
        i += 1;
        break;
      }
      if (c === 47 /* / */) {
        if (s.charCodeAt(i + 1) !== 62) return -1;
        i += 2;
        empty = true;
        break;
      }
      if (c !== 32 || s.charCodeAt(i + 2) !== 61 /* = */ || s.charCodeAt(i + 3) !== 34 /* " */) return -1;
      const an = s.charCodeAt(i + 1);
      let j = i + 4;
      if (an === 114 /* r */ && !hasR) {
        // column letters, then the row's digits (what a writer puts there); anything else, the general way
        hasR = true;
        let ch = j < n ? s.charCodeAt(j) : -1;
        while ((ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122)) {
          col = col * 26 + (ch <= 90 ? ch - 64 : ch - 96);
          if (col > MAX_COLUMNS) return -1;
          ch = ++j < n ? s.charCodeAt(j) : -1;
        }
        while (ch >= 48 && ch <= 57) ch = ++j < n ? s.charCodeAt(j) : -1;
        if (ch !== 34) return -1;
      } else if (an === 115 /* s */ && !hasS) {
        hasS = true;
        for (let digits = 0; ; j++, digits++) {
          if (j >= n || digits > 9) return -1;
          const ch = s.charCodeAt(j);
          if (ch === 34) break;
          if (ch < 48 || ch > 57) return -1;
          style = style * 10 + (ch - 48);
        }
      } else if (an === 116 /* t */ && t === undefined) {
        const ve = s.indexOf('"', j);
        if (ve === -1) return -1;
        for (let k = j; k < ve; k++) {
          const ch = s.charCodeAt(k);
          if (ch === 38 || ch === 60 || ch < 32) return -1;
        }
        t = s.slice(j, ve);
        j = ve;
      } else {
        return -1;
      }
      i = j + 1;
    }
    let v: string | null = null;
    let end = i;
    if (!empty) {
      end = this.plainValue(s, i);
      if (end < 0) return -1;
      v = this.plainText;
    }
    if (col === 0) {
      col = this.lastCol + 1;
      if (col > MAX_COLUMNS) return -1;
    }
    this.startCell(col, style, t);
    if (v !== null) {
      this.v = v;
      this.vChars = v.length;
    }
    this.closeCell();
    return end;
  }

  /** The text plainValue read last (set only when it answers a position). */
  private plainText = '';

  /**
   * `<v>text</v></c>` at s[i], the end of a cell holding a plain value: its text (references
   * decoded, line ends normalised) into plainText and the position after it; -1 when the cell
   * goes on otherwise, ends in the next chunk or holds more than maxChars (the general path
   * cuts it). Changes nothing else.
   */
  private plainValue(s: string, i: number): number {
    if (!s.startsWith('<v>', i)) return -1;
    const e = s.indexOf('<', i + 3);
    if (e === -1 || !s.startsWith('</v></c>', e)) return -1;
    const text = textOf(s.slice(i + 3, e));
    if (text.length > this.maxChars) return -1;
    this.plainText = text;
    return e + 8;
  }

  /** A cell begins at column `col` with style `style` and type `t`, no value yet. */
  private startCell(col: number, style: number, t: string | undefined): void {
    this.lastCol = col;
    this.inCell = true;
    this.col = col;
    this.cS = style;
    this.cT = t;
    this.v = null;
    this.vChars = 0;
    this.f = null;
    this.target = 0;
  }

  protected override fastPath(s: string, i: number, name: string): number {
    // a cell whose tag the general way read (another attribute, other spacing): its plain
    // value `<v>text</v></c>` in one step instead of four (same result)
    if (name !== 'c' || !this.inCell || this.prefixes !== null) return -1;
    const end = this.plainValue(s, i);
    if (end < 0) return -1;
    this.v = this.plainText;
    this.vChars = this.plainText.length;
    this.closeCell();
    return end;
  }

  protected open(name: string): void {
    switch (name) {
      case 'sheetData':
        this.inRows = true;
        break;
      case 'row': {
        if (!this.inRows) break;
        let r: number;
        if (this.aR !== undefined) {
          r = /^\d{1,7}$/.test(this.aR) ? Number(this.aR) : NaN;
          if (!(r >= 1 && r <= MAX_ROWS)) throw new Error(`linha '${showRef(this.aR)}' fora dos limites da planilha (1 a ${MAX_ROWS.toLocaleString('pt-BR')})`);
        } else {
          r = this.lastRow + 1;
          if (r > MAX_ROWS) throw new Error(`linha ${r} fora dos limites da planilha (a última é ${MAX_ROWS.toLocaleString('pt-BR')})`);
        }
        this.lastRow = r;
        this.lastCol = 0;
        this.row = { number: r, values: [] };
        break;
      }
      case 'c':
        if (this.row) {
          const ref = this.aR;
          let col = ref ? columnOf(ref) : 0;
          if (col === 0) col = this.lastCol + 1;
          if (col > MAX_COLUMNS) {
            throw new Error(`célula ${ref ? `'${showRef(ref)}'` : `na coluna ${col}`} fora dos limites da planilha (a última coluna é XFD, a ${MAX_COLUMNS.toLocaleString('pt-BR')}ª)`);
          }
          this.startCell(col, this.aS ? parseInt(this.aS, 10) : 0, this.aT);
        }
        break;
      case 'f':
        if (this.inCell) this.startCapture(F, true);
        break;
      case 'v':
        if (this.inCell) this.startCapture(V, true);
        break;
      case 'is':
        if (this.inCell) {
          this.inInline = true;
          this.v = '';
          this.vChars = 0;
          this.kept = '';
          this.chars = 0;
          this.target = V;
          this.capturing = false;
        }
        break;
      case 'rPh':
        this.inPhonetic = true;
        this.endCapture();
        break;
      case 't':
        if (this.inCell) {
          if (!this.inInline) this.startCapture(V, true);
          else if (!this.inPhonetic) this.startCapture(V, false); // runs of inline rich text add up
        }
        break;
      default:
        break;
    }
  }

  protected close(name: string): void {
    switch (name) {
      case 'sheetData':
        this.inRows = false;
        break;
      case 'is':
        this.endCapture();
        this.inInline = false;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 't':
      case 'v':
      case 'f':
        this.endCapture();
        break;
      case 'c':
        if (this.row && this.inCell) {
          this.endCapture();
          this.closeCell();
        }
        break;
      case 'row':
        if (this.row) {
          this.out.push(this.row);
          this.row = null;
        }
        break;
      default:
        break;
    }
  }

  private closeCell(): void {
    const value = this.decode(this.cT, this.cS, this.v, this.f, this.vChars);
    if (value !== undefined) this.row!.values[this.col - 1] = value;
    this.inCell = false;
    this.capturing = false;
    this.target = 0;
  }
}

/** One shared string: its text (at most maxChars) and how long it really was. */
export type StringSink = (text: string, chars: number) => void;

/**
 * Scans the shared strings part: each `<si>` (`<sstItem>` in Excel 2007 beta files) gives one string, the text of its `<t>`
 * elements (plain or rich-text runs joined; phonetic runs `<rPh>` left out).
 */
export class SharedStringsScanner extends XmlScanner {
  private inSi = false;
  private inPhonetic = false;

  constructor(private readonly sink: StringSink, maxChars = DEFAULT_MAX_CELL_CHARS) {
    super(maxChars);
  }

  protected wantsAttrs(): boolean { return false; }

  protected open(name: string): void {
    switch (name) {
      case 'si':
      case 'sstItem': // Excel 2007 beta's name for it
        this.inSi = true;
        this.kept = '';
        this.chars = 0;
        break;
      case 'rPh':
        this.inPhonetic = true;
        this.capturing = false;
        break;
      case 't':
        if (this.inSi && !this.inPhonetic) this.capturing = true;
        break;
      default:
        break;
    }
  }

  protected close(name: string): void {
    switch (name) {
      case 't':
        this.capturing = false;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 'si':
      case 'sstItem':
        if (this.inSi) {
          this.capturing = false;
          this.inSi = false;
          this.sink(this.kept, this.chars);
        }
        break;
      default:
        break;
    }
  }
}
