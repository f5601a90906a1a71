/**
 * The `.ods` table reader as it was before the hand-written scanner (src/xlsx/ods.ts up to
 * d5635f5: saxes, an event per tag), kept as the reference of test/xlsx/ods-scanner.test.ts.
 * Same state machine, same checks and messages; it takes the decoded content.xml from the
 * table's start tag on and feeds it in pieces of 64 Ki characters, as the inflated chunks
 * came. Returns the rows (repeats expanded) or the error's message.
 */
import { SaxesParser } from 'saxes';
import { TruncatedText, timeOfDay } from '../../src/xlsx/cells.js';
import { ODS_MAX_REPEATED_CELLS, type OdsPrefixes } from '../../src/xlsx/ods-scanner.js';
import { MAX_COLUMNS, MAX_MARKUP_CHARS, MAX_ROWS } from '../../src/xlsx/scanner.js';
import { xmlMotivo } from '../../src/xlsx/xml-motivo.js';

export type Rows = Array<{ number: number; values: unknown[] }>;

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

export function saxesTableRows(p: OdsPrefixes & { decls: string }, xml: string, max: number, date1904: boolean): Rows | string {
  const T = `${p.table}:`, O = `${p.office}:`, X = `${p.text}:`;
  const tagTable = `${T}table`, tagRow = `${T}table-row`, tagCell = `${T}table-cell`, tagCovered = `${T}covered-table-cell`;
  const tagP = `${X}p`, tagS = `${X}s`, tagTab = `${X}tab`, tagBreak = `${X}line-break`, tagAnnotation = `${O}annotation`;
  const aRowsRep = `${T}number-rows-repeated`, aColsRep = `${T}number-columns-repeated`;
  const aType = `${O}value-type`, aCalcType = `${p.calcext}:value-type`, aValue = `${O}value`, aDate = `${O}date-value`;
  const aTime = `${O}time-value`, aBool = `${O}boolean-value`, aString = `${O}string-value`, aC = `${X}c`;

  let tableDepth = 0;
  let done = false;
  let rowNumber = 1;
  let rowRepeat = 1;
  let values: unknown[] = [];
  let rowHasValue = false;
  let col = 0;
  let inCell = false;
  let cellAttrs: Record<string, string> = {};
  let cellRepeat = 1;
  let paragraphs = 0;
  let inP = 0;
  let inAnnotation = 0;
  let text = '';
  let textChars = 0;
  let repeated = 0;
  const out: Rows = [];

  const addText = (t: string) => {
    textChars += t.length;
    if (text.length < max) text += t.length > max - text.length ? t.slice(0, max - text.length) : t;
  };
  const spend = (cells: number) => {
    repeated += cells;
    if (repeated > ODS_MAX_REPEATED_CELLS) {
      throw new Error(`repetição de células acima de ${ODS_MAX_REPEATED_CELLS.toLocaleString('pt-BR')} (number-rows-repeated / number-columns-repeated)`);
    }
  };
  const str = (): unknown => {
    const s = cellAttrs[aString] ?? text;
    const chars = cellAttrs[aString] !== undefined ? s.length : textChars;
    if (chars > max) {
      const cut = s.slice(0, max);
      const last = cut.charCodeAt(cut.length - 1);
      return new TruncatedText(last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut, chars);
    }
    return paragraphs === 0 && cellAttrs[aString] === undefined ? undefined : s;
  };
  const cellValue = (): unknown => {
    const type = cellAttrs[aType] ?? cellAttrs[aCalcType];
    if (cellAttrs[aCalcType] === 'error') return { error: text.trim() || '#N/A' };
    switch (type) {
      case 'float': case 'percentage': case 'currency': {
        const n = Number(cellAttrs[aValue]);
        return cellAttrs[aValue] === undefined || Number.isNaN(n) ? str() : n;
      }
      case 'date': return cellAttrs[aDate] === undefined ? str() : isoDate(cellAttrs[aDate]);
      case 'time': {
        const days = cellAttrs[aTime] === undefined ? NaN : durationDays(cellAttrs[aTime]);
        return Number.isNaN(days) ? str() : timeOfDay(days, date1904);
      }
      case 'boolean': return cellAttrs[aBool] === undefined ? str() : cellAttrs[aBool] === 'true' || cellAttrs[aBool] === '1';
      default: return str();
    }
  };

  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('error', (err) => { throw new Error(xmlMotivo(err)); });
  parser.on('doctype', () => { throw new Error('XML: DOCTYPE não é aceito'); });
  parser.on('opentag', (tag) => {
    if (done) return;
    const name = tag.name;
    if (name === tagTable) { tableDepth++; return; }
    if (tableDepth !== 1) return;
    const attrs = tag.attributes as Record<string, string>;
    if (name === tagRow) {
      rowRepeat = count(attrs[aRowsRep], 2 ** 31);
      values = [];
      rowHasValue = false;
      col = 0;
    } else if (name === tagCell || name === tagCovered) {
      inCell = true;
      cellAttrs = name === tagCell ? attrs : {};
      cellRepeat = count(attrs[aColsRep], 2 ** 31);
      text = '';
      textChars = 0;
      paragraphs = 0;
      inP = 0;
      inAnnotation = 0;
    } else if (inCell) {
      if (name === tagAnnotation) inAnnotation++;
      else if (inAnnotation) { /* an annotation's text is not the cell's */ }
      else if (name === tagP) { if (paragraphs++ > 0) addText('\n'); inP++; }
      else if (inP && name === tagS) addText(' '.repeat(count(attrs[aC], max)));
      else if (inP && name === tagTab) addText('\t');
      else if (inP && name === tagBreak) addText('\n');
    }
    if (tag.isSelfClosing) closeTag(name);
  });
  const closeTag = (name: string) => {
    if (name === tagTable) {
      tableDepth--;
      if (tableDepth === 0) done = true;
      return;
    }
    if (tableDepth !== 1) return;
    if (name === tagCell || name === tagCovered) {
      const v = name === tagCell ? cellValue() : undefined;
      if (v !== undefined && !(typeof v === 'string' && v === '')) {
        if (col + cellRepeat > MAX_COLUMNS) {
          throw new Error(`célula na coluna ${col + cellRepeat} fora dos limites da planilha (a última coluna é XFD, a ${MAX_COLUMNS.toLocaleString('pt-BR')}ª)`);
        }
        if (cellRepeat > 1) spend(cellRepeat - 1);
        for (let i = 0; i < cellRepeat; i++) values[col + i] = v;
        rowHasValue = true;
      }
      col += cellRepeat;
      inCell = false;
    } else if (name === tagRow) {
      if (rowHasValue) {
        if (rowNumber + rowRepeat - 1 > MAX_ROWS) throw new Error(`linha ${rowNumber + rowRepeat - 1} fora dos limites da planilha (a última é ${MAX_ROWS.toLocaleString('pt-BR')})`);
        if (rowRepeat > 1) spend((rowRepeat - 1) * Math.max(1, Object.keys(values).length));
        for (let i = 0; i < rowRepeat; i++) out.push({ number: rowNumber + i, values });
      }
      rowNumber += rowRepeat;
    } else if (inCell) {
      if (name === tagAnnotation) inAnnotation--;
      else if (!inAnnotation && name === tagP) inP--;
    }
  };
  parser.on('closetag', (tag) => {
    if (done || tag.isSelfClosing) return;
    closeTag(tag.name);
  });
  parser.on('text', (t) => {
    if (!done && inP > 0 && inAnnotation === 0 && tableDepth === 1) addText(t);
  });

  let run = 0;
  const feed = (s: string) => {
    const first = s.indexOf('<');
    run += first < 0 ? s.length : first;
    if (run > MAX_MARKUP_CHARS) throw new Error(`XML: marcação ou texto com mais de ${MAX_MARKUP_CHARS} caracteres`);
    if (first >= 0) run = s.length - s.lastIndexOf('<') - 1;
    try {
      parser.write(s);
    } catch (err) {
      if (!done) throw err;
    }
  };
  try {
    parser.write(`<r ${p.decls}>`);
    for (let at = 0; at < xml.length && !done; at += 65_536) feed(xml.slice(at, at + 65_536));
    if (!done) throw new Error('content.xml termina antes do fim da aba');
  } catch (err) {
    return (err as Error).message;
  }
  return out;
}
