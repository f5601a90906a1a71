import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../src/errors.js';
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS, openWorkbook } from '../../src/xlsx/index.js';
import { checkArchive, inspectUpload, planUpload } from '../../src/planilhas/upload.js';
import { FileSource } from '../../src/xlsx/source.js';
import { UnreadableZipError, readCentralDirectory } from '../../src/xlsx/zip.js';
import { buildMeta } from '../fixtures/builder.js';
import { handmadeXlsx } from '../fixtures/handmade.js';
import { makeZip } from '../fixtures/zip.js';

const tinyXlsx = () => handmadeXlsx({ sheets: [{ name: 'Plan1', rows: [['a', 1]] }] });

async function refusal(p: Promise<unknown>): Promise<ArchiveError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ArchiveError);
  return err as ArchiveError;
}

/** A Compound File (OLE2) header, optionally with the stream name of an encrypted OOXML. */
function cfb(encrypted: boolean): Buffer {
  const head = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  const body = Buffer.alloc(1024);
  const name = encrypted ? Buffer.from('EncryptedPackage', 'utf16le') : Buffer.from('Workbook', 'utf16le');
  name.copy(body, 512);
  return Buffer.concat([head, body]);
}

describe('inspectUpload: what is accepted', () => {
  it('a loose xlsx is one entry holding the very bytes sent', async () => {
    const bytes = await buildMeta({ rows: 3 });
    const r = await inspectUpload(bytes, 'C:\\Users\\ana\\metas nov.xlsx');
    expect(r.kind).toBe('xlsx');
    expect(r.entries).toHaveLength(1);
    const e = r.entries[0];
    expect(e.ok && e.arquivo).toBe('metas nov.xlsx');
    expect(e.ok && e.bytes.equals(bytes)).toBe(true);
  });

  it('a batch zip: xlsx entries extracted, other entries reported as ignored, folders skipped', async () => {
    const a = tinyXlsx();
    const b = await buildMeta({ rows: 2 });
    const zip = makeZip([
      { name: 'lote/', data: '', method: 'store' },
      { name: 'lote/relatorio.xlsx', data: a },
      { name: 'lote/metas.XLSX', data: b, method: 'store' },
      { name: 'lote/leia-me.pdf', data: '%PDF-1.4 ...' },
      { name: '__MACOSX/lote/._relatorio.xlsx', data: 'apple double' },
      { name: 'lote/~$relatorio.xlsx', data: 'lock' },
      { name: 'lote/notas.txt', data: 'x' },
    ]);
    const r = await inspectUpload(zip, 'lote.zip');
    expect(r.kind).toBe('zip');
    expect(r.entries.map((e) => [e.arquivo, e.ok])).toEqual([
      ['lote/relatorio.xlsx', true],
      ['lote/metas.XLSX', true],
      ['lote/leia-me.pdf', false],
      ['__MACOSX/lote/._relatorio.xlsx', false],
      ['lote/~$relatorio.xlsx', false],
      ['lote/notas.txt', false],
    ]);
    const [x1, x2, pdf, mac, lock] = r.entries;
    expect(x1!.ok && x1!.bytes.equals(a)).toBe(true);
    expect(x2!.ok && x2!.bytes.equals(b)).toBe(true);
    expect(!pdf!.ok && pdf!.motivo).toMatch(/^não é uma planilha \(\.xlsx, \.xls ou \.ods\), ignorado$/);
    expect(!mac!.ok && mac!.motivo).toMatch(/__MACOSX/);
    expect(!lock!.ok && lock!.motivo).toMatch(/bloqueio/);
  });

  it('the content decides, not the name: an xlsx sent as .zip is an xlsx', async () => {
    const r = await inspectUpload(tinyXlsx(), 'lote.zip');
    expect(r.kind).toBe('xlsx');
  });

  it('a batch without any xlsx is still a batch (all entries ignored)', async () => {
    const r = await inspectUpload(makeZip([{ name: 'a.pdf', data: 'x' }]), 'lote.zip');
    expect(r).toMatchObject({ kind: 'zip', entries: [{ arquivo: 'a.pdf', ok: false }] });
  });

  it('an .xlsx entry that is not a zip (password-protected) is accepted, and fails later as formato não suportado', async () => {
    const r = await inspectUpload(makeZip([{ name: 'protegida.xlsx', data: cfb(true) }, { name: 'ok.xlsx', data: tinyXlsx() }]), 'lote.zip');
    expect(r.entries.map((e) => e.ok)).toEqual([true, true]);
    const e = r.entries[0]!;
    await expect(openWorkbook(e.ok ? e.bytes : Buffer.alloc(0))).rejects.toThrow(/^formato não suportado: arquivo protegido por senha/);
  });
});

describe('inspectUpload: refusals (nothing stored)', () => {
  it('an empty file', async () => {
    const err = await refusal(inspectUpload(Buffer.alloc(0), 'a.xlsx'));
    expect([err.status, err.motivo]).toEqual([400, 'arquivo vazio']);
  });

  it('an upload over the size limit is 413', async () => {
    const err = await refusal(inspectUpload(tinyXlsx(), 'a.xlsx', { maxUploadBytes: 1024 }));
    expect(err.status).toBe(413);
    expect(err.motivo).toMatch(/limite de envio é 1 KiB/);
  });

  it('a loose damaged .xls, password-protected xlsx or non-zip is accepted as is, and openWorkbook says why it cannot be read', async () => {
    const cases: Array<[Buffer, string, string]> = [
      [cfb(false), 'antiga.xls', 'formato não suportado: arquivo .xls corrompido (ordem de bytes inválida)'],
      [cfb(true), 'protegida.xlsx', 'formato não suportado: arquivo protegido por senha; remova a senha no Excel e envie novamente'],
      [Buffer.from('filial;nota\n1;2\n'), 'dados.xlsx', 'formato não suportado: o arquivo não é uma planilha (.xlsx, .xls ou .ods)'],
    ];
    for (const [bytes, name, motivo] of cases) {
      const r = await inspectUpload(bytes, name);
      expect(r).toEqual({ kind: 'xlsx', entries: [{ arquivo: name, ok: true, bytes }] });
      await expect(openWorkbook(bytes)).rejects.toThrow(motivo);
    }
  });

  it('is an HttpProblem with code XL<status>, so the problem plugin answers it as is', async () => {
    const err = await refusal(inspectUpload(tinyXlsx(), 'a.xlsx', { maxUploadBytes: 1024 }));
    expect(err).toBeInstanceOf(HttpProblem);
    expect(err.code).toBe('XL413');
    expect(err.title).toBe('Conteúdo grande demais');
  });

  it('too many entries is 413 (limit configurable)', async () => {
    const zip = makeZip([1, 2, 3].map((i) => ({ name: `${i}.pdf`, data: 'x' })));
    const err = await refusal(inspectUpload(zip, 'lote.zip', { maxEntries: 2 }));
    expect(err.status).toBe(413);
    expect(err.motivo).toBe('o zip tem 3 entradas; o limite é 2');
    await expect(inspectUpload(zip, 'lote.zip', { maxEntries: 3 })).resolves.toMatchObject({ kind: 'zip' });
  });

  it('more than the total uncompressed limit is 413', async () => {
    const big = Buffer.alloc(600 * 1024, 'a');
    const zip = makeZip([{ name: 'a.pdf', data: big }, { name: 'b.pdf', data: big }]);
    const err = await refusal(inspectUpload(zip, 'lote.zip', { maxTotalUncompressedBytes: 1024 * 1024 }));
    expect(err.status).toBe(413);
    expect(err.motivo).toMatch(/passa de 1 MiB/);
  });

  it('a compression ratio above the limit (zip bomb) is 413', async () => {
    const zip = makeZip([{ name: 'bomba.xlsx', data: Buffer.alloc(8 * 1024 * 1024) }]); // ~1000:1
    const err = await refusal(inspectUpload(zip, 'lote.zip'));
    expect(err.status).toBe(413);
    expect(err.motivo).toMatch(/^a entrada 'bomba\.xlsx' tem razão de compressão \d+:1, acima do limite de 200:1$/);
    expect(DEFAULT_ARCHIVE_LIMITS.maxRatio).toBe(200);
  });

  it('a bomb hidden in one xlsx of a batch refuses the whole upload, naming the entry', async () => {
    const inner = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(8 * 1024 * 1024, ' ') }]);
    const zip = makeZip([{ name: 'boa.xlsx', data: tinyXlsx() }, { name: 'ruim.xlsx', data: inner, method: 'store' }]);
    const err = await refusal(inspectUpload(zip, 'lote.zip'));
    expect(err.status).toBe(413);
    expect(err.motivo).toMatch(/^ruim\.xlsx: a entrada 'xl\/worksheets\/sheet1\.xml' tem razão de compressão/);
  });

  it.each([
    ['../../etc/cron.d/x.xlsx'],
    ['/etc/passwd.xlsx'],
    ['C:/Windows/x.xlsx'],
    ['lote\\..\\..\\x.xlsx'],
  ])('zip slip name %s is 400', async (name) => {
    const err = await refusal(inspectUpload(makeZip([{ name, data: 'x' }]), 'lote.zip'));
    expect(err.status).toBe(400);
    expect(err.motivo).toBe('caminho de entrada fora do arquivo (zip slip)');
  });

  it('an encrypted entry is 400', async () => {
    const err = await refusal(inspectUpload(makeZip([{ name: 'a.xlsx', data: 'x', flags: 0x1 }]), 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "a entrada 'a.xlsx' está protegida por senha"]);
  });

  it('an entry that inflates to more, or less, than declared is 400', async () => {
    const data = Buffer.alloc(100_000, 'x');
    const more = await refusal(inspectUpload(makeZip([{ name: 'a.pdf', data, declaredSize: 1000 }]), 'lote.zip'));
    expect([more.status, more.motivo]).toEqual([400, "a entrada 'a.pdf' descompacta mais que os 1000 bytes declarados"]);
    const less = await refusal(inspectUpload(makeZip([{ name: 'a.xlsx', data, declaredSize: 200_000 }]), 'lote.zip'));
    expect([less.status, less.motivo]).toEqual([400, "a entrada 'a.xlsx' descompacta menos que o tamanho declarado"]);
    const moreXlsx = await refusal(inspectUpload(makeZip([{ name: 'b.xlsx', data, declaredSize: 1000 }]), 'lote.zip'));
    expect([moreXlsx.status, moreXlsx.motivo]).toEqual([400, "a entrada 'b.xlsx' descompacta mais que os 1000 bytes declarados"]);
    const stored = await refusal(inspectUpload(makeZip([{ name: 'a.pdf', data: 'abc', method: 'store', declaredSize: 2 }]), 'lote.zip'));
    expect(stored.status).toBe(400);
  });

  it('a part of a loose xlsx whose real size differs from the declared one is 400', async () => {
    const x = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/workbook.xml', data: '<workbook/>'.repeat(100), declaredSize: 10 }]);
    const err = await refusal(inspectUpload(x, 'a.xlsx'));
    expect(err.motivo).toBe("a entrada 'xl/workbook.xml' descompacta mais que os 10 bytes declarados");
  });

  it('a CRC mismatch is 400', async () => {
    const err = await refusal(inspectUpload(makeZip([{ name: 'a.pdf', data: 'conteúdo', crc: 12345 }]), 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "a entrada 'a.pdf' está corrompida (CRC não confere)"]);
  });

  it('overlapping entries (data shared between entries) are 400', async () => {
    const zip = makeZip([{ name: 'a.pdf', data: 'aaaa', method: 'store', coverNext: true }, { name: 'b.pdf', data: 'bbbb', method: 'store' }]);
    const err = await refusal(inspectUpload(zip, 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "as entradas 'a.pdf' e 'b.pdf' se sobrepõem (zip malicioso)"]);
  });

  it('a local header name differing from the central directory is 400', async () => {
    const err = await refusal(inspectUpload(makeZip([{ name: 'a.pdf', localName: '../a.xlsx', data: 'x' }]), 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "o nome da entrada 'a.pdf' difere entre o cabeçalho local e o diretório central"]);
  });

  it('duplicate entry names are 400', async () => {
    const err = await refusal(inspectUpload(makeZip([{ name: 'a.xlsx', data: 'x' }, { name: 'A.xlsx', data: 'y' }]), 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "entrada duplicada: 'A.xlsx'"]);
  });

  it('a zip inside the zip is 400', async () => {
    const zip = makeZip([{ name: 'ok.xlsx', data: tinyXlsx() }, { name: 'mais/outro.zip', data: makeZip([{ name: 'x.xlsx', data: 'x' }]) }]);
    const err = await refusal(inspectUpload(zip, 'lote.zip'));
    expect([err.status, err.motivo]).toEqual([400, "o zip contém outro zip ('mais/outro.zip'); envie as planilhas .xlsx diretamente no zip"]);
  });

  it('a truncated zip and an unsupported compression method are 400', async () => {
    const full = makeZip([{ name: 'a.pdf', data: deflateRawSync(Buffer.alloc(10)) }]);
    const trunc = await refusal(inspectUpload(full.subarray(0, full.length - 10), 'lote.zip'));
    expect(trunc.status).toBe(400);
    expect(trunc.motivo).toMatch(/diretório central do zip não encontrado|zip inválido/);
    const m = makeZip([{ name: 'a.pdf', data: 'x', method: 'store' }]);
    m.writeUInt16LE(12, 8); // local header: bzip2
    m.writeUInt16LE(12, m.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10); // central header too
    const method = await refusal(inspectUpload(m, 'lote.zip'));
    expect([method.status, method.motivo]).toEqual([400, "a entrada 'a.pdf' usa um método de compressão não suportado (12)"]);
  });
});

describe('a truncated spreadsheet (a cut download or attachment)', () => {
  // the end-of-directory record kept but pointing past the end (the fuzzers' cases), or gone
  const cortes = async () => {
    const inteiro = await buildMeta({ rows: 3 });
    return {
      meio: Buffer.concat([inteiro.subarray(0, 200), inteiro.subarray(inteiro.length - 22)]),
      metade: inteiro.subarray(0, inteiro.length >> 1),
      inteiro,
    };
  };

  it('its directory is unreadable (UnreadableZipError), from memory and from a file, never an unhandled rejection', async () => {
    const { meio, metade } = await cortes();
    const dir = mkdtempSync(join(tmpdir(), 'bi-trunc-'));
    try {
      for (const [bytes, motivo] of [[meio, 'arquivo truncado: o diretório central do zip aponta para além do fim do arquivo'],
        [metade, 'diretório central do zip não encontrado (arquivo truncado ou não é um zip)']] as const) {
        const err = await refusal(readCentralDirectory(bytes, DEFAULT_ARCHIVE_LIMITS, null));
        expect([err.constructor, err.status, err.motivo]).toEqual([UnreadableZipError, 400, motivo]);
        const path = join(dir, 'x.xlsx');
        writeFileSync(path, bytes);
        const src = await FileSource.open(path);
        const deArquivo = await refusal(readCentralDirectory(src, DEFAULT_ARCHIVE_LIMITS, null)).finally(() => src.close());
        expect([deArquivo.constructor, deArquivo.motivo]).toEqual([UnreadableZipError, motivo]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loose, it is received (its processing ends ERRO with the reason); a batch (.zip) that cannot be read is refused', async () => {
    const { meio, metade } = await cortes();
    for (const bytes of [meio, metade]) {
      expect(await planUpload(bytes, 'vendas.xlsx')).toEqual({ kind: 'arquivo', arquivo: 'vendas.xlsx', zip: false });
      await expect(openWorkbook(bytes)).rejects.toThrow(/^formato não suportado: (arquivo truncado|diretório central do zip não encontrado)/);
    }
    expect((await refusal(planUpload(metade, 'lote.zip'))).motivo).toMatch(/diretório central do zip não encontrado/);
  });

  it('inside a batch, it does not refuse its batch: checkArchive says "not a zip" and its processing ends ERRO', async () => {
    const { meio, inteiro } = await cortes();
    const lote = makeZip([{ name: 'ok.xlsx', data: inteiro }, { name: 'cortado.xlsx', data: meio }]);
    const r = await inspectUpload(lote, 'lote.zip');
    expect(r.entries.map((e) => [e.arquivo, e.ok])).toEqual([['ok.xlsx', true], ['cortado.xlsx', true]]);
    expect(await checkArchive(meio, DEFAULT_ARCHIVE_LIMITS, 'cortado.xlsx')).toBe(false);
    // a hostile structure still refuses it
    const dup = makeZip([{ name: 'a.xml', data: 'x' }, { name: 'A.xml', data: 'y' }]);
    await refusal(checkArchive(dup, DEFAULT_ARCHIVE_LIMITS, 'dup.xlsx'));
  });
});
