/**
 * The rows of one `<table:table>` of an `.ods` content.xml, read by a hand-written scanner
 * (in the spirit of scanner.ts) instead of an event per tag from saxes: the decoded text is
 * walked once with `indexOf`/`charCodeAt`, the tags that matter are told apart by their
 * qualified name (the prefixes content.xml's root declares), and a row is built as
 * `{ number, values[] }` directly. Text is handed over as it comes, so a tag or a run of text
 * split across chunks (at any character) reads the same as whole.
 *
 * It gives what the saxes reader gave (test/xlsx/ods-scanner.test.ts compares both on odd
 * content cut at every character), and refuses what saxes refused, in the same staff words
 * (xml-motivo.ts): an entity other than the five of XML, a malformed entity or character
 * reference, a character XML does not allow, an unquoted attribute, a `<` in an attribute, a
 * close tag that does not match, a DOCTYPE; and as before a run of markup or text over
 * MAX_MARKUP_CHARS, a cell past XFD, a row past 1,048,576, more than ODS_MAX_REPEATED_CELLS
 * made by repeating. Three things differ on purpose: a CDATA section is text (saxes' reader
 * dropped it); an empty self-closing `<table:table …/>` is an empty tab (saxes' reader then
 * read on into the next tab and failed); an `&` with no `;` before the next `<` is refused
 * there as a malformed reference (saxes read a name on to the next `;` anywhere after it, and
 * the reason depended on what followed: often "content.xml termina antes do fim da aba").
 *
 * Memory: what is kept between chunks is at most one unfinished tag or entity (bounded by
 * MAX_MARKUP_CHARS), a cell's text (bounded by maxCellChars) and the rows not yet taken.
 */
import { TruncatedText, timeOfDay } from './cells.js';
import { MAX_COLUMNS, MAX_MARKUP_CHARS, MAX_ROWS } from './scanner.js';
import { MOTIVO_XML } from './xml-motivo.js';

/** Most cells made by repeating a non-empty cell or row (`number-*-repeated`), per pass. */
export const ODS_MAX_REPEATED_CELLS = 10_000_000;

/** The prefixes content.xml's root binds to the namespaces read. */
export interface OdsPrefixes { table: string; office: string; text: string; calcext: string }

/** A row read: its number, its values by column (sparse), and how many times it repeats. */
export interface OdsRow { number: number; values: unknown[]; repeat: number }

// element kinds
const OTHER = 0, TABLE = 1, ROW = 2, CELL = 3, COVERED = 4, P = 5, S = 6, TAB = 7, BREAK = 8, ANNOTATION = 9;

/** Characters XML 1.0 does not allow (U+FFFD stands for what TextDecoder could not decode). */
const BAD_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// the XML Name production (what saxes' isName accepts), surrogate pairs allowed
const NAME = /^[:A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\uD800-\uDBFF][:A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\uD800-\uDFFF.0-9\u00B7\u0300-\u036F\u203F\u2040-]*$/;

function xmlError(motivo: string): Error {
  return new Error(`XML: ${motivo}`);
}

function isXmlChar(c: number): boolean {
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/** One reference (`name` between `&` and `;`) as saxes resolves it. */
function entity(name: string): string {
  if (name.charCodeAt(0) !== 35 /* # */) {
    const v = ENTITIES[name];
    if (v !== undefined) return v;
    throw xmlError(name !== '' && NAME.test(name) ? MOTIVO_XML.entidade : MOTIVO_XML.nomeEntidade);
  }
  let code = NaN;
  if (name.charCodeAt(1) === 120 /* x */ && /^#x[0-9a-f]+$/i.test(name)) code = parseInt(name.slice(2), 16);
  else if (/^#[0-9]+$/.test(name)) code = parseInt(name.slice(1), 10);
  if (!isXmlChar(code)) throw xmlError(MOTIVO_XML.caractereRef);
  return String.fromCodePoint(code);
}

/** References of a complete run (text or attribute value) resolved; an `&` without `;` is refused. */
function references(t: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const amp = t.indexOf('&', from);
    if (amp < 0) return from === 0 ? t : out + t.slice(from);
    const semi = t.indexOf(';', amp + 1);
    // saxes reads a name up to the next ';', past a '<' or a quote: a name with those is refused
    if (semi < 0) throw xmlError(MOTIVO_XML.nomeEntidade);
    out += t.slice(from, amp) + entity(t.slice(amp + 1, semi));
    from = semi + 1;
  }
}

/** Character data as saxes gives it: `\r\n`/`\r` → `\n`, then references resolved. */
function textOf(t: string): string {
  if (t.indexOf('\r') >= 0) t = t.replace(/\r\n?/g, '\n');
  return t.indexOf('&') >= 0 ? references(t) : t;
}

/** An attribute value as saxes gives it: a literal tab/line end is a space, references resolved. */
function attrOf(t: string): string {
  if (t.indexOf('<') >= 0) throw xmlError(MOTIVO_XML.caractere);
  if (/[\t\n\r]/.test(t)) t = t.replace(/\r\n|[\t\n\r]/g, ' ');
  return t.indexOf('&') >= 0 ? references(t) : t;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** `PT12H30M15S` (ISO 8601 duration of a time cell) → fraction of a day. */
function durationDays(v: string): number {
  const m = /^(-)?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(v.trim());
  if (!m) return NaN;
  const days = Number(m[2] ?? 0) + Number(m[3] ?? 0) / 24 + Number(m[4] ?? 0) / 1440 + Number(m[5] ?? 0) / 86_400;
  return m[1] ? -days : days;
}

function isoDate(v: string): Date {
  const t = v.trim();
  if (/^-?\d{4,}-\d{2}-\d{2}$/.test(t)) return new Date(`${t}T00:00:00Z`);
  if (/([zZ]|[+-]\d{2}:?\d{2})$/.test(t)) return new Date(t);
  return new Date(`${t}Z`);
}

function count(v: string | undefined, max: number): number {
  if (v === undefined) return 1;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : 1;
}

/**
 * Reads one table from its start tag on: `write` decoded text (from the table's `<` at the
 * first call) until `done`; take the rows from `rows` between writes.
 */
export class OdsTableScanner {
  /** The table's end tag was read: nothing after it is looked at. */
  done = false;
  /** Rows read and not yet taken (the caller empties it). */
  readonly rows: OdsRow[] = [];

  private rest = '';
  private run = 0; // characters since the last '<', across chunks
  private readonly stack: string[] = [];
  private readonly kinds: number[] = [];
  private readonly kindOf: Map<string, number>;
  private readonly hotNames: string[];
  private readonly hotKinds: number[];
  // qualified attribute names
  private readonly aRowsRep: string;
  private readonly aColsRep: string;
  private readonly aType: string;
  private readonly aCalcType: string;
  private readonly aValue: string;
  private readonly aDate: string;
  private readonly aTime: string;
  private readonly aBool: string;
  private readonly aString: string;
  private readonly aC: string;

  // table state (as the saxes reader kept it)
  private depth = 0;
  private rowNumber = 1;
  private rowRepeat = 1;
  private values: unknown[] = [];
  private rowHasValue = false;
  private col = 0;
  private inCell = false;
  private cellRepeat = 1;
  private paragraphs = 0;
  private inP = 0;
  private inAnnotation = 0;
  private text = '';
  private textChars = 0;
  private repeated = 0;
  // attributes of the element being read (cells, rows, text:s)
  private vType: string | undefined;
  private vCalcType: string | undefined;
  private vValue: string | undefined;
  private vDate: string | undefined;
  private vTime: string | undefined;
  private vBool: string | undefined;
  private vString: string | undefined;
  private vColsRep: string | undefined;
  private vRowsRep: string | undefined;
  private vC: string | undefined;
  // the next '&' at or after a position of the text being scanned (-1: not looked yet)
  private ampAt = -1;

  constructor(p: OdsPrefixes, private readonly max: number, private readonly date1904: boolean) {
    const T = `${p.table}:`, O = `${p.office}:`, X = `${p.text}:`;
    this.kindOf = new Map([
      [`${T}table`, TABLE], [`${T}table-row`, ROW], [`${T}table-cell`, CELL], [`${T}covered-table-cell`, COVERED],
      [`${X}p`, P], [`${X}s`, S], [`${X}tab`, TAB], [`${X}line-break`, BREAK], [`${O}annotation`, ANNOTATION],
    ]);
    this.hotNames = [`${T}table-cell`, `${X}p`, `${T}table-row`];
    this.hotKinds = [CELL, P, ROW];
    this.aRowsRep = `${T}number-rows-repeated`;
    this.aColsRep = `${T}number-columns-repeated`;
    this.aType = `${O}value-type`;
    this.aCalcType = `${p.calcext}:value-type`;
    this.aValue = `${O}value`;
    this.aDate = `${O}date-value`;
    this.aTime = `${O}time-value`;
    this.aBool = `${O}boolean-value`;
    this.aString = `${O}string-value`;
    this.aC = `${X}c`;
  }

  /** Feeds the next piece of decoded text. */
  write(chunk: string): void {
    if (this.done) return;
    // one run of markup or text over MAX_MARKUP_CHARS is refused before it is buffered
    const first = chunk.indexOf('<');
    this.run += first < 0 ? chunk.length : first;
    if (this.run > MAX_MARKUP_CHARS) throw new Error(`XML: marcação ou texto com mais de ${MAX_MARKUP_CHARS} caracteres`);
    if (first >= 0) this.run = chunk.length - chunk.lastIndexOf('<') - 1;
    let s = this.rest.length ? this.rest + chunk : chunk;
    const bad = BAD_CHAR.exec(chunk);
    if (bad) s = s.slice(0, this.rest.length + bad.index); // read up to it: an error before it is the one reported
    this.scan(s);
    if (bad && !this.done) throw xmlError(MOTIVO_XML.caractere);
  }

  private scan(s: string): void {
    const n = s.length;
    let pos = 0;
    this.ampAt = -1;
    while (pos < n) {
      const lt = s.indexOf('<', pos);
      if (lt < 0) {
        // text going on in the next chunk: hand over what is complete (a reference without
        // its ';' and a lone '\r' wait for the rest)
        let keep = n;
        const amp = s.lastIndexOf('&');
        if (amp >= pos && s.indexOf(';', amp) < 0) keep = amp;
        if (keep > pos && s.charCodeAt(keep - 1) === 13) keep--;
        if (keep > pos) this.chars(s, pos, keep);
        pos = keep;
        break;
      }
      if (lt > pos) this.chars(s, pos, lt);
      const next = this.markup(s, lt);
      if (next < 0) { pos = lt; break; }
      pos = next;
      if (this.done) { pos = n; break; }
    }
    this.rest = pos < n ? s.slice(pos) : '';
  }

  /** Character data s[a, b). */
  private chars(s: string, a: number, b: number): void {
    if (this.inP > 0 && this.inAnnotation === 0 && this.depth === 1) {
      this.addText(textOf(s.slice(a, b)));
      return;
    }
    // not kept, but its references must still be sound
    if (this.nextAmp(s, a) < b) references(s.slice(a, b));
  }

  private addText(t: string): void {
    this.textChars += t.length;
    const room = this.max - this.text.length;
    if (room > 0) this.text += t.length > room ? t.slice(0, room) : t;
  }

  /** The markup at s[lt] === '<': the position after it, or -1 when it goes on in the next chunk. */
  private markup(s: string, lt: number): number {
    const n = s.length;
    if (lt + 1 >= n) return -1;
    const c1 = s.charCodeAt(lt + 1);
    if (c1 === 47 /* / */) return this.closeTag(s, lt);
    if (c1 === 33 /* ! */) {
      if (n - lt < 9) return -1;
      if (s.startsWith('<!--', lt)) {
        const e = s.indexOf('-->', lt + 4);
        return e < 0 ? -1 : e + 3;
      }
      if (s.startsWith('<![CDATA[', lt)) {
        const e = s.indexOf(']]>', lt + 9);
        if (e < 0) return -1;
        if (this.inP > 0 && this.inAnnotation === 0 && this.depth === 1) {
          let raw = s.slice(lt + 9, e);
          if (raw.indexOf('\r') >= 0) raw = raw.replace(/\r\n?/g, '\n');
          this.addText(raw);
        }
        return e + 3;
      }
      if (s.startsWith('<!DOCTYPE', lt)) throw new Error('XML: DOCTYPE não é aceito');
      throw xmlError(MOTIVO_XML.malformado);
    }
    if (c1 === 63 /* ? */) {
      const e = s.indexOf('?>', lt + 2);
      return e < 0 ? -1 : e + 2;
    }
    // a start tag: its name (the frequent ones without a slice or a lookup), then its attributes
    let i = lt + 1;
    let name: string;
    let kind: number;
    const hot = this.hot(s, i);
    if (hot >= 0) {
      name = this.hotNames[hot]!;
      kind = this.hotKinds[hot]!;
      i += name.length;
    } else {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c === 62 /* > */ || c === 47 /* / */ || isSpace(c)) break;
      }
      if (i >= n) return -1;
      name = s.slice(lt + 1, i);
      if (name.length === 0) throw xmlError(MOTIVO_XML.malformado);
      kind = this.kindOf.get(name) ?? OTHER;
    }
    // attributes are read for rows, cells and text:s of our table; the others' are only checked
    const read = this.depth === 1 && kind !== OTHER && kind !== TABLE;
    if (read) {
      if (kind === CELL || kind === COVERED) this.vType = this.vCalcType = this.vValue = this.vDate = this.vTime = this.vBool = this.vString = this.vColsRep = undefined;
      else if (kind === ROW) this.vRowsRep = undefined;
      else if (kind === S) this.vC = undefined;
    }
    let selfClosing = false;
    for (;;) {
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return -1;
      const c = s.charCodeAt(i);
      if (c === 62 /* > */) { i++; break; }
      if (c === 47 /* / */) {
        if (i + 1 >= n) return -1;
        if (s.charCodeAt(i + 1) !== 62) throw xmlError(MOTIVO_XML.malformado);
        i += 2;
        selfClosing = true;
        break;
      }
      const a = i;
      for (; i < n; i++) {
        const ch = s.charCodeAt(i);
        if (ch === 61 /* = */ || ch === 62 || ch === 47 || isSpace(ch)) break;
      }
      const ae = i;
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return -1;
      if (s.charCodeAt(i) !== 61 || ae === a) throw xmlError(MOTIVO_XML.malformado);
      i++;
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return -1;
      const q = s.charCodeAt(i);
      if (q !== 34 && q !== 39) throw xmlError(MOTIVO_XML.atributoSemAspas);
      const ve = s.indexOf(q === 34 ? '"' : "'", i + 1);
      if (ve < 0) return -1;
      if (!read || !this.attribute(kind, s.slice(a, ae), s, i + 1, ve)) {
        // a value not read: a '<' or a reference in it is still refused as saxes refused it
        const lt2 = s.indexOf('<', i + 1);
        if ((lt2 >= 0 && lt2 < ve) || this.nextAmp(s, i + 1) < ve) attrOf(s.slice(i + 1, ve));
      }
      i = ve + 1;
    }
    this.open(kind);
    if (selfClosing) this.close(kind);
    else {
      this.stack.push(name);
      this.kinds.push(kind);
    }
    return i;
  }

  /** Which of hotNames starts at s[i], followed by a space, '>' or '/' (-1: none, or not known yet). */
  private hot(s: string, i: number): number {
    const names = this.hotNames;
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      if (s.startsWith(name, i)) {
        const c = s.charCodeAt(i + name.length);
        if (c === 62 || c === 47 || isSpace(c)) return k;
      }
    }
    return -1;
  }

  /** The next '&' at or after `from` in s (s.length: none), remembered while s is scanned. */
  private nextAmp(s: string, from: number): number {
    if (this.ampAt < from) {
      const at = s.indexOf('&', from);
      this.ampAt = at < 0 ? s.length : at;
    }
    return this.ampAt;
  }

  /** Keeps the attribute `name` = s[a, b) of an element of kind `kind` when it is one read; false when not. */
  private attribute(kind: number, name: string, s: string, a: number, b: number): boolean {
    if (kind === CELL) {
      if (name === this.aType) this.vType = attrOf(s.slice(a, b));
      else if (name === this.aValue) this.vValue = attrOf(s.slice(a, b));
      else if (name === this.aColsRep) this.vColsRep = attrOf(s.slice(a, b));
      else if (name === this.aCalcType) this.vCalcType = attrOf(s.slice(a, b));
      else if (name === this.aDate) this.vDate = attrOf(s.slice(a, b));
      else if (name === this.aTime) this.vTime = attrOf(s.slice(a, b));
      else if (name === this.aBool) this.vBool = attrOf(s.slice(a, b));
      else if (name === this.aString) this.vString = attrOf(s.slice(a, b));
      else return false;
    } else if (kind === COVERED) {
      if (name === this.aColsRep) this.vColsRep = attrOf(s.slice(a, b));
      else return false;
    } else if (kind === ROW) {
      if (name === this.aRowsRep) this.vRowsRep = attrOf(s.slice(a, b));
      else return false;
    } else if (kind === S) {
      if (name === this.aC) this.vC = attrOf(s.slice(a, b));
      else return false;
    } else return false;
    return true;
  }

  /** `</name>` at s[lt]: the position after it, or -1 when incomplete. */
  private closeTag(s: string, lt: number): number {
    const n = s.length;
    const top = this.stack[this.stack.length - 1];
    let i = lt + 2;
    if (top !== undefined && s.startsWith(top, i)) {
      i += top.length;
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return -1;
      if (s.charCodeAt(i) === 62) {
        this.stack.pop();
        this.close(this.kinds.pop()!);
        return i + 1;
      }
    } else if (top !== undefined && n - i < top.length && top.startsWith(s.slice(i))) {
      return -1; // the name goes on in the next chunk
    }
    // not the open element's end tag (saxes: 'unexpected close tag', whatever the stack holds)
    if (s.indexOf('>', lt) < 0) return -1;
    throw xmlError(MOTIVO_XML.fechamento);
  }

  private spend(cells: number): void {
    this.repeated += cells;
    if (this.repeated > ODS_MAX_REPEATED_CELLS) {
      throw new Error(`repetição de células acima de ${ODS_MAX_REPEATED_CELLS.toLocaleString('pt-BR')} (number-rows-repeated / number-columns-repeated)`);
    }
  }

  private open(kind: number): void {
    if (kind === OTHER) return;
    if (kind === TABLE) { this.depth++; return; }
    if (this.depth !== 1) return;
    if (kind === ROW) {
      this.rowRepeat = count(this.vRowsRep, 2 ** 31);
      this.values = [];
      this.rowHasValue = false;
      this.col = 0;
    } else if (kind === CELL || kind === COVERED) {
      this.inCell = true;
      this.cellRepeat = count(this.vColsRep, 2 ** 31); // only a position: a value past XFD is refused before any loop
      this.text = '';
      this.textChars = 0;
      this.paragraphs = 0;
      this.inP = 0;
      this.inAnnotation = 0;
    } else if (this.inCell) {
      if (kind === ANNOTATION) this.inAnnotation++;
      else if (this.inAnnotation) { /* an annotation's text is not the cell's */ }
      else if (kind === P) { if (this.paragraphs++ > 0) this.addText('\n'); this.inP++; }
      else if (this.inP && kind === S) this.addText(' '.repeat(count(this.vC, this.max)));
      else if (this.inP && kind === TAB) this.addText('\t');
      else if (this.inP && kind === BREAK) this.addText('\n');
    }
  }

  private close(kind: number): void {
    if (kind === OTHER) return;
    if (kind === TABLE) {
      if (--this.depth === 0) this.done = true;
      return;
    }
    if (this.depth !== 1) return;
    if (kind === CELL || kind === COVERED) {
      const v = kind === CELL ? this.cellValue() : undefined;
      const repeat = this.cellRepeat;
      if (v !== undefined && v !== '') {
        if (this.col + repeat > MAX_COLUMNS) {
          throw new Error(`célula na coluna ${this.col + repeat} fora dos limites da planilha (a última coluna é XFD, a ${MAX_COLUMNS.toLocaleString('pt-BR')}ª)`);
        }
        if (repeat > 1) this.spend(repeat - 1);
        for (let i = 0; i < repeat; i++) this.values[this.col + i] = v;
        this.rowHasValue = true;
      }
      this.col += repeat;
      this.inCell = false;
    } else if (kind === ROW) {
      const repeat = this.rowRepeat;
      if (this.rowHasValue) {
        if (this.rowNumber + repeat - 1 > MAX_ROWS) throw new Error(`linha ${this.rowNumber + repeat - 1} fora dos limites da planilha (a última é ${MAX_ROWS.toLocaleString('pt-BR')})`);
        if (repeat > 1) this.spend((repeat - 1) * Math.max(1, Object.keys(this.values).length));
        this.rows.push({ number: this.rowNumber, values: this.values, repeat });
      }
      this.rowNumber += repeat;
    } else if (this.inCell) {
      if (kind === ANNOTATION) this.inAnnotation--;
      else if (!this.inAnnotation && kind === P) this.inP--;
    }
  }

  private str(): unknown {
    const sv = this.vString;
    const s = sv ?? this.text;
    const chars = sv !== undefined ? s.length : this.textChars;
    if (chars > this.max) {
      const cut = s.slice(0, this.max);
      const last = cut.charCodeAt(cut.length - 1);
      return new TruncatedText(last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut, chars);
    }
    return this.paragraphs === 0 && sv === undefined ? undefined : s;
  }

  private cellValue(): unknown {
    if (this.vCalcType === 'error') return { error: this.text.trim() || '#N/A' };
    switch (this.vType ?? this.vCalcType) {
      case 'float': case 'percentage': case 'currency': {
        const n = Number(this.vValue);
        return this.vValue === undefined || Number.isNaN(n) ? this.str() : n;
      }
      case 'date': return this.vDate === undefined ? this.str() : isoDate(this.vDate);
      case 'time': {
        // a time of day, as .xlsx and .xls give it (cells.ts, timeOfDay)
        const days = this.vTime === undefined ? NaN : durationDays(this.vTime);
        return Number.isNaN(days) ? this.str() : timeOfDay(days, this.date1904);
      }
      case 'boolean': return this.vBool === undefined ? this.str() : this.vBool === 'true' || this.vBool === '1';
      default: return this.str();
    }
  }
}
