/**
 * The `.ods` scanner (src/xlsx/ods-scanner.ts) against the saxes reader it replaced
 * (ods-saxes-reference.ts): odd but valid tables, hostile ones, and generated ones, each read by
 * the scanner cut into two pieces at every character (and into many pieces at random points),
 * must give the same rows — or be refused with the same message — as saxes read whole.
 */
import { describe, expect, it } from 'vitest';
import { TruncatedText } from '../../src/xlsx/cells.js';
import { OdsTableScanner, type OdsPrefixes } from '../../src/xlsx/ods-scanner.js';
import { type Rows, saxesTableRows } from './ods-saxes-reference.js';

type Prefixes = OdsPrefixes & { decls: string };
const NS = {
  office: 'urn:oasis:names:tc:opendocument:xmlns:office:1.0',
  table: 'urn:oasis:names:tc:opendocument:xmlns:table:1.0',
  text: 'urn:oasis:names:tc:opendocument:xmlns:text:1.0',
  calcext: 'urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0',
};
const decls = (p: OdsPrefixes) => (Object.keys(NS) as Array<keyof typeof NS>).map((k) => `xmlns:${p[k]}="${NS[k]}"`).join(' ');
const STD: Prefixes = { table: 'table', office: 'office', text: 'text', calcext: 'calcext', decls: '' };
STD.decls = decls(STD);
/** The same content with the prefixes another writer might declare. */
const ODD: Prefixes = { table: 'ta', office: 'of', text: 'tx', calcext: 'ce', decls: '' };
ODD.decls = decls(ODD);
const withPrefixes = (xml: string, p: OdsPrefixes) => xml.replace(/\b(table|office|text|calcext):/g, (_, k: keyof OdsPrefixes) => `${p[k]}:`);

const END = '</office:spreadsheet></office:body></office:document-content>';

/** The scanner fed `pieces` in order, rows taken after each piece as ods.ts takes them. */
function scan(p: OdsPrefixes, pieces: string[], max: number, date1904 = false): Rows | string {
  const sc = new OdsTableScanner(p, max, date1904);
  const out: Rows = [];
  try {
    for (const piece of pieces) {
      sc.write(piece);
      for (const r of sc.rows) for (let i = 0; i < r.repeat; i++) out.push({ number: r.number + i, values: r.values });
      sc.rows.length = 0;
      if (sc.done) break;
    }
    if (!sc.done) throw new Error('content.xml termina antes do fim da aba');
  } catch (err) {
    return (err as Error).message;
  }
  return out;
}

/** Compares the scanner, cut at every character (two pieces), with saxes on the whole. */
function sameAtEveryCut(xml: string, o: { max?: number; date1904?: boolean; prefixes?: Prefixes } = {}): Rows | string {
  const p = o.prefixes ?? STD;
  const max = o.max ?? 32_767;
  const doc = withPrefixes(xml, p);
  const expected = saxesTableRows(p, doc, max, o.date1904 ?? false);
  expect(scan(p, [doc], max, o.date1904)).toEqual(expected);
  for (let k = 1; k < doc.length; k++) {
    const got = scan(p, [doc.slice(0, k), doc.slice(k)], max, o.date1904);
    if (JSON.stringify(got) !== JSON.stringify(expected)) expect({ cut: k, got }).toEqual({ cut: k, got: expected });
  }
  return expected;
}

const cell = (attrs: string, body = '') => body === '' ? `<table:table-cell ${attrs}/>` : `<table:table-cell ${attrs}>${body}</table:table-cell>`;
const table = (rows: string, name = 'P') => `<table:table table:name="${name}" table:style-name="ta1">${rows}</table:table>`;

const VALID: Array<[string, string, { max?: number; date1904?: boolean }?]> = [
  ['LibreOffice: columns, styles, calcext types, an empty tail', table(`<table:table-column table:style-name="co1" table:number-columns-repeated="3" table:default-cell-style-name="Default"/>`
    + `<table:table-row table:style-name="ro1">${cell('office:value-type="string" calcext:value-type="string"', '<text:p>Olá, ção</text:p>')}${cell('office:value-type="float" office:value="1234.5" calcext:value-type="float"', '<text:p>1234,5</text:p>')}`
    + `${cell('table:number-columns-repeated="2"')}${cell('office:value-type="date" office:date-value="2026-11-30" calcext:value-type="date"', '<text:p>30/11/2026</text:p>')}</table:table-row>`
    + `<table:table-row table:number-rows-repeated="1048573"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`
    + `<table:table-row><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`) + END],
  ['SheetJS: pretty-printed, CRLF and CR between tags and in text', table(`\r\n  <table:table-row>\r\n    ${cell('office:value-type="string"', '<text:p>a\r\nb\rc</text:p>')}\r\n    ${cell('office:value-type="float" office:value="2"', '<text:p>2</text:p>')}\n  </table:table-row>\r\n`) + `\r\n${END}`],
  ['entities in text and in every attribute', table(`<table:table-row>${cell('office:value-type="string" table:style-name="a&amp;b"', '<text:p>&amp;&lt;&gt;&quot;&apos;&#233;&#xE9;&#x1F600;&#10;x</text:p>')}`
    + `${cell('office:value-type="string" office:string-value="x&#10;y&#9;z&amp;\tw\r\nv"', '<text:p>ignored</text:p>')}${cell(`office:value-type='float' office:value = ' 1e3 '`, '<text:p>1000</text:p>')}</table:table-row>`) + END],
  ['spaces, tabs, line breaks, spans, links, paragraphs, annotations', table(`<table:table-row>${cell('office:value-type="string"',
    '<office:annotation><dc:creator>x</dc:creator><text:p>nota <text:s text:c="3"/></text:p><text:p>2</text:p></office:annotation><text:p>a<text:s/>b<text:s text:c="2"/>c<text:tab/>d<text:line-break/>e</text:p>'
    + '<text:p/><text:p><text:span text:style-name="T1">f<text:s text:c="x"/>g</text:span><text:a xlink:href="http://x?a=1&amp;b=2">h</text:a></text:p><text:p>i<text:s text:c="0"/>j</text:p>')}`
    + `${cell('office:value-type="string"', '<text:p></text:p>')}${cell('office:value-type="string"', '<text:h>t</text:h><text:list><text:list-item><text:p>li</text:p></text:list-item></text:list>')}</table:table-row>`) + END],
  ['every value type', table(`<table:table-row>${[
    'office:value-type="float" office:value="-0.5"', 'office:value-type="float" office:value=""', 'office:value-type="float" office:value="abc"', 'office:value-type="float"',
    'office:value-type="percentage" office:value="0.25"', 'office:value-type="currency" office:currency="BRL" office:value="10.5"',
    'office:value-type="date" office:date-value="2026-11-30T10:20:30"', 'office:value-type="date" office:date-value="2026-11-30T10:20:30-03:00"', 'office:value-type="date" office:date-value="amanhã"', 'office:value-type="date"',
    'office:value-type="time" office:time-value="PT10H10M10S"', 'office:value-type="time" office:time-value="P1DT2H"', 'office:value-type="time" office:time-value="-PT1H"', 'office:value-type="time" office:time-value="10:10"',
    'office:value-type="boolean" office:boolean-value="true"', 'office:value-type="boolean" office:boolean-value="false"', 'office:value-type="boolean" office:boolean-value="1"', 'office:value-type="boolean"',
    'office:value-type="string" office:string-value=""', 'calcext:value-type="error" office:value-type="float" office:value="0"', 'calcext:value-type="error"', 'calcext:value-type="float" office:value="7"', 'office:value-type="void"',
    'office:value-type="float" office:value="3" table:formula="of:=1+2"',
  ].map((a, i) => cell(a, `<text:p>v${i}</text:p>`)).join('')}${cell('calcext:value-type="error"', '<text:p> #DIV/0! </text:p>')}</table:table-row>`) + END, { date1904: true }],
  ['covered cells, repeated cells and rows, header rows, row groups, a nested table', table(`<table:table-header-rows><table:table-row table:number-rows-repeated="2">${cell('table:number-columns-repeated="3" office:value-type="float" office:value="1"')}<table:covered-table-cell table:number-columns-repeated="2"/>${cell('office:value-type="float" office:value="2"')}</table:table-row></table:table-header-rows>`
    + `<table:table-row-group><table:table-row><table:covered-table-cell office:value-type="float" office:value="9"><text:p>9</text:p></table:covered-table-cell>${cell('', `<text:p>sub</text:p>${table('<table:table-row><table:table-cell office:value-type="float" office:value="5"/></table:table-row>', 'Sub')}`)}</table:table-row></table:table-row-group>`
    + `<table:table-row table:number-rows-repeated="3"><table:table-cell/></table:table-row><table:table-row table:number-rows-repeated="x">${cell('office:value-type="float" office:value="4"')}</table:table-row>`) + END],
  ['comments, processing instructions, markup-looking attribute values', table(`<!-- <table:table-row> --><table:table-row><?pi <x>?>${cell('office:value-type="string" table:style-name="a>b" table:content-validation-name=\'c"d\'',
    '<text:p>a<!-- no -->b<?x y?>c</text:p>')}</table:table-row>`) + `<!-- after -->${END}`],
  ['long text cut at the cell limit, a surrogate pair at the cut', table(`<table:table-row>${cell('office:value-type="string"', `<text:p>${'x'.repeat(9)}😀yz</text:p>`)}${cell('office:value-type="string"', '<text:p>0123456789</text:p><text:p>abc</text:p>')}${cell('office:value-type="string" office:string-value="ab😀cdefghijk"', '<text:p>x</text:p>')}${cell('office:value-type="string"', '<text:p>a<text:s text:c="40"/>b</text:p>')}</table:table-row>`) + END, { max: 10 }],
  ['tags with tabs and new lines inside, self-closing with spaces', table(`<table:table-row\n\ttable:style-name="r"\n><table:table-cell\toffice:value-type="float"\r\n office:value="8"  /><table:table-cell office:value-type="string" ><text:p >q<text:s text:c="2" /></text:p ></table:table-cell ></table:table-row >`) + END],
  ['text outside the cells and paragraphs is not a value', table(`x y<table:table-row>z${cell('office:value-type="string"', 'w<text:p>in</text:p>v')}</table:table-row>t`) + END],
  ['multi-byte text, other scripts', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>Ω 中文 عربى 🇧🇷 ﬁ</text:p>')}</table:table-row>`) + END],
  ['rows after the end tag are not read', table(`<table:table-row>${cell('office:value-type="float" office:value="1"')}</table:table-row>`) + `<table:table table:name="Q"><table:table-row>${cell('office:value-type="float" office:value="2"')}</table:table-row></table:table>${END}`],
];

const REFUSED: Array<[string, string]> = [
  ['an undeclared entity in a cell', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>&lol9;</text:p>')}</table:table-row>`) + END],
  ['an undeclared entity between rows', table('<table:table-row/> &lol9; ') + END],
  ['an undeclared entity in an attribute nobody reads', table(`<table:table-row>${cell('office:value-type="float" office:value="1" table:style-name="&lol9;"')}</table:table-row>`) + END],
  ['an undeclared entity in a value read', table(`<table:table-row>${cell('office:value-type="float" office:value="&lol9;"')}</table:table-row>`) + END],
  ['a bare & (saxes reads the name on to the next ;)', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>a & b</text:p>')}${cell('office:value-type="string"', '<text:p>&amp;</text:p>')}</table:table-row>`) + END],
  ['an & without ; in an attribute', table(`<table:table-row>${cell('office:value-type="string" table:style-name="a&amp"', '<text:p>x;</text:p>')}</table:table-row>`) + END],
  ['an empty entity', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>&;</text:p>')}</table:table-row>`) + END],
  ['a character reference to no character', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>&#xD800;</text:p>')}</table:table-row>`) + END],
  ['a character reference to NUL', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>&#0;</text:p>')}</table:table-row>`) + END],
  ['a malformed character reference', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>&#x;&#12a;</text:p>')}</table:table-row>`) + END],
  ['a control character in text', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>a\u0001b</text:p>')}</table:table-row>`) + END],
  ['a control character between rows', table('<table:table-row/>\u0008') + END],
  ['U+FFFF in text', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>\uffff</text:p>')}</table:table-row>`) + END],
  ['a < in an attribute', table(`<table:table-row>${cell('office:value-type="string" table:style-name="a<b"', '<text:p>x</text:p>')}</table:table-row>`) + END],
  ['an unquoted attribute', table(`<table:table-row>${cell('office:value-type=float office:value="1"')}</table:table-row>`) + END],
  ['a close tag that closes nothing open', table(`<table:table-row>${cell('office:value-type="string"', '<text:p>x</text:span></text:p>')}</table:table-row>`) + END],
  ['a close tag over an open element', table(`<table:table-row>${cell('office:value-type="string"', '<text:p><text:span>x</text:p>')}</table:table-row>`) + END],
  ['the document ends inside the table', table(`<table:table-row>${cell('office:value-type="float" office:value="1"')}</table:table-row>`).replace('</table:table>', '')],
  ['a cell past XFD', table(`<table:table-row><table:table-cell table:number-columns-repeated="16384"/>${cell('office:value-type="float" office:value="1"')}</table:table-row>`) + END],
  ['a row past 1,048,576', table(`<table:table-row table:number-rows-repeated="1048576"/><table:table-row>${cell('office:value-type="float" office:value="1"')}</table:table-row>`) + END],
  ['a repetition bomb', table(`<table:table-row table:number-rows-repeated="1000000">${cell('table:number-columns-repeated="16384" office:value-type="float" office:value="1"')}</table:table-row>`) + END],
];

describe('the .ods scanner gives what the saxes reader gave, cut at every character', () => {
  for (const [what, xml, o] of VALID) {
    it(what, () => {
      const rows = sameAtEveryCut(xml, o);
      expect(Array.isArray(rows) && rows.length > 0).toBe(true);
      sameAtEveryCut(xml, { ...o, prefixes: ODD });
    });
  }

  it('what those tables hold (the reference itself is checked, not only compared)', () => {
    const [, xml] = VALID.find(([w]) => w.startsWith('spaces, tabs'))!;
    expect(scan(STD, [xml], 32_767)).toEqual([{ number: 1, values: ['a b  c\td\ne\n\nf gh\ni j', undefined, 'li'] }]);
    const [, cut, o] = VALID.find(([w]) => w.startsWith('long text'))!;
    const values = (scan(STD, [cut], o!.max!) as Rows)[0]!.values as TruncatedText[];
    expect(values.map((v) => [v.text, v.chars])).toEqual([['xxxxxxxxx', 13], ['0123456789', 14], ['ab😀cdefgh', 13], ['a' + ' '.repeat(9), 12]]);
  });

  for (const [what, xml] of REFUSED) {
    it(`refused alike: ${what}`, () => {
      const msg = sameAtEveryCut(xml);
      expect(typeof msg).toBe('string');
    });
  }

  it('the refusals are the staff words of xml-motivo.ts', () => {
    const msg = (xml: string) => scan(STD, [xml], 32_767);
    expect(msg(REFUSED[0]![1])).toBe('XML: entidade não declarada (só as cinco entidades do XML são aceitas)');
    expect(msg(REFUSED[4]![1])).toBe('XML: referência de entidade com nome inválido');
    expect(msg(REFUSED[7]![1])).toBe('XML: referência de caractere inválida');
    expect(msg(REFUSED[10]![1])).toBe('XML: caractere não permitido');
    expect(msg(REFUSED[14]![1])).toBe('XML: atributo sem aspas');
    expect(msg(REFUSED[15]![1])).toBe('XML: fechamento de elemento inesperado');
    expect(msg(REFUSED[16]![1])).toBe('XML: fechamento de elemento inesperado');
  });

  it('a run of text over 1 Mi characters across chunks is refused, as before', () => {
    const xml = table(`<table:table-row>${cell('office:value-type="string"', `<text:p>${'z'.repeat(1_100_000)}</text:p>`)}</table:table-row>`) + END;
    const pieces: string[] = [];
    for (let at = 0; at < xml.length; at += 65_536) pieces.push(xml.slice(at, at + 65_536));
    const expected = saxesTableRows(STD, xml, 32_767, false);
    expect(expected).toBe('XML: marcação ou texto com mais de 1048576 caracteres');
    expect(scan(STD, pieces, 32_767)).toBe(expected);
  });

  it('on purpose unlike saxes: a CDATA section is text; an empty self-closing table is an empty tab; a bare & is refused where it is', () => {
    const cdata = table(`<table:table-row>${cell('office:value-type="string"', '<text:p>a<![CDATA[<b>&amp;]]>c</text:p>')}</table:table-row>`) + END;
    expect(saxesTableRows(STD, cdata, 100, false)).toEqual([{ number: 1, values: ['ac'] }]);
    for (let k = 1; k < cdata.length; k++) expect(scan(STD, [cdata.slice(0, k), cdata.slice(k)], 100)).toEqual([{ number: 1, values: ['a<b>&amp;c'] }]);
    const empty = `<table:table table:name="Vazia"/>${table(`<table:table-row>${cell('office:value-type="float" office:value="1"')}</table:table-row>`, 'Q')}${END}`;
    expect(typeof saxesTableRows(STD, empty, 100, false)).toBe('string');
    expect(scan(STD, [empty], 100)).toEqual([]);
    const bare = table(`<table:table-row>${cell('office:value-type="string"', '<text:p>a & b</text:p>')}</table:table-row>`) + END;
    expect(saxesTableRows(STD, bare, 100, false)).toBe('content.xml termina antes do fim da aba');
    for (let k = 1; k < bare.length; k++) expect(scan(STD, [bare.slice(0, k), bare.slice(k)], 100)).toBe('XML: referência de entidade com nome inválido');
  });
});

describe('generated tables: the scanner cut at random points gives what saxes gave', () => {
  // a small deterministic generator (mulberry32) of odd but valid content
  function rng(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const TEXTS = ['a', 'Ção', '&amp;', '&lt;x&gt;', '&#233;', '😀', ' ', '\r\n', '\r', '\t', 'R$ 1.234,56', '', '0', '"q"', "'", '>'];
  const WS = ['', '', ' ', '\n', '\r\n  ', '\t'];
  function paragraph(r: () => number): string {
    let body = '';
    for (let i = Math.floor(r() * 4); i > 0; i--) {
      body += pick(r, [
        () => pick(r, TEXTS), () => `<text:s${r() < 0.5 ? '' : ` text:c="${Math.floor(r() * 4)}"`}/>`, () => '<text:tab/>', () => '<text:line-break/>',
        () => `<text:span text:style-name="T${Math.floor(r() * 3)}">${pick(r, TEXTS)}</text:span>`, () => '<!-- c -->', () => '<?pi x?>',
      ])();
    }
    return r() < 0.1 ? '<text:p/>' : `<text:p>${body}</text:p>`;
  }
  function cellXml(r: () => number): string {
    if (r() < 0.1) return `<table:covered-table-cell${r() < 0.3 ? ` table:number-columns-repeated="${1 + Math.floor(r() * 3)}"` : ''}/>`;
    const attrs: string[] = [];
    const type = pick(r, ['string', 'float', 'percentage', 'currency', 'date', 'time', 'boolean', null, 'void']);
    if (type) attrs.push(`office:value-type="${type}"`);
    if (type === 'float' || type === 'percentage' || type === 'currency') attrs.push(`office:value="${pick(r, ['1', '-2.5', '1e-7', '12345678901234567', 'x', ''])}"`);
    if (type === 'date' && r() < 0.8) attrs.push(`office:date-value="${pick(r, ['2026-11-30', '2026-11-30T01:02:03', '1899-12-30', 'x'])}"`);
    if (type === 'time' && r() < 0.8) attrs.push(`office:time-value="${pick(r, ['PT1H', 'PT23H59M59S', 'PT0.5S', 'x'])}"`);
    if (type === 'boolean' && r() < 0.8) attrs.push(`office:boolean-value="${pick(r, ['true', 'false', '1', '0'])}"`);
    if (r() < 0.1) attrs.push(`office:string-value="${pick(r, TEXTS.filter((t) => t !== '>' && t !== "'" && t !== '"q"'))}"`);
    if (r() < 0.1) attrs.push(`calcext:value-type="${pick(r, ['error', 'float', 'string'])}"`);
    if (r() < 0.2) attrs.push(`table:number-columns-repeated="${pick(r, ['2', '3', '0', 'x'])}"`);
    if (r() < 0.3) attrs.push(`table:style-name="ce${Math.floor(r() * 9)}"`);
    const sep = pick(r, [' ', ' ', '\n', '\t ']);
    let body = '';
    for (let i = Math.floor(r() * 3); i > 0; i--) body += r() < 0.1 ? `<office:annotation>${paragraph(r)}</office:annotation>` : paragraph(r);
    const start = `<table:table-cell${attrs.length ? sep + attrs.join(sep) : ''}`;
    return body === '' && r() < 0.7 ? `${start}/>` : `${start}>${body}</table:table-cell>`;
  }
  function tableXml(r: () => number): string {
    let rows = '';
    for (let i = 1 + Math.floor(r() * 5); i > 0; i--) {
      let cells = '';
      for (let j = Math.floor(r() * 6); j > 0; j--) cells += pick(r, WS) + cellXml(r);
      const rep = r() < 0.2 ? ` table:number-rows-repeated="${1 + Math.floor(r() * 3)}"` : '';
      rows += `${pick(r, WS)}<table:table-row${rep}>${cells}</table:table-row>`;
    }
    return `<table:table table:name="G">${rows}${pick(r, WS)}</table:table>${END}`;
  }

  it('300 tables, each cut in two at 20 random points and in many pieces', () => {
    const r = rng(33);
    let compared = 0;
    for (let n = 0; n < 300; n++) {
      const p = n % 2 === 0 ? STD : ODD;
      const doc = withPrefixes(tableXml(r), p);
      const max = n % 5 === 0 ? 3 : 32_767;
      const expected = saxesTableRows(p, doc, max, n % 3 === 0);
      const cuts: string[][] = [[doc]];
      for (let k = 0; k < 20; k++) {
        const at = 1 + Math.floor(r() * (doc.length - 1));
        cuts.push([doc.slice(0, at), doc.slice(at)]);
      }
      const many: string[] = [];
      for (let at = 0; at < doc.length;) { const len = 1 + Math.floor(r() * 12); many.push(doc.slice(at, at + len)); at += len; }
      cuts.push(many);
      for (const pieces of cuts) {
        const got = scan(p, pieces, max, n % 3 === 0);
        if (JSON.stringify(got) !== JSON.stringify(expected)) expect({ doc, pieces, got }).toEqual({ doc, pieces, got: expected });
        compared++;
      }
    }
    expect(compared).toBe(300 * 22);
  });
});
