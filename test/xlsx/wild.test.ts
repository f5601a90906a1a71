/**
 * Files from the wild, each case rebuilt by hand: what other readers
 * open we open (BIFF rows out of order, a FORMAT cut short, Microsoft Graph's BOF 0x580, a
 * BIFF4 FORMULA inside BIFF8, a 4096-byte-sector CFB, an .ods without `mimetype`, an .xlsx
 * whose `_rels/.rels` is junk); one type for a time of day whatever the format; a
 * shared-string index past the table is a row error that says so; refusals in staff words
 * (a truncated version-4 CFB, an undeclared entity) and on the element, not a substring (an
 * `.ods` manifest mentioning `encryption-data` in a comment). The corpus itself is read by
 * corpus.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { WorkbookError, detectType, openWorkbook, readRows, type RowError, type Workbook } from '../../src/xlsx/index.js';
import type { XlsWorkbook } from '../../src/xlsx/biff.js';
import { extensaoDoConteudo } from '../../src/xlsx/open.js';
import { rowsOf } from '../../src/xlsx/workbook.js';
import { ODS_NS, biffString, cfbFile, odsFile, odsTable, rec, xlsFile } from '../fixtures/cfb.js';
import { makeZip } from '../fixtures/zip.js';
import { utc } from '../fixtures/tipos.js';

async function all(wb: Workbook): Promise<Array<[string, number, unknown[]]>> {
  const out: Array<[string, number, unknown[]]> = [];
  for await (const { sheet, batches } of wb.pass(wb.sheets)) {
    for await (const row of rowsOf(batches)) out.push([sheet.name, row.number, [...row.values]]);
  }
  return out;
}

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkbookError);
  return (err as Error).message;
}

const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(n); return b; };
const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const num = (r: number, c: number, v: number, xf = 0) => {
  const b = Buffer.alloc(14);
  b.writeUInt16LE(r, 0); b.writeUInt16LE(c, 2); b.writeUInt16LE(xf, 4); b.writeDoubleLE(v, 6);
  return rec(0x0203, b);
};
/** 10:10:10 as a time of day: on serial 0's day, as a numeric cell with a time format gives it. */
const TEN_PAST_TEN = new Date(Date.UTC(1899, 11, 30, 10, 10, 10));

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
function xlsx(rows: string, o: { rootRels?: string; sharedStrings?: string[]; sstItem?: boolean } = {}): Buffer {
  const si = o.sstItem ? 'sstItem' : 'si';
  return makeZip([
    ...(o.rootRels !== undefined ? [{ name: '_rels/.rels', data: o.rootRels }] : []),
    { name: 'xl/workbook.xml', data: `<workbook xmlns="${NS}" xmlns:r="${NS_R}"><sheets><sheet name="Metas" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${NS_R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${NS_R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>` },
    ...(o.sharedStrings ? [{ name: 'xl/sharedStrings.xml', data: `<sst xmlns="${NS}">${o.sharedStrings.map((t) => `<${si}><t>${t}</t></${si}>`).join('')}</sst>` }] : []),
    { name: 'xl/worksheets/sheet1.xml', data: `<worksheet xmlns="${NS}"><sheetData>${rows}</sheetData></worksheet>` },
  ]);
}
const str = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const META_HEADER = `<row r="1">${str('A1', 'Competência')}${str('B1', 'Vendedor')}${str('C1', 'Produto')}${str('D1', 'Meta Volume')}${str('E1', 'Meta Margem')}</row>`;

describe('.xls other readers open', () => {
  it('cell records out of row order are handed over in row order, in passes over row ranges when many', async () => {
    const cells: Array<[number, number, number | string]> = [[0, 0, 'a'], [4, 0, 5], [1, 1, 'b'], [4, 1, 6], [2, 0, 3], [0, 1, 2], [9, 2, 10]];
    const { bytes } = xlsFile([{ name: 'P', cells }, { name: 'Q', cells: [[0, 0, 1], [1, 0, 2]] }]);
    const expected = [
      ['P', 1, ['a', 2]], ['P', 2, [undefined, 'b']], ['P', 3, [3]], ['P', 5, [5, 6]], ['P', 10, [undefined, undefined, 10]],
      ['Q', 1, [1]], ['Q', 2, [2]],
    ];
    expect(await all(await openWorkbook(bytes))).toEqual(expected);
    // two cells per pass: rows 1, 2-3, 5, 10 in four passes, the same rows
    const wb = await openWorkbook(bytes) as XlsWorkbook;
    wb.unorderedPassCells = 2;
    expect(await all(wb)).toEqual(expected);
    // the header rows of detection come sorted too
    expect((await wb.headerRows(wb.sheets[0]!)).map((r) => r.number)).toEqual([1, 2, 3, 5, 10]);
  });

  it('a FORMAT record cut short is read as far as it goes; a BIFF4 FORMULA record in a BIFF8 sheet gives its cached value', async () => {
    const cutFormat = rec(0x041e, Buffer.concat([u16(0xa5), u16(40), Buffer.from([0]), Buffer.from('dd/mm/yyyy')]));
    const formula4 = (r: number, c: number, v: number) => {
      const b = Buffer.alloc(20);
      b.writeUInt16LE(r, 0); b.writeUInt16LE(c, 2); b.writeUInt16LE(0, 4); b.writeDoubleLE(v, 6);
      return rec(0x0406, b);
    };
    const { bytes } = xlsFile([{ name: 'P', cells: [[0, 0, 'x']], extra: [formula4(1, 0, 3), formula4(1, 1, 2)] }], { globalRecords: [cutFormat] });
    expect(await all(await openWorkbook(bytes))).toEqual([['P', 1, ['x']], ['P', 2, [3, 2]]]);
  });

  it('a "Book" stream of BOF version 0x580 (Microsoft Graph\'s data sheet) opens: one chart tab, no rows', async () => {
    const bof = (dt: number) => rec(0x0809, Buffer.concat([u16(0x0580), u16(dt), u16(0x0c8c), u16(0x07ca)]));
    const globals = (offset: number) => Buffer.concat([bof(0x05), rec(0x0042, u16(1252)), rec(0x0085, Buffer.concat([u32(offset), Buffer.from([0, 2, 0])])), rec(0x000a)]);
    const at = globals(0).length;
    const stream = Buffer.concat([globals(at), bof(0x20), rec(0x0003, Buffer.alloc(15)), rec(0x000a)]);
    const wb = await openWorkbook(cfbFile([{ name: 'Book', data: stream }]).bytes);
    expect([wb.formato, wb.sheets.map((s) => s.kind)]).toEqual(['xls', ['chartsheet']]);
    expect(await all(wb)).toEqual([]);
    expect(await detectType(wb)).toBe(null);
  });

  it('a shared-string index past the table is a row error saying so, as in .xlsx (not the file refused)', async () => {
    const sst = rec(0x00fc, Buffer.concat([u32(1), u32(1), biffString('Competência')]));
    const labelsst = (r: number, c: number, i: number) => rec(0x00fd, Buffer.concat([u16(r), u16(c), u16(0), u32(i)]));
    const { bytes } = xlsFile([{ name: 'P', cells: [], extra: [labelsst(0, 0, 0), labelsst(0, 1, 7)] }], { globalRecords: [sst] });
    expect(await all(await openWorkbook(bytes))).toEqual([['P', 1, ['Competência', { error: 'texto compartilhado 7 inexistente (a tabela tem 1)' }]]]);
  });

  it('a version-4 CFB (4096-byte sectors) is read; cut to 5.6 KB it is refused in staff words', async () => {
    const { bytes } = xlsFile([{ name: 'P', cells: [[0, 0, 'v4'], [1, 0, 42]] }], { version: 4 });
    expect(bytes.readUInt16LE(0x1a)).toBe(4);
    expect(await all(await openWorkbook(bytes))).toEqual([['P', 1, ['v4']], ['P', 2, [42]]]);
    for (const size of [5_600, 4096 + 100, 9_000]) {
      const msg = await failure(openWorkbook(bytes.subarray(0, size)));
      expect(msg).toMatch(/^formato não suportado: arquivo \.xls corrompido \(/);
      expect(msg).not.toMatch(/offset|out of range|RangeError/i);
    }
  });
});

describe('.ods other readers open, and their refusals', () => {
  const MANIFEST = (body: string) => `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">${body}</manifest:manifest>`;
  const ROOT_ENTRY = '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>';

  it('an .ods with no mimetype entry is read as .ods (its manifest, or content.xml, says so), and planned as one file', async () => {
    const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODS_NS}><office:body><office:spreadsheet>${odsTable('P', [['sem mimetype', 1]])}</office:spreadsheet></office:body></office:document-content>`;
    for (const entries of [
      [{ name: 'content.xml', data: content }, { name: 'META-INF/manifest.xml', data: MANIFEST(ROOT_ENTRY) }],
      [{ name: 'content.xml', data: content }],
    ]) {
      const zip = makeZip(entries);
      const wb = await openWorkbook(zip);
      expect(wb.formato).toBe('ods');
      expect(await all(wb)).toEqual([['P', 1, ['sem mimetype', 1]]]);
      expect(await extensaoDoConteudo(zip)).toBe('ods');
    }
    const { planUpload } = await import('../../src/planilhas/upload.js');
    const plan = await planUpload(makeZip([{ name: 'content.xml', data: content }, { name: 'META-INF/manifest.xml', data: MANIFEST(ROOT_ENTRY) }]), 'planilha.ods');
    expect(plan.kind).toBe('arquivo');
    // a text document without mimetype is not taken for a spreadsheet
    const odt = makeZip([{ name: 'content.xml', data: content }, { name: 'META-INF/manifest.xml', data: MANIFEST('<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>') }]);
    expect(await failure(openWorkbook(odt))).toBe('formato não suportado: documento OpenDocument que não é uma planilha (.ods)');
  });

  it('a time cell is a time of day (a Date), the same value .xlsx gives', async () => {
    const ods = odsFile('<table:table table:name="P"><table:table-row><table:table-cell office:value-type="time" office:time-value="PT10H10M10S"/></table:table-row></table:table>');
    const fromXlsx = await all(await openWorkbook(xlsx('<row r="1"><c r="A1" t="d"><v>10:10:10</v></c></row>')));
    expect(await all(await openWorkbook(ods))).toEqual([['P', 1, [TEN_PAST_TEN]]]);
    expect(fromXlsx).toEqual([['Metas', 1, [TEN_PAST_TEN]]]);
  });

  it('a manifest that mentions encryption-data in a comment is not a password-protected file; the element is', async () => {
    const mentions = odsFile(odsTable('P', [['x']]), { manifest: MANIFEST(`<!-- sem encryption-data aqui -->${ROOT_ENTRY}<manifest:file-entry manifest:full-path="encryption-data.txt" manifest:media-type="text/plain"/>`) });
    expect(await all(await openWorkbook(mentions))).toEqual([['P', 1, ['x']]]);
    const encrypted = odsFile(odsTable('P', [['x']]), { manifest: MANIFEST('<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry>') });
    expect(await failure(openWorkbook(encrypted))).toMatch(/^formato não suportado: arquivo \.ods protegido por senha/);
  });

  it('an undeclared entity ends in staff words, not the XML parser\'s', async () => {
    const wb = await openWorkbook(odsFile(odsTable('P', [['&lol9;']])));
    expect(await failure(all(wb))).toBe("formato não suportado: erro ao ler a aba 'P' (XML: entidade não declarada (só as cinco entidades do XML são aceitas))");
  });
});

describe('.xlsx other readers open', () => {
  it('a junk _rels/.rels falls back to xl/workbook.xml; without it the reason is in staff words', async () => {
    const wb = await openWorkbook(xlsx(`<row r="1">${str('A1', 'ok')}</row>`, { rootRels: 'isto não é XML <<' }));
    expect(await all(wb)).toEqual([['Metas', 1, ['ok']]]);
    const none = makeZip([{ name: '_rels/.rels', data: 'isto não é XML <<' }, { name: 'x/book.xml', data: '<a/>' }]);
    expect(await failure(openWorkbook(none))).toBe('formato não suportado: XML inválido em _rels/.rels (XML: texto ou elemento fora do elemento raiz)');
  });

  it('a time-only t="d" cell is a time of day; an unreadable one keeps its text', async () => {
    const wb = await openWorkbook(xlsx('<row r="1"><c r="A1" t="d"><v>2021-01-01</v></c><c r="B1" t="d"><v>10:10:10</v></c><c r="C1" t="d"><v>amanhã</v></c></row>'));
    expect(await all(wb)).toEqual([['Metas', 1, [utc(2021, 1, 1), TEN_PAST_TEN, 'amanhã']]]);
  });

  it('a shared-string index past the table (or with no table) is a row error naming the index, never an empty cell', async () => {
    const rows = `${META_HEADER}<row r="2">${str('A2', '12/2026')}<c r="B2" t="s"><v>9</v></c>${str('C2', 'P1')}<c r="D2"><v>10</v></c></row>`
      + `<row r="3">${str('A3', '12/2026')}<c r="B3" t="s"><v>0</v></c>${str('C3', 'P1')}<c r="D3"><v>10</v></c></row>`;
    const wb = await openWorkbook(xlsx(rows, { sharedStrings: ['V1'] }));
    const r = readRows(wb, (await detectType(wb))!);
    const out = [];
    for await (const row of r.rows()) out.push(row.linha);
    expect(out).toEqual([3]);
    expect(r.errors().map((e: RowError) => e.mensagem)).toEqual(["linha 2: vendedor 'texto compartilhado 9 inexistente (a tabela tem 1)' inválido"]);
    const noTable = await openWorkbook(xlsx('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'));
    expect(await all(noTable)).toEqual([['Metas', 1, [{ error: 'texto compartilhado 0 inexistente (a tabela tem 0)' }]]]);
    // Excel 2007 beta named the table's items <sstItem> (poi/sample-beta.xlsx): read like <si>
    const beta = await openWorkbook(xlsx('<row r="1"><c r="A1" t="s"><v>1</v></c></row>', { sharedStrings: ['a', 'b'], sstItem: true }));
    expect(await all(beta)).toEqual([['Metas', 1, ['b']]]);
  });
});
