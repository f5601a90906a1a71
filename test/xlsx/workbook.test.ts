/**
 * openWorkbook and the streaming pass: the archive structure and the sheets are read by us
 * (package.ts, scanner.ts), and every writer's quirks come out right. Each exceljs 4.4.0
 * streaming defect that made us write our own reader has a test here (docs/xlsx.md lists them).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { inflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { WorkbookError, openWorkbook } from '../../src/xlsx/index.js';
import { type Workbook, type XlsxWorkbook, rowsOf } from '../../src/xlsx/workbook.js';
import { buildWorkbook } from '../fixtures/builder.js';
import { type HandOptions, type HandValue, handmadeXlsx } from '../fixtures/handmade.js';
import { makeZip } from '../fixtures/zip.js';

/** Every row of every sheet: [sheet, rowNumber, values] with values by column. */
async function readAll(wb: Workbook): Promise<Array<[string, number, unknown[]]>> {
  const out: Array<[string, number, unknown[]]> = [];
  for await (const { sheet, batches } of wb.pass(wb.sheets)) {
    for await (const row of rowsOf(batches)) out.push([sheet.name, row.number, Array.from(row.values)]);
  }
  return out;
}

async function read(o: HandOptions) {
  return readAll(await openWorkbook(handmadeXlsx(o)));
}

const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));
const i2s = (w: HandValue) => (typeof w === 'string' ? w.length : 0);

describe('openWorkbook', () => {
  it('reads the structure: tab names in order, hidden state, 1904 flag, sheet parts', async () => {
    const wb = await openWorkbook(handmadeXlsx({
      date1904: true,
      sheets: [{ name: 'Dados', rows: [['a']] }, { name: 'Oculta', state: 'hidden', rows: [] }, { name: '10', part: 'xl/worksheets/param.xml', rows: [] }],
    }));
    expect(wb.sheets.map((s) => [s.name, s.state, s.kind, s.part?.name])).toEqual([
      ['Dados', 'visible', 'worksheet', 'xl/worksheets/sheet1.xml'],
      ['Oculta', 'hidden', 'worksheet', 'xl/worksheets/sheet2.xml'],
      ['10', 'visible', 'worksheet', 'xl/worksheets/param.xml'],
    ]);
    expect(wb.date1904).toBe(true);
  });

  it.each([
    ['a text file', Buffer.from('a;b\n'), 'formato não suportado: o arquivo não é uma planilha (.xlsx, .xls ou .ods)'],
    ['a zip without a workbook', makeZip([{ name: 'a.txt', data: 'x' }]), 'formato não suportado: o pacote não contém a pasta de trabalho (xl/workbook.xml); não parece um .xlsx'],
    ['broken workbook XML', makeZip([{ name: 'xl/workbook.xml', data: '<workbook><sheets><sheet name="a"' }]), /^formato não suportado: XML inválido em xl\/workbook\.xml/],
    ['a workbook without tabs', makeZip([{ name: 'xl/workbook.xml', data: '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>' }]), 'formato não suportado: a pasta de trabalho não declara nenhuma aba'],
    ['a hostile archive', makeZip([{ name: '../x.xml', data: 'x' }]), 'formato não suportado: caminho de entrada fora do arquivo (zip slip)'],
  ])('%s → WorkbookError', async (_, bytes, message) => {
    const err = await openWorkbook(bytes).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(WorkbookError);
    if (typeof message === 'string') expect((err as Error).message).toBe(message);
    else expect((err as Error).message).toMatch(message);
  });

  it('a sheet whose XML is broken fails the pass with formato não suportado, naming the tab', async () => {
    const bytes = makeZip([
      { name: 'xl/workbook.xml', data: `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Plan1" sheetId="1" r:id="rId1"/></sheets></workbook>` },
      { name: 'xl/_rels/workbook.xml.rels', data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>' },
      { name: 'xl/worksheets/sheet1.xml', data: '<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2</v></c></rowx></sheetData></worksheet>' },
    ]);
    const wb = await openWorkbook(bytes);
    await expect(readAll(wb)).rejects.toThrow(/^formato não suportado: erro ao ler a aba 'Plan1'/);
  });
});

/** Flips bytes in the deflated data of `part` until it no longer inflates. */
function corrupt(bytes: Buffer, part: { dataStart: number; dataEnd: number }): Buffer {
  for (let off = 200; off < part.dataEnd - part.dataStart - 8; off += 37) {
    const b = Buffer.from(bytes);
    for (let i = 0; i < 8; i++) b[part.dataStart + off + i]! ^= 0x5a;
    try { inflateRawSync(b.subarray(part.dataStart, part.dataEnd)); } catch { return b; }
  }
  throw new Error('could not corrupt');
}

describe('corrupt deflate data in a stored file (the upload check would have refused it)', () => {
  const many = Array.from({ length: 3000 }, (_, i) => [i, `texto ${i}`] as HandValue[]);

  it('inside a sheet: the pass fails with formato não suportado instead of hanging', async () => {
    const bytes = handmadeXlsx({ strings: 'inline', sheets: [{ name: 'P', rows: many }] });
    const wb = await openWorkbook(corrupt(bytes, (await openWorkbook(bytes)).sheets[0]!.part!));
    await expect(readAll(wb)).rejects.toThrow(/^formato não suportado: erro ao ler a aba 'P' \(a entrada 'xl\/worksheets\/sheet1\.xml' está corrompida \((invalid|incorrect)/);
  });

  it('inside the shared strings', async () => {
    const bytes = handmadeXlsx({ sheets: [{ name: 'P', rows: many }] });
    const wb0 = await openWorkbook(bytes);
    const sst = (wb0 as XlsxWorkbook).index.byName.get('xl/sharedstrings.xml')!;
    const wb = await openWorkbook(corrupt(bytes, sst));
    await expect(readAll(wb)).rejects.toThrow(/^formato não suportado: erro ao ler a aba 'P'/);
  });
});

describe('exceljs-written files', () => {
  it('date cells are dates (styles cached), numbers numbers, shared strings text', async () => {
    const wb = await openWorkbook(await buildWorkbook([{ name: 'P', rows: [['Lançamento', 12.5, utc(2026, 11, 15), true, { formula: '1+1', result: 2 }]] }]));
    expect(await readAll(wb)).toEqual([['P', 1, ['Lançamento', 12.5, utc(2026, 11, 15), true, { formula: '1+1', result: 2 }]]]);
  });

  it('exceljs writes sharedStrings.xml after the sheets; our pass never buffers sheets to temporary files', async () => {
    const bytes = await buildWorkbook([{ name: 'P', rows: [['a', 'b'], ['c', 'd']] }]);
    const names = (await import('yauzl')).default;
    const order: string[] = [];
    const z = await names.fromBufferPromise(bytes);
    for await (const e of z.eachEntry()) order.push(e.fileName);
    expect(order.indexOf('xl/sharedStrings.xml')).toBeGreaterThan(order.indexOf('xl/worksheets/sheet1.xml'));
    const tmp = mkdtempSync(join(tmpdir(), 'xlsx-tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      expect(await readAll(await openWorkbook(bytes))).toEqual([['P', 1, ['a', 'b']], ['P', 2, ['c', 'd']]]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      process.env.TMPDIR = before;
    }
  });
});

describe('files from other writers (hand-made), one exceljs defect each', () => {
  const rows: HandValue[][] = [['Filial', 'Descrição'], [1, 'Óleo & Graxa <especial>']];
  const expected = [['P', 1, ['Filial', 'Descrição']], ['P', 2, [1, 'Óleo & Graxa <especial>']]];

  it('workbook.xml after the sheets (exceljs crashes reading it directly)', async () => {
    const bytes = handmadeXlsx({ order: 'workbook-last', sheets: [{ name: 'P', rows }] });
    expect(await read({ order: 'workbook-last', sheets: [{ name: 'P', rows }] })).toEqual(expected);
    // the defect, for the record: the bare streaming reader fails on this file
    const bare = new ExcelJS.stream.xlsx.WorkbookReader(new (await import('node:stream')).PassThrough().end(bytes), {});
    await expect((async () => { for await (const ws of bare) for await (const _ of ws) { /* drain */ } })()).rejects.toThrow();
  });

  it('sharedStrings.xml after the sheets', async () => {
    expect(await read({ order: 'sst-last', sheets: [{ name: 'P', rows }] })).toEqual(expected);
  });

  it('parts in reverse order', async () => {
    expect(await read({ order: 'reverse', sheets: [{ name: 'P', rows }] })).toEqual(expected);
  });

  it('inline strings and no sharedStrings.xml at all; entities decoded once', async () => {
    expect(await read({ strings: 'inline', sheets: [{ name: 'P', rows }] })).toEqual(expected);
    const lit = await read({ strings: 'inline', sheets: [{ name: 'P', rows: [['&lt; literal &amp;']] }] });
    expect(lit[0]![2]).toEqual(['&lt; literal &amp;']);
  });

  it('inline rich text keeps every run (exceljs kept only the last)', async () => {
    const out = await read({ strings: 'inline', pretty: true, sheets: [{ name: 'P', rows: [[{ rich: ['Diesel ', 'S10', ' aditivado'] }]] }] });
    expect(out[0]![2]).toEqual(['Diesel S10 aditivado']);
  });

  it('shared rich text keeps every run (its text: the runs joined, fonts dropped)', async () => {
    const out = await read({ sheets: [{ name: 'P', rows: [[{ rich: ['Nota ', 'Fiscal'] }]] }] });
    expect(out[0]![2]).toEqual(['Nota Fiscal']);
  });

  it('phonetic runs are not part of the text (shared and inline)', async () => {
    expect((await read({ sheets: [{ name: 'P', rows: [[{ phonetic: ['東京', 'トウキョウ'] }]] }] }))[0]![2]).toEqual(['東京']);
    expect((await read({ strings: 'inline', sheets: [{ name: 'P', rows: [[{ phonetic: ['東京', 'トウキョウ'] }]] }] }))[0]![2]).toEqual(['東京']);
  });

  it('cells and rows without the r attribute get their positions by order', async () => {
    const out = await read({ sheets: [{ name: 'P', noCellRefs: true, noRowRefs: true, rows: [['a', null, 'c'], [], [1, 2]] }] });
    expect(out).toEqual([['P', 1, ['a', undefined, 'c']], ['P', 2, []], ['P', 3, [1, 2]]]);
  });

  it('sheet parts with any name and folder, a workbook part elsewhere, absolute targets', async () => {
    const out = await read({
      workbookPart: 'xl/livro.xml',
      absoluteTargets: true,
      sheets: [{ name: 'Vendas 2026', part: 'xl/planilhas/Vendas.xml', rows: [['v']] }, { name: '20', part: 'xl/worksheets/sheet9.xml', rows: [['x']] }],
    });
    expect(out).toEqual([['Vendas 2026', 1, ['v']], ['20', 1, ['x']]]);
  });

  it('sheets read in the order asked, whatever the archive order; only the sheets asked', async () => {
    const wb = await openWorkbook(handmadeXlsx({ order: 'reverse', sheets: [{ name: 'A', rows: [['a']] }, { name: 'B', rows: [['b']] }, { name: 'C', rows: [['c']] }] }));
    const seen: string[] = [];
    for await (const { sheet, batches } of wb.pass([wb.sheet('C')!, wb.sheet('A')!])) {
      for await (const row of rowsOf(batches)) seen.push(`${sheet.name}:${String(row.values[0])}`);
    }
    expect(seen).toEqual(['C:c', 'A:a']);
  });

  it('a SpreadsheetML namespace prefix (<x:row>, OpenXML SDK)', async () => {
    expect(await read({ prefix: 'x', sheets: [{ name: 'P', rows }] })).toEqual(expected);
  });

  it('1904 date system: date cells and serials', async () => {
    const out = await read({ date1904: true, sheets: [{ name: 'P', rows: [[utc(2026, 11, 15), { num: '44879', s: 2 }, 44879]] }] });
    expect(out[0]![2]).toEqual([utc(2026, 11, 15), utc(2026, 11, 15), 44879]);
  });

  it('ISO date cells (t="d"), formulas with cached values, errors, booleans, empty <v/>', async () => {
    const out = await read({
      sheets: [{
        name: 'P',
        rows: [[{ iso: '2026-11-15' }, { iso: '2026-11-15T13:00:00' }, { f: 'A1&"x"', v: 'abc' }, { f: 'SUM(1,2)', v: 3 }, { error: '#N/A' }, true, { num: '' }, { f: 'TODAY()', v: 46341, t: 'n' }]],
      }],
    });
    expect(out[0]![2]).toEqual([
      utc(2026, 11, 15), new Date(Date.UTC(2026, 10, 15, 13)), { formula: 'A1&"x"', result: 'abc' }, { formula: 'SUM(1,2)', result: 3 },
      { error: '#N/A' }, true, undefined, { formula: 'TODAY()', result: 46341 },
    ]);
  });

  it('numbers written with 17 digits read as the double Excel meant', async () => {
    expect((await read({ sheets: [{ name: 'P', rows: [[{ num: '0.14000000000000001' }, { num: '1234.56', s: 3 }]] }] }))[0]![2]).toEqual([0.14, 1234.56]);
  });

  it('multi-byte UTF-8 split across chunk boundaries is decoded right (exceljs gave U+FFFD)', async () => {
    const words = Array.from({ length: 4000 }, (_, i) => `Lançamento ${i} ação não é çà`);
    const out = await read({ strings: 'inline', sheets: [{ name: 'P', rows: words.map((w) => [w]) }] });
    expect(out.map((r) => r[2][0])).toEqual(words);
    const shared = await read({ sheets: [{ name: 'P', rows: words.map((w) => [w]) }] });
    expect(shared.map((r) => r[2][0])).toEqual(words);
  });

  it('a large shared-string table (kept compact, outside the JS heap) returns every string', async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 7 ? { rich: [`rico ${i} `, 'ç'] } : `${i} — Distribuição São João € ${'x'.repeat(i % 50)}`));
    const out = await read({ sheets: [{ name: 'P', rows: words.map((w) => [w, i2s(w)]) }] });
    expect(out).toHaveLength(words.length);
    out.forEach(([, , values], i) => {
      const w = words[i]!;
      if (typeof w === 'string') expect(values).toEqual([w, w.length]);
      else expect(values[0]).toEqual(`${w.rich[0]}ç`);
    });
  });

  it('an empty shared string is an empty cell', async () => {
    expect((await read({ sheets: [{ name: 'P', rows: [['', 'a']] }] }))[0]![2]).toEqual([null, 'a']);
  });

  it('pretty-printed parts: white space between elements is not text', async () => {
    expect(await read({ pretty: true, sheets: [{ name: 'P', rows }] })).toEqual(expected);
  });

  it('a pass abandoned early stops without errors, and the workbook can be read again', async () => {
    const wb = await openWorkbook(handmadeXlsx({ sheets: [{ name: 'P', rows: Array.from({ length: 5000 }, (_, i) => [i, `linha ${i}`]) }, { name: 'Q', rows: [['q']] }] }));
    for await (const { batches } of wb.pass(wb.sheets)) {
      for await (const row of rowsOf(batches)) if (row.number === 3) break;
      break;
    }
    expect((await wb.headerRows(wb.sheets[0]!)).length).toBe(20);
    expect((await readAll(wb)).length).toBe(5001);
  });
});
