/**
 * Cells: decoding a cell of the sheet XML into its value (cellDecoder: number, string,
 * boolean, Date, formula with cached result, error, TruncatedText), and parsing values into
 * COPY-ready text, following docs/formatos.md:
 *
 * - text: trimmed, never truncated (SQL truncates); numbers as plain decimal text.
 * - code: text; numeric cell 123 → '123' (never '123.0'); leading zeros in text kept.
 * - number: numeric cell, or Brazilian text (`1.234,56`, `R$ 1.234,56`, `-1.234,56`,
 *   `(1.234,56)`); `1234.56` accepted when there is no comma → '-1234.56'.
 * - date: date cell, numeric serial (1900 or 1904 system), `dd/mm/aaaa`, `aaaa-mm-dd` → 'YYYY-MM-DD'.
 * - competência: a date, or `mm/aaaa`, `mmm/aa` (`nov/26`), `mmm/aaaa`, month names → 'YYYY-MM-01'.
 * - cnpj/cpf: digits only (11 or 14 digits; a numeric cell gets its leading zeros back).
 *
 * - a value cut to the cell limit (TruncatedText, over maxCellChars characters): text keeps
 *   its first characters; as a code, number, date or document it is INVALID (a row error,
 *   never a silently cut key).
 *
 * Each parser returns the text, null (empty cell), or INVALID. No allocation on the
 * common paths beyond the resulting string.
 */
import type { CellDecoder } from './scanner.js';

/** A value cut to the cell limit: `text` holds its first characters, `chars` its real length. */
export class TruncatedText {
  constructor(readonly text: string, readonly chars: number) {}
  toString(): string { return this.text; }
}

// ---------------------------------------------------------------------------------------
// Decoding the cells of the sheet XML

/** What the decoder needs of the workbook. */
export interface DecodeContext {
  date1904: boolean;
  /** The shared strings (null when the workbook has none). */
  sharedStrings: { get(index: number): unknown; readonly length: number } | null;
  /** Whether style `s` (a cellXfs index) shows numbers as dates. */
  isDateStyle(s: number): boolean;
}

/** Excel serial → Date (UTC), as exceljs did: milliseconds rounded, the 1904 system shifted. */
export function excelToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

/**
 * The Date of a time of day alone (`10:10:10`, an ODS `PT10H10M10S`): that time on the day
 * serial 0 stands for (1899-12-30, or 1904-01-01 in a 1904 workbook), the value a numeric
 * cell of 0.4237 with a time format gives — one type for a time, whatever the format.
 */
export function timeOfDay(days: number, date1904: boolean): Date {
  return excelToDate(days, date1904);
}

/**
 * Value of a `t="d"` cell: ISO 8601, read as UTC unless it has a zone; a time alone
 * (`10:10:10`) is a time of day (timeOfDay); anything else is kept as its text.
 */
function isoCellDate(text: string, date1904: boolean): Date | string {
  const t = text.trim();
  const time = /^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/.exec(t);
  if (time) return timeOfDay((Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3] ?? 0)) / 86_400, date1904);
  const d = /^\d{4}-\d{2}-\d{2}$/.test(t) ? new Date(`${t}T00:00:00Z`)
    : /([zZ]|[+-]\d{2}:?\d{2})$/.test(t) ? new Date(t) : new Date(`${t}Z`);
  return Number.isNaN(d.getTime()) ? text : d;
}

/**
 * A shared-string index the table does not have (past its end, or no table at all): an
 * error value, so a field reading it is a row error that says why (never a silent empty cell).
 */
export function missingSharedString(index: string | number, count: number): { error: string } {
  return { error: `texto compartilhado ${index} inexistente (a tabela tem ${count})` };
}

/**
 * The decoder of a workbook's cells: shared/inline string, ISO date (t="d"), error, boolean,
 * number or date (by the cell's number format), or a formula with its cached result.
 * undefined when the cell has no value (no <v>, or an empty <v/>).
 */
export function cellDecoder(ctx: DecodeContext): CellDecoder {
  const { date1904, sharedStrings } = ctx;
  const dateStyles: Array<boolean | undefined> = [];
  const isDate = (s: number): boolean => {
    if (!(s >= 0 && s < 65_536)) return false;
    let d = dateStyles[s];
    if (d === undefined) d = dateStyles[s] = ctx.isDateStyle(s);
    return d;
  };
  const decode: CellDecoder = (t, s, v, f, vChars) => {
    if (f !== null) {
      const formula: { formula: string; result?: unknown } = { formula: f };
      if (v !== null) {
        const result = decode(t, s, v, null, vChars);
        if (result !== undefined) formula.result = result;
      }
      return formula;
    }
    if (v === null) return undefined;
    switch (t) {
      case 's': {
        if (v.trim() === '') return undefined;
        const i = Number(v);
        const text = sharedStrings && Number.isInteger(i) ? sharedStrings.get(i) : undefined;
        return text === undefined ? missingSharedString(v.trim(), sharedStrings?.length ?? 0) : text;
      }
      case 'inlineStr':
      case 'str':
        return vChars > v.length ? new TruncatedText(v, vChars) : v;
      case 'd':
        return isoCellDate(v, date1904);
      case 'e':
        return { error: v };
      case 'b':
        return parseInt(v, 10) !== 0;
      default:
        if (v === '') return undefined;
        return isDate(s) ? excelToDate(parseFloat(v), date1904) : parseFloat(v);
    }
  };
  return decode;
}

export const INVALID: unique symbol = Symbol('inválido');
export type Parsed = string | null | typeof INVALID;

export interface ParseContext {
  /** The workbook counts serials from 1904-01-01 (Mac Excel). */
  date1904: boolean;
}

/** The SQL type a staging column holds (docs/xls-merge.md): the parser of its field says it. */
export type TipoSql = 'text' | 'numeric' | 'date' | 'integer' | 'boolean';

/** Turns a cell into its COPY text (or null, or INVALID); `sql` is the staging column's type. */
export type CellParser = ((value: unknown, ctx: ParseContext) => Parsed) & { readonly sql: TipoSql };

/** A parser whose values the staging table holds as `sql`. */
export function parser(sql: TipoSql, parse: (value: unknown, ctx: ParseContext) => Parsed): CellParser {
  return Object.assign(parse, { sql });
}

// ---------------------------------------------------------------------------------------
// Raw value access

/** Unwraps formula results and hyperlinks; joins rich text runs. */
export function unwrap(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date) return v;
  const o = v as Record<string, unknown>;
  if ('result' in o || 'formula' in o || 'sharedFormula' in o) return unwrap(o.result);
  if (Array.isArray(o.richText)) {
    let s = '';
    for (const run of o.richText as Array<{ text?: unknown }>) if (typeof run?.text === 'string') s += run.text;
    return s;
  }
  if ('text' in o && 'hyperlink' in o) return unwrap(o.text);
  return v; // { error: '#N/A' } and anything unknown
}

function isErrorValue(v: unknown): v is { error: string } {
  return v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof TruncatedText) && 'error' in (v as object);
}

const HAS_NON_SPACE = /[^\s\u00a0\u200b]/;
const ESCAPED = /_x([0-9A-Fa-f]{4})_/g;

/** Excel escapes control characters as `_xHHHH_` in strings. */
function unescapeExcel(s: string): string {
  return s.indexOf('_x') >= 0 ? s.replace(ESCAPED, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : s;
}

/** Trims ordinary, non-breaking and zero-width spaces. */
function trimAll(s: string): string {
  const t = s.trim();
  return t.length && (t.charCodeAt(0) === 0x200b || t.charCodeAt(t.length - 1) === 0x200b) ? t.replace(/^\u200b+|\u200b+$/g, '').trim() : t;
}

/** True when the cell holds nothing but white space (or nothing). */
export function isEmptyValue(raw: unknown): boolean {
  const v = unwrap(raw);
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return !HAS_NON_SPACE.test(v);
  return false;
}

/** The cell as text for messages and header matching (empty string when empty). */
export function displayValue(raw: unknown): string {
  const v = unwrap(raw);
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return trimAll(unescapeExcel(v));
  if (typeof v === 'number') return Number.isFinite(v) ? plainNumber(v) : String(v);
  if (typeof v === 'boolean') return v ? 'VERDADEIRO' : 'FALSO';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'data inválida' : isoDate(v);
  if (v instanceof TruncatedText) return `${trimAll(unescapeExcel(v.text.slice(0, 200)))}… (${v.chars} caracteres)`;
  if (isErrorValue(v)) return String(v.error);
  return String(v);
}

// ---------------------------------------------------------------------------------------
// Numbers

/** Plain decimal text of a finite number (15 significant digits, as Excel): no exponent, '.' as separator, no '-0'. */
export function plainNumber(n: number): string {
  if (n === 0) return '0';
  let s = String(n);
  // Excel keeps 15 significant digits: 5.819999999999999 is the 5.82 it shows.
  if (s.length > 16) s = String(Number(n.toPrecision(15)));
  const e = s.indexOf('e');
  if (e < 0) return s;
  // 1.5e-7 / 1.2e+21 → expand the exponent on the decimal digits (exact, no float math)
  const neg = s[0] === '-';
  const mant = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mant.indexOf('.');
  const digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  const intLen = (dot < 0 ? mant.length : dot) + exp;
  let out: string;
  if (intLen <= 0) out = `0.${'0'.repeat(-intLen)}${digits}`;
  else if (intLen >= digits.length) out = digits + '0'.repeat(intLen - digits.length);
  else out = `${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  return neg ? `-${out}` : out;
}

// An optional '(' or sign, an optional R$, an optional sign, the digits, an optional ')'.
const NUMBER_TEXT = /^(\()?\s*([+-])?\s*(?:R\$)?\s*([+-])?\s*([\d.,]+)\s*(\))?$/;
const BR_BODY = /^(\d{1,3}(?:\.\d{3})+|\d+),(\d+)$/; // 1.234,56  1234,5
const DOT_BODY = /^(\d+)(?:\.(\d+))?$/; // 1234.56  1234 (no comma: '.' is the decimal point)
const THOUSANDS_BODY = /^\d{1,3}(?:\.\d{3}){2,}$/; // 1.234.567 (unambiguous thousands)

/** Brazilian number text → plain decimal text, or INVALID. */
export function parseBrazilianNumber(input: string): Parsed {
  const s = input.replace(/\u00a0/g, ' ').trim();
  if (s === '') return null;
  const m = NUMBER_TEXT.exec(s);
  if (!m) return INVALID;
  const [, open, sign1, sign2, body, close] = m;
  if ((open === undefined) !== (close === undefined)) return INVALID;
  if (sign1 !== undefined && sign2 !== undefined) return INVALID;
  const sign = sign1 ?? sign2;
  if (open !== undefined && sign !== undefined) return INVALID;
  let intPart: string;
  let frac = '';
  let b: RegExpExecArray | null;
  if ((b = BR_BODY.exec(body!))) {
    intPart = b[1]!.replace(/\./g, '');
    frac = b[2]!;
  } else if ((b = DOT_BODY.exec(body!))) {
    intPart = b[1]!;
    frac = b[2] ?? '';
  } else if (THOUSANDS_BODY.test(body!)) {
    intPart = body!.replace(/\./g, '');
  } else {
    return INVALID;
  }
  intPart = intPart.replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  const abs = frac ? `${intPart}.${frac}` : intPart;
  if (abs === '0') return '0';
  return open !== undefined || sign === '-' ? `-${abs}` : abs;
}

export const number = parser('numeric', (raw) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? plainNumber(v) : INVALID;
  if (typeof v === 'string') return parseBrazilianNumber(unescapeExcel(v));
  return INVALID;
});

// ---------------------------------------------------------------------------------------
// Text and codes

export const text = parser('text', (raw) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    const t = trimAll(unescapeExcel(v));
    return t === '' ? null : t;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? plainNumber(v) : INVALID;
  if (typeof v === 'boolean') return v ? 'VERDADEIRO' : 'FALSO';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? INVALID : isoDate(v);
  if (v instanceof TruncatedText) {
    const t = trimAll(unescapeExcel(v.text));
    return t === '' ? null : t;
  }
  return INVALID; // error cells (#N/A, #REF!)
});

/** Codes are text; a numeric cell 123 is '123'. A date or boolean is no code; a cut value neither. */
export const code = parser('text', (raw, ctx) => {
  const v = unwrap(raw);
  if (v instanceof Date || typeof v === 'boolean' || v instanceof TruncatedText) return INVALID;
  return text(v, ctx);
});

export const cnpjCpf = parser('text', (raw) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) return INVALID;
    const d = plainNumber(v);
    if (d.length > 14) return INVALID;
    return d.length <= 11 ? d.padStart(11, '0') : d.padStart(14, '0');
  }
  if (typeof v !== 'string') return INVALID;
  const t = trimAll(v);
  if (t === '') return null;
  if (!/^[\d.\-/\s]+$/.test(t)) return INVALID;
  const d = t.replace(/\D/g, '');
  return d.length === 11 || d.length === 14 ? d : INVALID;
});

// ---------------------------------------------------------------------------------------
// Dates

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

function ymd(y: number, m: number, d: number): string {
  return `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad2(m)}-${pad2(d)}`;
}

/** UTC calendar date of a Date (exceljs builds date cells in UTC). */
export function isoDate(d: Date): string {
  return ymd(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  const dim = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= dim;
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30); // serial 0, counting Excel's phantom 1900-02-29
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** Excel serial → 'YYYY-MM-DD' (the time of day is dropped), or INVALID. */
export function serialToDate(serial: number, date1904: boolean): Parsed {
  if (!Number.isFinite(serial) || serial < 1 || serial > 2958465) return INVALID;
  let days = Math.floor(serial + 1e-9);
  if (!date1904) {
    if (days === 60) return INVALID; // 1900-02-29 does not exist
    if (days < 60) days += 1; // before the phantom day the offset is one day less
  }
  const d = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS);
  return isoDate(d);
}

const DMY = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?$/;
const YMD = /^(\d{4})-(\d{2})-(\d{2})(?:[T\s]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function parseDateText(s: string): Parsed {
  const t = s.trim();
  if (t === '') return null;
  let m = DMY.exec(t);
  if (m) {
    const d = Number(m[1]), mo = Number(m[2]), y = Number(m[3]);
    return validDate(y, mo, d) ? ymd(y, mo, d) : INVALID;
  }
  m = YMD.exec(t);
  if (m) {
    const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
    return validDate(y, mo, d) ? ymd(y, mo, d) : INVALID;
  }
  return INVALID;
}

export const date = parser('date', (raw, ctx) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return null;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return INVALID;
    const y = v.getUTCFullYear();
    return y < 1900 || y > 9999 ? INVALID : isoDate(v);
  }
  if (typeof v === 'number') return serialToDate(v, ctx.date1904);
  if (typeof v === 'string') return parseDateText(unescapeExcel(v));
  return INVALID;
});

const MONTHS: Record<string, number> = {
  jan: 1, janeiro: 1, fev: 2, fevereiro: 2, mar: 3, marco: 3, abr: 4, abril: 4, mai: 5, maio: 5,
  jun: 6, junho: 6, jul: 7, julho: 7, ago: 8, agosto: 8, set: 9, setembro: 9, out: 10, outubro: 10,
  nov: 11, novembro: 11, dez: 12, dezembro: 12,
};

function firstOfMonth(iso: string): string {
  return `${iso.slice(0, 8)}01`;
}

export function parseCompetenciaText(s: string): Parsed {
  const t = s.trim();
  if (t === '') return null;
  let m = /^(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) {
    const mo = Number(m[1]), y = Number(m[2]);
    return validDate(y, mo, 1) ? ymd(y, mo, 1) : INVALID;
  }
  m = /^(\d{4})-(\d{1,2})$/.exec(t);
  if (m) {
    const y = Number(m[1]), mo = Number(m[2]);
    return validDate(y, mo, 1) ? ymd(y, mo, 1) : INVALID;
  }
  m = /^([\p{L}.]+)\s*[/\-\s]\s*(\d{2}|\d{4})$/u.exec(t);
  if (m) {
    const name = m[1]!.normalize('NFD').replace(/\p{M}/gu, '').replace(/\.$/, '').toLowerCase();
    const mo = MONTHS[name];
    if (mo === undefined) return INVALID;
    const y = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    return validDate(y, mo, 1) ? ymd(y, mo, 1) : INVALID;
  }
  const d = parseDateText(t);
  return d === INVALID || d === null ? d : firstOfMonth(d);
}

export const competencia = parser('date', (raw, ctx) => {
  const v = unwrap(raw);
  if (typeof v === 'string') return parseCompetenciaText(unescapeExcel(v));
  const d = date(v, ctx);
  return d === INVALID || d === null ? d : firstOfMonth(d);
});
