/**
 * What the merge's `staging_aparado` relies on (docs/xls-merge.md): every text value a reader
 * stages is null or a non-empty string with no leading or trailing space, so SQL's
 * `nullif(btrim(x), '')` would change nothing and the service tells the merge to skip it.
 * Every text parser of every reader is checked on cells full of blanks; a reader with a text
 * parser this file does not know fails the first test until it is added here.
 */
import { describe, expect, it } from 'vitest';
import { INVALID, TruncatedText, code, cnpjCpf, text, type CellParser } from '../../src/xlsx/cells.js';
import { cep, tipoTitulo, uf } from '../../src/xlsx/readers/parsers.js';
import { READERS } from '../../src/xlsx/readers/index.js';

const KNOWN: Record<string, CellParser> = { text, code, cnpjCpf, cep, uf, tipoTitulo };

const BLANKS = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u200b', ' \u00a0\u200b '];
const CORES = ['', 'ABC', '001', 'a b', '12345678', '12.345.678/0001-90', '123.456.789-09', 'SP', 'Pagar', 'R', '_x0009_', '_x0020_x_x0020_'];

function cells(): unknown[] {
  const out: unknown[] = [null, undefined, 0, 12, 12.5, -3, 12345678901, true, false, new Date(Date.UTC(2026, 10, 27)),
    { error: '#N/A' }, { richText: [{ text: ' a ' }, { text: 'b ' }] }, { formula: 'A1', result: ' x ' }];
  for (const core of CORES) {
    for (const a of ['', ...BLANKS]) for (const b of ['', ...BLANKS]) out.push(a + core + b);
    out.push(new TruncatedText(` ${core} `, 40_000));
  }
  return out;
}

describe('staged text is trimmed and never empty (staging_aparado)', () => {
  it('every reader stages text only through the parsers checked here', () => {
    const seen = new Set<CellParser>();
    for (const spec of Object.values(READERS)) {
      for (const t of [...(spec!.tabs ?? []), ...(spec!.anySheet ? [spec!.anySheet] : [])]) {
        for (const c of t.columns) if (c.parse.sql === 'text') seen.add(c.parse);
      }
    }
    const known = new Set(Object.values(KNOWN));
    expect([...seen].filter((p) => !known.has(p))).toEqual([]);
    expect(seen.size).toBeGreaterThan(3);
  });

  it.each(Object.keys(KNOWN))('%s gives null, INVALID or a string that btrim and nullif would leave as it is', (name) => {
    const parse = KNOWN[name]!;
    for (const cell of cells()) {
      const v = parse(cell, { date1904: false });
      if (v === null || v === INVALID) continue;
      expect(typeof v, JSON.stringify(cell)).toBe('string');
      expect(v, JSON.stringify(cell)).not.toBe('');
      expect(v.replace(/^ +| +$/g, ''), JSON.stringify(cell)).toBe(v);
    }
  });
});
