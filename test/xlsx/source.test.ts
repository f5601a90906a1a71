/**
 * ByteSource: the zip checks and the workbook work the same over a Buffer and over a file
 * on disk (read with positional reads, never loaded whole).
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError, WorkbookError, openWorkbook } from '../../src/xlsx/index.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/xlsx/limits.js';
import { BufferSource, FileSource } from '../../src/xlsx/source.js';
import { entryChunks, extractEntry, readCentralDirectory, verifyEntry } from '../../src/xlsx/zip.js';
import { rowsOf } from '../../src/xlsx/workbook.js';
import { buildMeta } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';

const dir = mkdtempSync(join(tmpdir(), 'xlsx-source-'));
function onDisk(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

async function allRows(input: Buffer | string): Promise<Array<[string, number, unknown[]]>> {
  const wb = await openWorkbook(input);
  const out: Array<[string, number, unknown[]]> = [];
  try {
    for await (const { sheet, batches } of wb.pass(wb.sheets)) {
      for await (const row of rowsOf(batches)) out.push([sheet.name, row.number, Array.from(row.values)]);
    }
  } finally {
    await wb.close();
  }
  return out;
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('ByteSource', () => {
  it('BufferSource and FileSource read the same bytes, short only past the end', async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const file = await FileSource.open(onDisk('bytes.bin', bytes));
    const buf = new BufferSource(bytes);
    try {
      expect(file.size).toBe(3000);
      for (const [off, len] of [[0, 10], [2990, 10], [2995, 10], [1234, 0], [5000, 4]] as const) {
        expect((await file.read(off, len)).equals(await buf.read(off, len))).toBe(true);
      }
      expect((await file.read(2995, 10)).length).toBe(5);
    } finally {
      await file.close();
    }
    await expect(file.read(0, 1)).rejects.toThrow(/fechada/);
  });

  it('the central directory, entry checks and streamed entries are the same from a file', async () => {
    const bytes = await buildMeta({ rows: 500 });
    const path = onDisk('meta.xlsx', bytes);
    const file = await FileSource.open(path);
    try {
      const a = await readCentralDirectory(bytes, DEFAULT_ARCHIVE_LIMITS, null);
      const b = await readCentralDirectory(file, DEFAULT_ARCHIVE_LIMITS, null);
      expect(b.entries).toEqual(a.entries);
      for (const e of b.entries) {
        await verifyEntry(file, e, null);
        const whole = await extractEntry(bytes, e, null);
        const chunks: Buffer[] = [];
        for await (const c of entryChunks(file, e, null, 1024)) chunks.push(c);
        expect(Buffer.concat(chunks).equals(whole)).toBe(true);
        expect((await extractEntry(file, e, null)).equals(whole)).toBe(true);
      }
    } finally {
      await file.close();
    }
  });

  it('openWorkbook(path) reads the same rows as openWorkbook(buffer), and releases its descriptor', async () => {
    const bytes = await buildMeta({ rows: 300 });
    const path = onDisk('meta2.xlsx', bytes);
    const fromBuffer = await allRows(bytes);
    const before = openFds();
    const fromFile = await allRows(path);
    expect(fromFile).toEqual(fromBuffer);
    expect(fromFile.length).toBe(301);
    expect(openFds()).toBe(before);
  });

  it('a hostile archive on disk is refused like the same bytes in memory, and its descriptor released', async () => {
    const hostile = makeZip([{ name: '../x.xml', data: 'x' }]);
    const path = onDisk('hostile.xlsx', hostile);
    const before = openFds();
    const a = await openWorkbook(hostile).then(() => null, (e: unknown) => e);
    const b = await openWorkbook(path).then(() => null, (e: unknown) => e);
    expect(b).toBeInstanceOf(WorkbookError);
    expect((b as Error).message).toBe((a as Error).message);
    expect(openFds()).toBe(before);
    const text = onDisk('texto.xlsx', Buffer.from('a;b\n'));
    await expect(openWorkbook(text)).rejects.toThrow('formato não suportado: o arquivo não é uma planilha (.xlsx, .xls ou .ods)');
    // the zip checks over a source throw ArchiveError, as over a Buffer
    const file = await FileSource.open(path);
    try {
      await expect(readCentralDirectory(file, DEFAULT_ARCHIVE_LIMITS, null)).rejects.toBeInstanceOf(ArchiveError);
    } finally {
      await file.close();
    }
  });

  it('a missing path is a clear error', async () => {
    await expect(openWorkbook(join(dir, 'nao-existe.xlsx'))).rejects.toThrow(/ENOENT/);
  });
});
