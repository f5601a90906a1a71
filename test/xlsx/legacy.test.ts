/**
 * The legacy formats' readers on their own: a .xls (CFB + BIFF8/BIFF5) and an .ods give the
 * same rows as the .xlsx they were converted from; encrypted files and .xlsb are refused with
 * a reason; hostile containers (a cyclic FAT, a sector chain past the end of the file, cells
 * past the limits, huge strings, an entity bomb, a huge content.xml, a repetition bomb) end
 * in a WorkbookError, at once and in bounded memory.
 */
import { describe, expect, it } from 'vitest';
import { TruncatedText, WorkbookError, detectType, openWorkbook, readRows, type StagingRow, type Workbook } from '../../src/xlsx/index.js';
import { extensaoDoConteudo } from '../../src/xlsx/open.js';
import { rowsOf } from '../../src/xlsx/workbook.js';
import { cfbFile, fatAt, odsFile, odsTable, rec, xlsFile, biffString } from '../fixtures/cfb.js';
import { sheetjs } from '../fixtures/legacy.js';
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

async function staged(bytes: Buffer): Promise<StagingRow[]> {
  const wb = await openWorkbook(bytes);
  const r = readRows(wb, (await detectType(wb))!);
  const out: StagingRow[] = [];
  for await (const row of r.rows()) out.push(row);
  return out;
}

describe('hand-made .xls (BIFF8 records in a CFB container)', () => {
  it('tabs, numbers, text (Latin-1 and UTF-16), dates by their format, empty cells keeping their place', async () => {
    const { bytes } = xlsFile([
      { name: 'Metas', cells: [[0, 0, 'Competência'], [0, 2, 'Ação €'], [1, 0, utc(2026, 11, 1)], [1, 1, 1234.5], [3, 2, 'x']] },
      { name: 'Outra', cells: [[0, 0, 7]] },
    ]);
    const wb = await openWorkbook(bytes);
    expect([wb.formato, wb.sheetNames, wb.date1904]).toEqual(['xls', ['Metas', 'Outra'], false]);
    expect(await all(wb)).toEqual([
      ['Metas', 1, ['Competência', undefined, 'Ação €']],
      ['Metas', 2, [utc(2026, 11, 1), 1234.5]],
      ['Metas', 4, [undefined, undefined, 'x']],
      ['Outra', 1, [7]],
    ]);
  });

  it('the 1904 date system (DATEMODE)', async () => {
    const wb = await openWorkbook(xlsFile([{ name: 'P', cells: [[0, 0, utc(2026, 11, 30)]] }], { date1904: true }).bytes);
    expect(wb.date1904).toBe(true);
    expect(await all(wb)).toEqual([['P', 1, [utc(2026, 11, 30)]]]);
  });

  it('a shared-string table split across CONTINUE records, the characters switching from Latin-1 to UTF-16 at the split', async () => {
    // SST: 2 strings; the second ('abc' + 'çã€') has its first 3 characters in the SST record
    // and the rest in a CONTINUE that starts with a new flags byte (1: UTF-16)
    const first = biffString('Produto');
    const sst = rec(0x00fc, Buffer.concat([Buffer.from([2, 0, 0, 0, 2, 0, 0, 0]), first, Buffer.from([6, 0, 0]), Buffer.from('abc', 'latin1')]));
    const cont = rec(0x003c, Buffer.concat([Buffer.from([1]), Buffer.from('çã€', 'utf16le')]));
    const labelsst = (r: number, c: number, i: number) => rec(0x00fd, Buffer.from([r, 0, c, 0, 0, 0, i, 0, 0, 0]));
    const { bytes } = xlsFile([{ name: 'S', cells: [], extra: [labelsst(0, 0, 0), labelsst(0, 1, 1)] }]);
    // put the SST in the globals, before their EOF: rebuild the stream by hand
    const wb0 = Buffer.from(bytes);
    const ws = wb0.subarray(512 * 3); // header, FAT, directory; then the Workbook stream
    const eof = ws.indexOf(Buffer.from([0x0a, 0x00, 0x00, 0x00]));
    const stream = Buffer.concat([ws.subarray(0, eof), sst, cont, ws.subarray(eof)]);
    // the sheet moved by the SST's length: patch its BOUNDSHEET offset
    const bs = stream.indexOf(Buffer.from([0x85, 0x00]));
    stream.writeUInt32LE(stream.readUInt32LE(bs + 4) + sst.length + cont.length, bs + 4);
    const wb = await openWorkbook(cfbFile([{ name: 'Workbook', data: stream }]).bytes);
    expect(await all(wb)).toEqual([['S', 1, ['Produto', 'abcçã€']]]);
  });

  it('a string longer than the cell limit is cut and marked (TruncatedText), its real length counted', async () => {
    const wb = await openWorkbook(xlsFile([{ name: 'P', cells: [[0, 0, 'y'.repeat(60_000)]] }]).bytes, { maxCellChars: 1000 });
    const v = (await all(wb))[0]![2][0];
    expect(v).toBeInstanceOf(TruncatedText);
    expect([(v as TruncatedText).text, (v as TruncatedText).chars]).toEqual(['y'.repeat(1000), 60_000]);
  });

  it('an encrypted .xls (FILEPASS) is refused with the reason', async () => {
    expect(await failure(openWorkbook(xlsFile([{ name: 'P', cells: [[0, 0, 1]] }], { filepass: true }).bytes)))
      .toBe('formato não suportado: arquivo .xls protegido por senha (criptografado); remova a senha no Excel e envie novamente');
  });

  it('a cell past column XFD is refused naming the tab', async () => {
    const wb = await openWorkbook(xlsFile([{ name: 'Metas', cells: [[0, 20_000, 'x']] }]).bytes);
    expect(await failure(all(wb))).toBe("formato não suportado: erro ao ler a aba 'Metas' (célula na coluna 20001 fora dos limites da planilha (a última coluna é XFD, a 16.384ª))");
  });

  it('a cyclic FAT and a sector chain past the end of the file are refused at once', async () => {
    const cyclic = xlsFile([{ name: 'P', cells: [[0, 0, 1]] }]);
    cyclic.bytes.writeUInt32LE(cyclic.start.Workbook!, fatAt(cyclic.start.Workbook!)); // the stream's first sector points to itself
    expect(await failure(openWorkbook(cyclic.bytes))).toBe('formato não suportado: arquivo .xls corrompido (cadeia de setores cíclica no fluxo Workbook)');

    const past = xlsFile([{ name: 'P', cells: [[0, 0, 1]] }]);
    past.bytes.writeUInt32LE(1_000_000, fatAt(past.start.Workbook!));
    expect(await failure(openWorkbook(past.bytes))).toMatch(/^formato não suportado: arquivo \.xls corrompido \(setor 1000000 de Workbook além do fim do arquivo \(\d+ setores\)\)$/);

    const cut = xlsFile([{ name: 'P', cells: [[0, 0, 1]] }]);
    expect(await failure(openWorkbook(cut.bytes.subarray(0, cut.bytes.length - 1024))))
      .toMatch(/^formato não suportado: arquivo \.xls corrompido \(setor \d+ de Workbook além do fim do arquivo/);
  });

  it('a record running past the stream, and a tab offset past it, are refused', async () => {
    const { bytes } = xlsFile([{ name: 'P', cells: [], extra: [Buffer.from([0x03, 0x02, 0xff, 0xff])] }]);
    expect(await failure(all(await openWorkbook(bytes)))).toMatch(/^formato não suportado: arquivo \.xls corrompido \(registro 0x203 de 65535 bytes passa do fim do fluxo\)$/);
  });

  it('a .xls above XLS_BIFF_MAX_BYTES is refused before it is parsed', async () => {
    expect(await failure(openWorkbook(xlsFile([{ name: 'P', cells: [[0, 0, 1]] }]).bytes, { maxBiffBytes: 4096 })))
      .toBe('formato não suportado: o arquivo .xls tem 6 KiB; o limite de leitura de um .xls é 4 KiB (XLS_BIFF_MAX_BYTES)');
  });

  it('a CFB without a Workbook stream is not a spreadsheet', async () => {
    expect(await failure(openWorkbook(cfbFile([{ name: 'WordDocument', data: Buffer.alloc(10) }]).bytes)))
      .toBe('formato não suportado: arquivo do Office antigo sem o fluxo Workbook: não é uma planilha do Excel');
  });
});

describe('LibreOffice and SheetJS files', () => {
  it('BIFF5 (Excel 5/95, written by SheetJS: LibreOffice 7.4 no longer writes it) gives the rows of the same sheets as .xlsx', async () => {
    const sheets = [{ name: 'Metas', rows: [['Competencia', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'], ['12/2026', 11, 'P1', 1500.25, null], ['01/2027', 'V12', 'P2', 7, 3]] }];
    const biff5 = sheetjs(sheets, 'biff5');
    const wb = await openWorkbook(biff5);
    expect([wb.formato, (wb as import('../../src/xlsx/biff.js').XlsWorkbook).biff]).toEqual(['xls', 5]);
    const rows = await staged(biff5);
    expect(rows).toEqual(await staged(sheetjs(sheets, 'xlsx')));
    expect(rows.map((r) => [r.values.competencia, r.values.vendedor, r.values.meta_volume])).toEqual([['2026-12-01', '11', '1500.25'], ['2027-01-01', 'V12', '7']]);
  });

  it('content decides, not the name: the same sheets as .xlsx, .xls and .ods give the same rows', async () => {
    const sheets = [{ name: 'Metas', rows: [['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'], [utc(2026, 12, 1), 'V1', 'P1', 10, 2.5], ['jan/27', 'V2', 'P2', null, null]] }];
    const esperado = [
      { staging: 'meta', linha: 2, values: { competencia: '2026-12-01', vendedor: 'V1', produto: 'P1', meta_volume: '10', meta_margem: '2.5' } },
      { staging: 'meta', linha: 3, values: { competencia: '2027-01-01', vendedor: 'V2', produto: 'P2', meta_volume: null, meta_margem: null } },
    ];
    for (const bookType of ['xlsx', 'biff8', 'ods'] as const) expect(await staged(sheetjs(sheets, bookType))).toEqual(esperado);
    expect(await Promise.all((['xlsx', 'biff8', 'ods'] as const).map((t) => extensaoDoConteudo(sheetjs(sheets, t))))).toEqual(['xlsx', 'xls', 'ods']);
  });
});

describe('.ods', () => {
  const HEAD = ['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'];

  it('repeated cells and rows, spaces, paragraphs and annotations, the 1904 null date', async () => {
    const ods = odsFile(`<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>
      <table:table table:name="A &amp; B"><table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="3"/></table:table-row>
      <table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2"/>b</text:p><text:p>c</text:p><office:annotation><text:p>nota</text:p></office:annotation></table:table-cell>
      <table:table-cell table:number-columns-repeated="2" office:value-type="float" office:value="2.5"/><table:covered-table-cell/><table:table-cell office:value-type="date" office:date-value="2026-11-30"/>
      <table:table-cell office:value-type="boolean" office:boolean-value="true"/></table:table-row>
      <table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="float" office:value="7"/></table:table-row>
      <table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>`);
    const wb = await openWorkbook(ods);
    expect([wb.formato, wb.sheetNames, wb.date1904]).toEqual(['ods', ['A & B'], true]);
    expect(await all(wb)).toEqual([
      ['A & B', 3, ['a  b\nc', 2.5, 2.5, undefined, utc(2026, 11, 30), true]],
      ['A & B', 4, [7]],
      ['A & B', 5, [7]],
    ]);
  });

  it('each tab is read from its own offset in content.xml; detection and the META reader work', async () => {
    const ods = odsFile(odsTable('x', [['nada']]) + odsTable('y', [['&lt;&gt;']]) + odsTable('Metas', [HEAD, ['12/2026', 'V1', 'P1', 10, 1]]));
    expect(await staged(ods)).toEqual([{ staging: 'meta', linha: 2, values: { competencia: '2026-12-01', vendedor: 'V1', produto: 'P1', meta_volume: '10', meta_margem: '1' } }]);
  });

  it('an encrypted .ods (manifest encryption-data) and an .xlsb are refused with the reason', async () => {
    const enc = odsFile(odsTable('P', [['x']]), { manifest: '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry></manifest:manifest>' });
    expect(await failure(openWorkbook(enc))).toBe('formato não suportado: arquivo .ods protegido por senha (criptografado); remova a senha no LibreOffice e envie novamente');
    const xlsb = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/workbook.bin', data: Buffer.alloc(10) }]);
    expect(await failure(openWorkbook(xlsb))).toBe('formato não suportado: arquivo .xlsb (pasta de trabalho binária do Excel); abra no Excel e salve como .xlsx');
    expect(await extensaoDoConteudo(xlsb)).toBe('xlsb');
  });

  it('an entity bomb is refused: a DOCTYPE, or an entity nobody declared', async () => {
    const lol = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>';
    expect(await failure(openWorkbook(odsFile(odsTable('P', [['&lol2;']]), { prolog: lol }))))
      .toBe('formato não suportado: content.xml do .ods com DOCTYPE (declarações de entidades não são aceitas)');
    const wb = await openWorkbook(odsFile(odsTable('P', [['&lol9;']])));
    expect(await failure(all(wb))).toBe("formato não suportado: erro ao ler a aba 'P' (XML: entidade não declarada (só as cinco entidades do XML são aceitas))");
  });

  it('a run of text over 1 Mi characters, a cell past XFD and a repetition bomb are refused', async () => {
    const huge = await openWorkbook(odsFile(odsTable('P', [['z'.repeat(1_100_000)]])), { maxRatio: 1_000_000 });
    expect(await failure(all(huge))).toBe("formato não suportado: erro ao ler a aba 'P' (XML: marcação ou texto com mais de 1048576 caracteres)");
    const far = await openWorkbook(odsFile('<table:table table:name="P"><table:table-row><table:table-cell table:number-columns-repeated="20000"/><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>'));
    expect(await failure(all(far))).toBe("formato não suportado: erro ao ler a aba 'P' (célula na coluna 20001 fora dos limites da planilha (a última coluna é XFD, a 16.384ª))");
    const bomb = await openWorkbook(odsFile('<table:table table:name="P"><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/></table:table-row></table:table>'));
    expect(bomb.formato).toBe('ods');
    expect(await failure(all(bomb))).toBe("formato não suportado: erro ao ler a aba 'P' (repetição de células acima de 10.000.000 (number-rows-repeated / number-columns-repeated))");
  });

  it('a cell over the cell limit is cut and marked', async () => {
    const wb = await openWorkbook(odsFile(odsTable('P', [['w'.repeat(5000)]])), { maxCellChars: 100 });
    const v = (await all(wb))[0]![2][0];
    expect([(v as TruncatedText).text, (v as TruncatedText).chars]).toEqual(['w'.repeat(100), 5000]);
  });
});
