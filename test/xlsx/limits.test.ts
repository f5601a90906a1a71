/**
 * Limits of reading: cells and rows outside a sheet's limits are a clear error,
 * sparse rows are walked by their present cells, one cell or shared string keeps at most
 * maxCellChars characters, and a code that would be cut is a row error.
 */
import { describe, expect, it } from 'vitest';
import { INVALID, TruncatedText, code, date, number, text } from '../../src/xlsx/cells.js';
import { forEachCell } from '../../src/xlsx/headers.js';
import { readRows, openWorkbook, type StagingRow } from '../../src/xlsx/index.js';
import { isSkippedRow } from '../../src/xlsx/readers/engine.js';
import { type CellDecoder, type ScannedRow, MAX_COLUMNS, SheetScanner } from '../../src/xlsx/scanner.js';
import { rowsOf } from '../../src/xlsx/workbook.js';
import { type HandValue, handmadeXlsx } from '../fixtures/handmade.js';

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const raw: CellDecoder = (_t, _s, v) => v ?? undefined;

function scan(rows: string): ScannedRow[] {
  const s = new SheetScanner(raw);
  const out = s.scan(`<worksheet xmlns="${NS}"><sheetData>${rows}</sheetData></worksheet>`);
  s.end();
  return out;
}

describe('sheet limits: column XFD (16,384), row 1,048,576', () => {
  it('the last column and the last row are read', () => {
    const rows = scan('<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>');
    expect(rows[0]!.number).toBe(1_048_576);
    expect(rows[0]!.values.length).toBe(MAX_COLUMNS);
    expect(rows[0]!.values[MAX_COLUMNS - 1]).toBe('1');
  });

  it.each([
    ['a cell past XFD (LPFILT1, the crashing file)', '<row r="1"><c r="LPFILT1"><v>1</v></c></row>', "célula 'LPFILT1' fora dos limites da planilha (a última coluna é XFD, a 16.384ª)"],
    ['a cell at column 16,385 (XFE)', '<row r="1"><c r="XFE1"><v>1</v></c></row>', "célula 'XFE1' fora dos limites da planilha"],
    ['a reference with a very long column', `<row r="1"><c r="${'Z'.repeat(5000)}1"><v>1</v></c></row>`, "célula 'ZZZZZZZZZZZZZZZZZZZZZ...' fora dos limites"],
    ['a cell without r past XFD', `<row r="1"><c r="XFD1"><v>1</v></c><c><v>2</v></c></row>`, 'célula na coluna 16385 fora dos limites da planilha'],
    ['a row past 1,048,576', '<row r="1048577"><c r="A1048577"><v>1</v></c></row>', "linha '1048577' fora dos limites da planilha (1 a 1.048.576)"],
    ['a row number that is not a number', '<row r="abc"/>', "linha 'abc' fora dos limites da planilha"],
    ['a row 0', '<row r="0"/>', "linha '0' fora dos limites da planilha"],
    ['a row without r after the last one', '<row r="1048576"/><row/>', 'linha 1048577 fora dos limites da planilha'],
  ])('%s is an error', (_, rows, message) => {
    expect(() => scan(rows)).toThrow(message);
  });

  it('through the workbook: formato não suportado naming the tab, at once', async () => {
    const bytes = handmadeXlsx({ sheets: [{ name: 'Metas', rows: [['a']] }] });
    const wb0 = await openWorkbook(bytes);
    expect(wb0.sheets[0]!.part).not.toBeNull();
    // the same file with its cell moved far to the right
    const { makeZip } = await import('../fixtures/zip.js');
    const far = makeZip([
      { name: 'xl/workbook.xml', data: `<workbook xmlns="${NS}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Metas" sheetId="1" r:id="rId1"/></sheets></workbook>` },
      { name: 'xl/_rels/workbook.xml.rels', data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>' },
      { name: 'xl/worksheets/sheet1.xml', data: `<worksheet xmlns="${NS}"><sheetData><row r="1"><c r="LPFILT1" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>` },
    ]);
    const wb = await openWorkbook(far);
    const t0 = performance.now();
    await expect((async () => { for await (const { batches } of wb.pass(wb.sheets)) for await (const _ of rowsOf(batches)) { /* drain */ } })())
      .rejects.toThrow("formato não suportado: erro ao ler a aba 'Metas' (célula 'LPFILT1' fora dos limites da planilha (a última coluna é XFD, a 16.384ª))");
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('sparse rows are walked by their present cells', () => {
  it('forEachCell visits only the cells present, in column order', () => {
    const values: unknown[] = [];
    values[2] = 'c';
    values[MAX_COLUMNS - 1] = 'xfd';
    values[700] = 'z';
    const seen: number[] = [];
    forEachCell(values, (_, c) => { seen.push(c); });
    expect(seen).toEqual([2, 700, MAX_COLUMNS - 1]);
    const dense = ['a', undefined, 'c'];
    const seenDense: unknown[] = [];
    forEachCell(dense, (v) => { seenDense.push(v); });
    expect(seenDense).toEqual(['a', undefined, 'c']);
  });

  it('a row holding only a far cell: skipped when empty or Total, kept otherwise', () => {
    const row = (v: unknown) => { const values: unknown[] = []; values[MAX_COLUMNS - 1] = v; return { number: 2, values }; };
    expect(isSkippedRow(row('   '))).toBe(true);
    expect(isSkippedRow(row('Total geral'))).toBe(true);
    expect(isSkippedRow(row('dado'))).toBe(false);
    expect(isSkippedRow({ number: 3, values: [] })).toBe(true);
  });
});

async function cellsOf(bytes: Buffer, maxCellChars?: number): Promise<unknown[][]> {
  const wb = await openWorkbook(bytes, maxCellChars === undefined ? undefined : { maxCellChars });
  const out: unknown[][] = [];
  for await (const { batches } of wb.pass(wb.sheets)) for await (const row of rowsOf(batches)) out.push(Array.from(row.values));
  return out;
}

describe('one cell or shared string keeps at most maxCellChars characters', () => {
  const long = 'ABCDEFGHIJ'.repeat(4000); // 40,000 characters, over Excel's 32,767

  it.each(['shared', 'inline'] as const)('a %s string over the limit is cut and marked (default 32,767)', async (strings) => {
    const [[v, w]] = await cellsOf(handmadeXlsx({ strings, sheets: [{ name: 'P', rows: [[long, 'curto']] }] })) as [[unknown, unknown]];
    expect(v).toBeInstanceOf(TruncatedText);
    expect((v as TruncatedText).chars).toBe(40_000);
    expect((v as TruncatedText).text).toBe(long.slice(0, 32_767));
    expect(w).toBe('curto');
  });

  it('the limit is configurable; a string at the limit is whole; a cut never splits a surrogate pair', async () => {
    const rows: HandValue[][] = [['0123456789', '01234567890', 'abcdefghi😀x']];
    const [[a, b, c]] = await cellsOf(handmadeXlsx({ sheets: [{ name: 'P', rows }] }), 10) as [[unknown, unknown, unknown]];
    expect(a).toBe('0123456789');
    expect(b).toEqual(new TruncatedText('0123456789', 11));
    expect(c).toEqual(new TruncatedText('abcdefghi', 12));
  });

  it('a shared string of 5,000,000 characters keeps only the limit', async () => {
    // letters from a small generator: compresses like text, under the 200:1 ratio limit
    const letters = Buffer.alloc(5_000_000);
    for (let i = 0, x = 7; i < letters.length; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; letters[i] = 97 + (x >> 16) % 26; }
    const huge = letters.toString('latin1');
    const [[v]] = await cellsOf(handmadeXlsx({ sheets: [{ name: 'P', rows: [[huge]] }] })) as [[TruncatedText]];
    expect(v.chars).toBe(5_000_000);
    expect(v.text).toBe(huge.slice(0, 32_767));
  });

  it('as text a cut value keeps its first characters; as a code, number or date it is invalid', () => {
    const ctx = { date1904: false };
    const cut = new TruncatedText('  DIESEL S10 ', 40_000);
    expect(text(cut, ctx)).toBe('DIESEL S10');
    expect(code(cut, ctx)).toBe(INVALID);
    expect(number(new TruncatedText('1234', 40_000), ctx)).toBe(INVALID);
    expect(date(new TruncatedText('01/11/2026', 40_000), ctx)).toBe(INVALID);
  });
});

describe('a code that would be cut is a row error, not a silent cut', () => {
  const header: HandValue[] = ['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'];

  async function readMeta(rows: HandValue[][]) {
    const wb = await openWorkbook(handmadeXlsx({ sheets: [{ name: 'Metas', rows: [header, ...rows] }] }));
    const reader = readRows(wb, 'META');
    await reader.meta();
    const out: StagingRow[] = [];
    for await (const r of reader.rows()) out.push(r);
    return { out, errors: reader.errors(), rejected: reader.rejectedRows() };
  }

  it('a seller code over the cell limit rejects its row; a code longer than its column goes on (SQL decides: longo demais)', async () => {
    const { out, errors, rejected } = await readMeta([
      ['11/2026', '10', 'DIESEL-S10', 100, 0.1],
      ['11/2026', '10', 'P'.repeat(21), 100, 0.1],
      ['11/2026', 'V'.repeat(40_000), 'GASOLINA', 100, 0.1],
      ['11/2026', '11', 'P'.repeat(20), 5, 0.2],
    ]);
    expect(out.map((r) => [r.linha, r.values.produto])).toEqual([[2, 'DIESEL-S10'], [3, 'P'.repeat(21)], [5, 'P'.repeat(20)]]);
    expect(rejected).toBe(1);
    expect(errors.map((e) => [e.linha, e.campo])).toEqual([[4, 'vendedor']]);
    expect(errors[0]!.valor).toMatch(/^V+… \(40000 caracteres\)$/);
  });
});
