/**
 * A minimal zip writer (entries stored, not compressed: .xlsx files are zips already) used
 * by the import page to pack the uploaded spreadsheets into one batch, exactly like a .zip
 * sent to POST /api/xls/processar. Names are UTF-8 (flag bit 11). Entries come from files
 * already on disk (their size and CRC-32 known) and the zip is written to a file, streamed:
 * nothing is held whole. Classic zip only (no zip64): the whole must stay under 4 GiB.
 */
import { createReadStream } from 'node:fs';
import { type TempFile, writeTempFile } from './temp-file.js';

export interface EntradaArmazenada {
  nome: string;
  path: string;
  size: number;
  crc32: number;
}

/** The largest zip this writer produces (32-bit offsets and sizes). */
export const ZIP_MAX_BYTES = 0xffffffff;

/** The size of the zip `zipArmazenadoArquivo` writes for these entries (checked before writing). */
export function tamanhoZipArmazenado(entries: ReadonlyArray<{ nome: string; size: number }>): number {
  let total = 22;
  for (const e of entries) total += 30 + 46 + 2 * Buffer.byteLength(e.nome, 'utf8') + e.size;
  return total;
}

function localHeader(nome: Buffer, e: EntradaArmazenada): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(0x0800, 6);
  h.writeUInt16LE(0, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(0x21, 12);
  h.writeUInt32LE(e.crc32 >>> 0, 14);
  h.writeUInt32LE(e.size, 18);
  h.writeUInt32LE(e.size, 22);
  h.writeUInt16LE(nome.length, 26);
  h.writeUInt16LE(0, 28);
  return h;
}

function centralHeader(nome: Buffer, e: EntradaArmazenada, offset: number): Buffer {
  const c = Buffer.alloc(46);
  c.writeUInt32LE(0x02014b50, 0);
  c.writeUInt16LE(20, 4);
  c.writeUInt16LE(20, 6);
  c.writeUInt16LE(0x0800, 8);
  c.writeUInt16LE(0, 10);
  c.writeUInt16LE(0, 12);
  c.writeUInt16LE(0x21, 14);
  c.writeUInt32LE(e.crc32 >>> 0, 16);
  c.writeUInt32LE(e.size, 20);
  c.writeUInt32LE(e.size, 24);
  c.writeUInt16LE(nome.length, 28);
  c.writeUInt32LE(offset, 42);
  return c;
}

/** Writes the zip of `entries` to `path` (must not exist), streaming each entry from its file. */
export async function zipArmazenadoArquivo(entries: readonly EntradaArmazenada[], path: string): Promise<TempFile> {
  const total = tamanhoZipArmazenado(entries);
  if (total > ZIP_MAX_BYTES) throw new Error(`zip de ${total} bytes passa do limite de 4 GiB`);
  async function* bytes(): AsyncGenerator<Buffer> {
    const central: Buffer[] = [];
    let offset = 0;
    for (const e of entries) {
      const nome = Buffer.from(e.nome, 'utf8');
      yield localHeader(nome, e);
      yield nome;
      let n = 0;
      for await (const chunk of createReadStream(e.path, { highWaterMark: 1 << 20 })) {
        n += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (n !== e.size) throw new Error(`${e.path}: ${n} bytes, esperado ${e.size}`);
      central.push(centralHeader(nome, e, offset), nome);
      offset += 30 + nome.length + e.size;
    }
    const cd = Buffer.concat(central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(cd.length, 12);
    end.writeUInt32LE(offset, 16);
    yield cd;
    yield end;
  }
  return writeTempFile(bytes(), path);
}
