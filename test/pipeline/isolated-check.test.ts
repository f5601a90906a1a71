/**
 * The upload's archive check in a worker thread of its own (src/xls/isolated-check.ts): the
 * same verdicts as checkArchive on the main thread, and a check that yields no verdict is a 503
 * (the service's fault, never a 500 nor a refusal of the file), with no internal path shown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpProblem } from '../../src/errors.js';
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS } from '../../src/xlsx/index.js';
import { checkArchive } from '../../src/xls/upload.js';
import { checkArchiveIsolado } from '../../src/xls/isolated-check.js';
import { buildMeta } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';

const dir = mkdtempSync(join(tmpdir(), 'check-isolado-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function arquivo(nome: string, bytes: Buffer): string {
  const path = join(dir, nome);
  writeFileSync(path, bytes);
  return path;
}

/** The verdict of checkArchive on the main thread: true/false or the ArchiveError's status and reason. */
async function noPrincipal(bytes: Buffer, label: string | null, limits = DEFAULT_ARCHIVE_LIMITS): Promise<unknown> {
  try {
    return await checkArchive(bytes, limits, label);
  } catch (err) {
    if (err instanceof ArchiveError) return { status: err.status, motivo: err.motivo };
    throw err;
  }
}

async function isolado(path: string, label: string | null, limits = DEFAULT_ARCHIVE_LIMITS, heapMb?: number): Promise<unknown> {
  try {
    return await checkArchiveIsolado(path, limits, label, heapMb);
  } catch (err) {
    if (err instanceof ArchiveError) return { status: err.status, motivo: err.motivo };
    throw err;
  }
}

describe('checkArchiveIsolado gives the verdicts of checkArchive', () => {
  it('a sound xlsx passes; a file that is not a zip is no archive (false), refusing nothing', async () => {
    const xlsx = await buildMeta({ rows: 3 });
    expect(await isolado(arquivo('metas.xlsx', xlsx), null)).toBe(true);
    const texto = Buffer.from('filial;vendedor\n1;2\n');
    expect(await isolado(arquivo('texto.xlsx', texto), null)).toBe(false);
    expect(await noPrincipal(texto, null)).toBe(false);
  });

  it('a part whose CRC differs: 400 with the same reason, and the label of a batch entry', async () => {
    const corrompida = makeZip([
      { name: '[Content_Types].xml', data: '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
      { name: 'xl/workbook.xml', data: '<workbook/>'.repeat(2000), crc: 12345 },
    ]);
    const path = arquivo('corrompida.xlsx', corrompida);
    const esperado = { status: 400, motivo: "a entrada 'xl/workbook.xml' está corrompida (CRC não confere)" };
    expect(await noPrincipal(corrompida, null)).toEqual(esperado);
    expect(await isolado(path, null)).toEqual(esperado);
    const rotulo = await isolado(path, 'lote/metas.xlsx');
    expect(rotulo).toEqual(await noPrincipal(corrompida, 'lote/metas.xlsx'));
    expect((rotulo as { motivo: string }).motivo).toMatch(/^lote\/metas\.xlsx: /);
  });

  it('the limits travel to the thread: a total over maxTotalUncompressedBytes is a 413 there too', async () => {
    const xlsx = await buildMeta({ rows: 50 });
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxTotalUncompressedBytes: 1024 };
    const esperado = await noPrincipal(xlsx, null, limits);
    expect(esperado).toMatchObject({ status: 413 });
    expect(await isolado(arquivo('grande.xlsx', xlsx), null, limits)).toEqual(esperado);
  });
});

describe('no verdict: 503, nothing refused, no internal detail shown', () => {
  function esperaSemVeredito(err: unknown, causa: RegExp): void {
    expect(err).toBeInstanceOf(HttpProblem);
    expect(err).not.toBeInstanceOf(ArchiveError);
    const p = err as HttpProblem;
    expect(p.status).toBe(503);
    expect(p.message).toBe('não foi possível verificar o arquivo agora; nada foi gravado, reenvie em instantes');
    expect(p.extensions).toEqual({ retryAfter: 30 });
    expect(p.message).not.toContain(dir);
    expect(String((p.cause as Error)?.message)).toMatch(causa);
  }

  it('the file cannot be opened in the thread (gone meanwhile)', async () => {
    const err = await checkArchiveIsolado(join(dir, 'sumiu.xlsx'), DEFAULT_ARCHIVE_LIMITS, null).catch((e: unknown) => e);
    esperaSemVeredito(err, /ENOENT/);
  });

  it('the thread dies before its verdict (a heap too small to start)', async () => {
    const xlsx = await buildMeta({ rows: 3 });
    const err = await checkArchiveIsolado(arquivo('ok.xlsx', xlsx), DEFAULT_ARCHIVE_LIMITS, null, 6).catch((e: unknown) => e);
    esperaSemVeredito(err, /interrompida|sem resultado|memory|memória/i);
  });
});
