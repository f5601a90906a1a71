/**
 * Styles and date formats: which cell styles (`s` = index into `<cellXfs>`) show a number
 * as a date. A date cell is a number with a date format; the reader turns it into a Date.
 * Built-in format ids are Excel's (ECMA-376 §18.8.30: 14–22 and 45–47 are dates and times;
 * 27–36 and 50–58 are the East Asian date formats); custom formats (`<numFmt>`) are dates
 * when, without their quoted text, `[…]` sections and escaped characters, they hold a
 * date/time code (y m d h s, or b for the Buddhist year) — the rule exceljs used.
 */
import { SaxesParser } from 'saxes';
import { unsupported } from './errors.js';

export const BUILTIN_DATE_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** Whether a number format code shows a date or time. */
export function isDateFormat(code: string): boolean {
  if (!code) return false;
  const bare = code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/[_*]./g, '');
  if (/^general$/i.test(bare.trim())) return false;
  return /[ymdhsb]/i.test(bare.replace(/[eE][+-]/g, ''));
}

export class Styles {
  /** 1 where the style (cellXfs index) is a date format. */
  private constructor(private readonly dates: Uint8Array) {}

  static readonly NONE = new Styles(new Uint8Array(0));

  isDate(style: number): boolean {
    return this.dates[style] === 1;
  }

  /** Parses a styles part (a small part, read whole). */
  static parse(xml: Buffer, part: string): Styles {
    const parser = new SaxesParser({ xmlns: true, position: false });
    const custom = new Map<number, string>();
    const xfFormats: number[] = [];
    let inCellXfs = false;
    let depth = 0;
    let cellXfsDepth = -1;
    parser.on('opentag', (tag) => {
      const attrs = tag.attributes as unknown as Record<string, { local: string; uri: string; value: string }>;
      const get = (name: string) => {
        for (const key in attrs) if (attrs[key]!.local === name && attrs[key]!.uri === '') return attrs[key]!.value;
        return undefined;
      };
      if (tag.local === 'numFmt') {
        const id = Number(get('numFmtId'));
        const code = get('formatCode');
        if (Number.isInteger(id) && code !== undefined) custom.set(id, code);
      } else if (tag.local === 'cellXfs') {
        inCellXfs = true;
        cellXfsDepth = depth;
      } else if (tag.local === 'xf' && inCellXfs && depth === cellXfsDepth + 1) {
        const id = Number(get('numFmtId') ?? '0');
        xfFormats.push(Number.isInteger(id) ? id : 0);
      }
      if (!tag.isSelfClosing) depth++;
    });
    parser.on('closetag', (tag) => {
      if (!tag.isSelfClosing) depth--;
      if (tag.local === 'cellXfs' && depth === cellXfsDepth) inCellXfs = false;
    });
    try {
      parser.write(xml.toString('utf8')).close();
    } catch (err) {
      throw unsupported(`XML inválido em ${part} (${(err as Error).message.split('\n')[0]})`, err);
    }
    const dates = new Uint8Array(xfFormats.length);
    xfFormats.forEach((id, i) => {
      const code = custom.get(id);
      dates[i] = (code !== undefined ? isDateFormat(code) : BUILTIN_DATE_IDS.has(id)) ? 1 : 0;
    });
    return new Styles(dates);
  }
}
