/**
 * The worksheet scanner (src/xlsx/scanner.ts): XML syntax it must read like a conforming
 * parser, malformed parts it must refuse, and any split of the input into chunks giving the
 * same rows.
 */
import { describe, expect, it } from 'vitest';
import { type CellDecoder, type ScannedRow as Row, SheetScanner } from '../../src/xlsx/scanner.js';

/** Cell value as the tests see it: `t:text` / `f=formula|result` / undefined. */
const show: CellDecoder = (t, _s, v, f) => (f !== null ? `f=${f}|${v ?? ''}` : v !== null ? `${t ?? 'n'}:${v}` : undefined);

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const sheet = (data: string, root = `<worksheet xmlns="${NS}">`, close = '</worksheet>') =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n${root}<sheetData>${data}</sheetData>${close}`;

function scan(xml: string, chunks: number[] = []): Row[] {
  const s = new SheetScanner(show);
  const rows: Row[] = [];
  let at = 0;
  for (const cut of [...chunks, xml.length]) {
    rows.push(...s.scan(xml.slice(at, cut)));
    at = cut;
  }
  s.end();
  return rows.map((r) => ({ number: r.number, values: [...r.values] }));
}

describe('worksheet scanner', () => {
  it('reads values, formulas, inline and shared strings, empty and self-closing cells', () => {
    const rows = scan(sheet(
      '<row r="1" spans="1:4"><c r="A1" t="s"><v>0</v></c><c r="B1" s="3"><v>12.5</v></c><c r="C1"/><c r="D1" t="inlineStr"><is><t>x</t></is></c></row>'
      + '<row r="3"><c r="B3"><f>SUM(1,2)</f><v>3</v></c></row><row r="4"/>',
    ));
    expect(rows).toEqual([
      { number: 1, values: ['s:0', 'n:12.5', undefined, 'inlineStr:x'] },
      { number: 3, values: [undefined, 'f=SUM(1,2)|3'] },
      { number: 4, values: [] },
    ]);
  });

  it('decodes entities and character references, CDATA literally, and normalises line ends', () => {
    const rows = scan(sheet(
      '<row r="1"><c r="A1" t="str"><v>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#xE7;&#x1F600;</v></c>'
      + '<c r="B1" t="inlineStr"><is><t xml:space="preserve"> um\r\ndois\rtrês&#13;</t></is></c>'
      + '<c r="C1" t="str"><v><![CDATA[<b>&amp;</b>]]></v></c></row>',
    ));
    expect(rows[0]!.values).toEqual(['str:a & b <c> "d" \'e\' éç😀', 'inlineStr: um\ndois\ntrês\r', 'str:<b>&amp;</b>']);
  });

  it('comments, processing instructions, single quotes, spaces around =, > inside an attribute', () => {
    const rows = scan(sheet(
      `<!-- <row r="9"><c r="A9"><v>9</v></c></row> --><?mso x?>`
      + `<row r = '2' x14ac:dyDescent="0.25" note="a>b"><c r='C2' t = "s" ><v>7</v></c ></row >`,
    ));
    expect(rows).toEqual([{ number: 2, values: [undefined, undefined, 's:7'] }]);
  });

  it('rows and cells without r follow the previous ones; rich text keeps every run but not phonetic ones', () => {
    const rows = scan(sheet(
      '<row r="5"><c r="B5"><v>1</v></c><c><v>2</v></c></row><row><c><v>3</v></c></row>'
      + '<row r="7"><c r="A7" t="inlineStr"><is><r><t>Lan</t></r><r><rPr><b/></rPr><t>çamento</t></r><rPh><t>ラン</t></rPh></is></c></row>',
    ));
    expect(rows).toEqual([
      { number: 5, values: [undefined, 'n:1', 'n:2'] },
      { number: 6, values: ['n:3'] },
      { number: 7, values: ['inlineStr:Lançamento'] },
    ]);
  });

  it('a SpreadsheetML prefix bound by the root is stripped; other prefixes are not SpreadsheetML', () => {
    const rows = scan(sheet('<x:row r="1"><x:c r="A1"><x:v>4</x:v></x:c></x:row><y:row r="2"/>', `<x:worksheet xmlns:x="${NS}" xmlns:y="urn:other">`, '</x:worksheet>')
      .replace('<sheetData>', '<x:sheetData>').replace('</sheetData>', '</x:sheetData>'));
    expect(rows).toEqual([{ number: 1, values: ['n:4'] }]);
  });

  it('gives the same rows however the input is cut into chunks (every cut point)', () => {
    const xml = sheet(
      '<row r="1"><c r="A1" t="str"><v>a &amp; b&#233;</v></c><c r="B1" t="inlineStr"><is><t><![CDATA[x]]y]]></t></is></c></row>'
      + '<!-- c --><row r="2" ht="15"><c r="AB2" s="1"><f>1+1</f><v>2</v></c></row>',
    );
    const whole = scan(xml);
    expect(whole).toEqual([
      { number: 1, values: ['str:a & bé', 'inlineStr:x]]y'] },
      { number: 2, values: [...Array(27).fill(undefined), 'f=1+1|2'] },
    ]);
    for (let i = 1; i < xml.length; i++) expect(scan(xml, [i]), `cut at ${i}`).toEqual(whole);
    for (let i = 1; i + 7 < xml.length; i += 3) expect(scan(xml, [i, i + 1, i + 7]), `cuts at ${i}`).toEqual(whole);
  });

  it('multi-byte UTF-8 split between Buffers is decoded once, right', () => {
    const bytes = Buffer.from(sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>ação ç €</t></is></c></row>'));
    const chunks = Array.from(bytes, (b) => Buffer.from([b])); // one byte at a time
    const scanner = new SheetScanner(show);
    const decoder = new TextDecoder('utf-8');
    const rows: Row[] = [];
    for (const c of chunks) rows.push(...scanner.scan(decoder.decode(c, { stream: true })));
    rows.push(...scanner.scan(decoder.decode()));
    scanner.end();
    expect(rows[0]!.values).toEqual(['inlineStr:ação ç €']);
  });

  it.each([
    ['a close tag that does not match', sheet('<row r="1"><c r="A1"><v>1</v></c></rowx>'), /não fecha <row>/],
    ['a part cut in the middle of a tag', sheet('<row r="1"><c r="A1"><v>1</v></c></row>').slice(0, -20), /terminou no meio|não fechado/],
    ['an element left open', sheet('<row r="1">', `<worksheet xmlns="${NS}">`, '</sheetData></worksheet>').replace('</sheetData></sheetData>', '</sheetData>'), /não fecha|não fechado/],
    ['an unknown entity', sheet('<row r="1"><c r="A1" t="str"><v>&nbsp;</v></c></row>'), /entidade desconhecida &nbsp;/],
    ['an & without ;', sheet('<row r="1"><c r="A1" t="str"><v>a & b</v></c></row>'), /'&' sem ';'/],
    ['an unquoted attribute', sheet('<row r=1></row>'), /atributo sem aspas/],
    ['text outside the root', `${sheet('')}tail`, /texto fora do elemento raiz|terminou no meio/],
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY e "boom">]>${sheet('')}`, /DOCTYPE/],
    ['an empty part', '', /parte vazia/],
  ])('refuses %s', (_, xml, message) => {
    expect(() => scan(xml)).toThrow(message);
  });
});

/** The same scanner with the one-step cell read turned off: every cell goes the general way. */
class GeneralScanner extends SheetScanner {
  protected override fastMarkup(): number { return -1; }
}

/** What a scanner gives for `xml` cut at `cuts`: the rows, or the error's message. */
function outcome(make: () => SheetScanner, xml: string, cuts: number[] = []): unknown {
  const s = make();
  const rows: Row[] = [];
  try {
    let at = 0;
    for (const cut of [...cuts, xml.length]) {
      rows.push(...s.scan(xml.slice(at, cut)));
      at = cut;
    }
    s.end();
  } catch (err) {
    return { erro: (err as Error).message };
  }
  return rows.map((r) => ({ number: r.number, values: [...r.values] }));
}

/** Every value the decoder sees, style included (the style is what `show` leaves out). */
const full: CellDecoder = (t, s, v, f, vChars) => JSON.stringify([t ?? null, s, v, f, vChars]);

describe('the one-step cell read', () => {
  // cells the one step takes and cells it must leave to the general way (and give the same)
  const cells = [
    '<c r="A1"><v>1</v></c>', '<c r="B1" s="3"><v>12.5</v></c>', '<c r="C1" t="s"><v>0</v></c>',
    '<c t="s" r="D1" s="12"><v>7</v></c>', '<c s="0" r="E1"/>', '<c r="F1"/>', '<c/>', '<c><v>3</v></c>',
    '<c r="xfd1"><v>9</v></c>', '<c r="XFD1"><v>9</v></c>', '<c r="XFE1"><v>9</v></c>', '<c r="AAAA1"><v>9</v></c>',
    '<c r="1"><v>9</v></c>', '<c r=""><v>9</v></c>', '<c r="A1B"><v>9</v></c>', '<c r="A&amp;1"><v>9</v></c>',
    '<c r="A1" s=""><v>9</v></c>', '<c r="A1" s="007"><v>9</v></c>', '<c r="A1" s="1x"><v>9</v></c>', '<c r="A1" s="12345678901"><v>9</v></c>',
    '<c r="A1" t=""><v>9</v></c>', '<c r="A1" t="str"><v>a &amp; b &#233;</v></c>', '<c r="A1" t="str"><v>a\r\nb</v></c>',
    '<c r="A1" t="s&amp;"><v>9</v></c>', '<c r="A1" r="B1"><v>9</v></c>', '<c r="A1" t="s" t="n"><v>9</v></c>',
    '<c r="A1" x="1"><v>9</v></c>', '<c  r="A1"><v>9</v></c>', '<c r = "A1"><v>9</v></c>', "<c r='A1'><v>9</v></c>",
    '<c\tr="A1"><v>9</v></c>', '<c r="A1" ><v>9</v></c>', '<c r="A1"><v>9</v> </c>', '<c r="A1"><v></v></c>',
    '<c r="A1"><f>1+1</f><v>2</v></c>', '<c r="A1" t="inlineStr"><is><t>x</t></is></c>', '<c r="A1"></c>',
    '<c r="A1"><v>9</v></cx>', '<c r="A1"><v>a&nbsp;b</v></c>', '<c r="A1" t="str"><v>a & b</v></c>',
    '<cx r="A1"><v>9</v></cx>', '<cxr="A1"/>', '<cxs="1"/>', '<c r="A1"/ >', `<c r="A1" t="str"><v>${'é'.repeat(40)}</v></c>`,
  ];

  it.each(cells)('gives what the general way gives: %s', (cell) => {
    const xml = sheet(`<row r="1">${cell}<c r="Z1"><v>5</v></c></row><row r="2"><c><v>1</v></c>${cell}</row>`);
    expect(outcome(() => new SheetScanner(full), xml)).toEqual(outcome(() => new GeneralScanner(full), xml));
  });

  it('gives what the general way gives for a row of every cell, cut at every point, and a value past maxChars', () => {
    // the cells a part may hold one after the other (past XFD, the next cell without r is refused)
    const ok = cells.filter((c) => !/xfd/i.test(c) && !('erro' in (outcome(() => new GeneralScanner(full), sheet(`<row r="1">${c}</row>`)) as object)));
    const xml = sheet(`<row r="1">${ok.join('')}</row><row>${ok.join('')}</row>`);
    const expected = outcome(() => new GeneralScanner(full), xml);
    expect(expected).toHaveLength(2);
    for (let cut = 1; cut < xml.length; cut++) {
      expect(outcome(() => new SheetScanner(full), xml, [cut]), `cut at ${cut}`).toEqual(expected);
    }
    const long = sheet('<row r="1"><c r="A1" t="str"><v>abcdefghij</v></c><c r="B1"><v>123</v></c></row>');
    const cap = (S: typeof SheetScanner) => () => new S(full, 4);
    expect(outcome(cap(SheetScanner), long)).toEqual(outcome(cap(GeneralScanner), long));
    expect(JSON.stringify(outcome(cap(SheetScanner), long))).toContain('abcd');
  });

  it('takes the common cells itself (the general way does not run for them)', () => {
    let general = 0;
    class Counting extends SheetScanner {
      protected override fastPath(s: string, i: number, name: string): number {
        if (name === 'c') general += 1;
        return super.fastPath(s, i, name);
      }
    }
    outcome(() => new Counting(full), sheet('<row r="1"><c r="A1" s="2" t="s"><v>1</v></c><c r="B1"><v>2</v></c><c r="C1"/></row>'));
    expect(general).toBe(0);
    outcome(() => new Counting(full), sheet('<row r="1"><c r="A1" x="1"><v>1</v></c></row>'));
    expect(general).toBe(1);
  });
});
