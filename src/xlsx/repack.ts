/**
 * Canonical repack: the stream that exceljs' WorkbookReader reads is not the stored file
 * but a zip we write on the fly from it, with the parts exceljs needs in the order its
 * streaming reader needs them, under the names it expects:
 *
 *   [Content_Types].xml, _rels/.rels, xl/workbook.xml, xl/_rels/workbook.xml.rels  (written by us)
 *   xl/styles.xml                    (the file's styles part, if any)
 *   xl/sharedStrings.xml             (the file's shared strings, or an empty table)
 *   xl/worksheets/sheet1.xml …       (only the sheets asked for, in the order asked)
 *
 * This removes, without touching exceljs, the crash when workbook.xml comes after the
 * sheets, the buffering of sheets to temporary files when sharedStrings.xml comes late or
 * is missing, and the blindness to sheet parts not named `xl/worksheets/sheetN.xml`.
 * Our workbook.xml names sheet k `sheetId=k`, so exceljs' worksheet id is our index.
 *
 * Entry data is copied raw (still deflated) as zero-copy slices of the stored bytes:
 * no inflate, no deflate. The archive was validated first (central directory, overlap).
 */
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { ZipEntry } from './zip.js';

interface Piece { name: string; method: 0 | 8; crc: number; csize: number; usize: number; data: Buffer }

const CHUNK = 64 * 1024;

function xmlAttr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

function generated(name: string, text: string): Piece {
  const data = Buffer.from(text, 'utf8');
  return { name, method: 0, crc: crc32(data) >>> 0, csize: data.length, usize: data.length, data };
}

function raw(name: string, bytes: Buffer, e: ZipEntry): Piece {
  return { name, method: e.method, crc: e.crc32 >>> 0, csize: e.compressedSize, usize: e.uncompressedSize, data: bytes.subarray(e.dataStart, e.dataEnd) };
}

function localHeader(p: Piece, nameBuf: Buffer): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4); // version needed
  h.writeUInt16LE(0x0800, 6); // UTF-8 names, no data descriptor
  h.writeUInt16LE(p.method, 8);
  h.writeUInt16LE(0, 10); // time
  h.writeUInt16LE(0x21, 12); // date 1980-01-01
  h.writeUInt32LE(p.crc, 14);
  h.writeUInt32LE(p.csize, 18);
  h.writeUInt32LE(p.usize, 22);
  h.writeUInt16LE(nameBuf.length, 26);
  h.writeUInt16LE(0, 28);
  return h;
}

function centralHeader(p: Piece, nameBuf: Buffer, offset: number): Buffer {
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(20, 6);
  h.writeUInt16LE(0x0800, 8);
  h.writeUInt16LE(p.method, 10);
  h.writeUInt16LE(0, 12);
  h.writeUInt16LE(0x21, 14);
  h.writeUInt32LE(p.crc, 16);
  h.writeUInt32LE(p.csize, 20);
  h.writeUInt32LE(p.usize, 24);
  h.writeUInt16LE(nameBuf.length, 28);
  h.writeUInt32LE(offset, 42);
  return h;
}

export interface RepackInput {
  bytes: Buffer;
  date1904: boolean;
  styles: ZipEntry | null;
  sharedStrings: ZipEntry | null;
  /** Sheets to include, in order: their names and parts. */
  sheets: Array<{ name: string; part: ZipEntry }>;
}

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';

export function canonicalParts(input: RepackInput): Piece[] {
  const ct = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const sheetsXml = input.sheets.map((s, i) => `<sheet name="${xmlAttr(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  const sheetRels = input.sheets.map((_, i) =>
    `<Relationship Id="rId${i + 1}" Type="${NS_R}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('');
  const sheetTypes = input.sheets.map((_, i) =>
    `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${ct}.worksheet+xml"/>`).join('');
  const pieces: Piece[] = [
    generated('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
      + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      + '<Default Extension="xml" ContentType="application/xml"/>'
      + `<Override PartName="/xl/workbook.xml" ContentType="${ct}.sheet.main+xml"/>`
      + `<Override PartName="/xl/styles.xml" ContentType="${ct}.styles+xml"/>`
      + `<Override PartName="/xl/sharedStrings.xml" ContentType="${ct}.sharedStrings+xml"/>`
      + `${sheetTypes}</Types>`),
    generated('_rels/.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${NS_PKG}">`
      + `<Relationship Id="rId1" Type="${NS_R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`),
    generated('xl/workbook.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${NS_MAIN}" xmlns:r="${NS_R}">`
      + `<workbookPr${input.date1904 ? ' date1904="1"' : ''}/><sheets>${sheetsXml}</sheets></workbook>`),
    generated('xl/_rels/workbook.xml.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${NS_PKG}">`
      + `${sheetRels}<Relationship Id="rIdStyles" Type="${NS_R}/styles" Target="styles.xml"/>`
      + `<Relationship Id="rIdStrings" Type="${NS_R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`),
  ];
  if (input.styles) pieces.push(raw('xl/styles.xml', input.bytes, input.styles));
  pieces.push(input.sharedStrings
    ? raw('xl/sharedStrings.xml', input.bytes, input.sharedStrings)
    : generated('xl/sharedStrings.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${NS_MAIN}" count="0" uniqueCount="0"/>`));
  input.sheets.forEach((s, i) => pieces.push(raw(`xl/worksheets/sheet${i + 1}.xml`, input.bytes, s.part)));
  return pieces;
}

function* zipChunks(pieces: Piece[]): Generator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  for (const p of pieces) {
    const nameBuf = Buffer.from(p.name, 'utf8');
    central.push(centralHeader(p, nameBuf, offset), nameBuf);
    const head = localHeader(p, nameBuf);
    yield head;
    yield nameBuf;
    offset += head.length + nameBuf.length;
    for (let i = 0; i < p.data.length; i += CHUNK) yield p.data.subarray(i, Math.min(i + CHUNK, p.data.length));
    offset += p.data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(pieces.length, 8);
  end.writeUInt16LE(pieces.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  yield cd;
  yield end;
}

/** The canonical archive as a stream of zero-copy slices. */
export function canonicalStream(input: RepackInput): Readable {
  return Readable.from(zipChunks(canonicalParts(input)), { objectMode: false, highWaterMark: CHUNK });
}

/** The canonical archive as one Buffer (tests, debugging). */
export function canonicalBuffer(input: RepackInput): Buffer {
  return Buffer.concat([...zipChunks(canonicalParts(input))]);
}
