/**
 * A minimal zip writer (entries stored, not compressed: .xlsx files are zips already) used
 * by the import page to pack the uploaded spreadsheets into one batch, exactly like a .zip
 * sent to POST /api/xls/processar. Names are UTF-8 (flag bit 11).
 */
import { crc32 } from 'node:zlib';

export function zipArmazenado(entries: Array<{ nome: string; bytes: Buffer }>): Buffer {
  const partes: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const nome = Buffer.from(e.nome, 'utf8');
    const crc = crc32(e.bytes) >>> 0;
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(0x0800, 6);
    h.writeUInt16LE(0, 8);
    h.writeUInt16LE(0, 10);
    h.writeUInt16LE(0x21, 12);
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(e.bytes.length, 18);
    h.writeUInt32LE(e.bytes.length, 22);
    h.writeUInt16LE(nome.length, 26);
    h.writeUInt16LE(0, 28);
    partes.push(h, nome, e.bytes);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(0, 10);
    c.writeUInt16LE(0, 12);
    c.writeUInt16LE(0x21, 14);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(e.bytes.length, 20);
    c.writeUInt32LE(e.bytes.length, 24);
    c.writeUInt16LE(nome.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, nome);
    offset += 30 + nome.length + e.bytes.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...partes, cd, end]);
}
