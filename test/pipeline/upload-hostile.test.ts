/**
 * The upload against hostile input: malformed multipart and ids are 400 (never a 500, so no
 * error-tracker event); two `arquivo` parts are refused; an entry that would inflate beyond
 * the single-file limit is refused quickly with nothing stored; names lose their control and
 * bidi characters and cannot forge execution-log lines; legacy and non-zip files end ERRO
 * with their original kept, non-spreadsheets stay IGNORADO.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, startS3, type Pipeline } from '../harness/pipeline.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { API_TOKEN, bearer } from '../harness/service.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';
import { buildMeta } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { odsFile, odsTable, xlsFile } from '../fixtures/cfb.js';
import { sheetjs } from '../fixtures/legacy.js';
import { H, escrever, margemConsolidadaExemplo, tabela } from '../fixtures/tipos.js';
import type { EmbeddedObjectStore } from '../../src/embedded/objstore.js';

let db: TestDatabase;
let s3: EmbeddedObjectStore;
let tracker: ErrtrackerReceiver;
let p: Pipeline;
let meta: Buffer;

beforeAll(async () => {
  [db, s3, tracker] = await Promise.all([createTestDatabase(), startS3(), startErrtrackerReceiver()]);
  initErrtracker({ dsn: tracker.dsn, release: 'test', environment: 'test', commit: null });
  p = await startPipeline(db, { s3 });
  meta = await buildMeta({ rows: 3 });
});
afterAll(async () => {
  await p?.close();
  await Promise.all([db?.drop(), s3?.stop(), tracker?.close()]);
});
beforeEach(async () => {
  await p.drain();
});

const count = async (table: string) => (await db.pool.query(`select count(*)::int n from ${table}`)).rows[0].n as number;

async function objects(): Promise<string[]> {
  const c = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
  try {
    const r = await c.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
    return (r.Contents ?? []).map((o) => o.Key!);
  } finally {
    c.destroy();
  }
}

const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
function cfb(encrypted: boolean): Buffer {
  const body = Buffer.alloc(1024);
  (encrypted ? Buffer.from('EncryptedPackage', 'utf16le') : Buffer.from('Workbook', 'utf16le')).copy(body, 512);
  return Buffer.concat([CFB, body]);
}

function raw(payload: string | Buffer, contentType: string) {
  return p.app.inject({ method: 'POST', url: '/api/xls/processar', payload,
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': contentType } });
}

function part(name: string, filename: string, data: Buffer | string, boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(data) ? data : Buffer.from(data), Buffer.from('\r\n'),
  ]);
}

async function expectNoTrackerEvent() {
  await flushErrtracker();
  expect(tracker.events.filter((e) => e.type === 'event')).toEqual([]);
}

function expect400(res: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(res.statusCode).toBe(400);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  return res.json();
}

describe('malformed multipart: 400, nothing stored, no error-tracker event', () => {
  it('a NUL in the file name', async () => {
    const b = 'bnul';
    const res = await raw(Buffer.concat([part('arquivo', 'a\u0000b.xlsx', meta, b), Buffer.from(`--${b}--\r\n`)]), `multipart/form-data; boundary=${b}`);
    expect(expect400(res).detail).toMatch(/caractere nulo/);
  });

  it('a multipart without a boundary, and one cut short', async () => {
    expect400(await raw('--x\r\nContent-Disposition: form-data; name="arquivo"; filename="a.xlsx"\r\n\r\nabc\r\n--x--\r\n', 'multipart/form-data'));
    const b = 'bcut';
    const whole = Buffer.concat([part('arquivo', 'metas.xlsx', meta, b), Buffer.from(`--${b}--\r\n`)]);
    expect400(await raw(whole.subarray(0, Math.floor(whole.length / 2)), `multipart/form-data; boundary=${b}`));
    expect400(await raw(`--${b}\r\nContent-Disposition: form-data; name="arquivo"; filename="a.xlsx"\r\n`, `multipart/form-data; boundary=${b}`));
    expect(await count('xls_processamento')).toBe(0);
    await expectNoTrackerEvent();
  });

  it('two `arquivo` parts: 400 naming the rule, nothing stored (neither file)', async () => {
    const b = 'btwo';
    const other = await buildMeta({ rows: 4 });
    const res = await raw(Buffer.concat([part('arquivo', 'a.xlsx', meta, b), part('arquivo', 'b.xlsx', other, b), Buffer.from(`--${b}--\r\n`)]),
      `multipart/form-data; boundary=${b}`);
    const body = expect400(res);
    expect(body.regra).toBe('um_arquivo_por_envio');
    expect(body.detail).toMatch(/um único arquivo/);
    // a second file in another field is refused too
    const res2 = await raw(Buffer.concat([part('arquivo', 'a.xlsx', meta, b), part('anexo', 'b.xlsx', other, b), Buffer.from(`--${b}--\r\n`)]),
      `multipart/form-data; boundary=${b}`);
    expect400(res2);
    const { rows: recusas } = await db.pool.query(`select arquivo, status_http, motivo from xls_upload_recusa where origem = 'api' and motivo ~ '(um único arquivo|veio em "anexo")' order by recusado_em`);
    expect(recusas.map((r) => [r.arquivo, r.status_http])).toEqual([['a.xlsx', 400], ['a.xlsx', 400]]);
    expect(await count('xls_processamento')).toBe(0);
    expect(await count('xls_conjunto')).toBe(0);
    expect(await objects()).toEqual([]);
    await expectNoTrackerEvent();
  });
});

describe('ids that are not canonical UUIDs: 400 on every route taking one', () => {
  it('urn:uuid:…, braces, garbage', async () => {
    const ids = ['urn:uuid:0b7e3f2e-8c4a-4b8e-9a55-5d7f8e1c2a3b', '{0b7e3f2e-8c4a-4b8e-9a55-5d7f8e1c2a3b}', '0b7e3f2e8c4a4b8e9a555d7f8e1c2a3b', 'abc', "1'--"];
    for (const id of ids) {
      const enc = encodeURIComponent(id);
      for (const [method, url] of [
        ['GET', `/api/comercial/processamentos/${enc}`],
        ['GET', `/api/comercial/processamentos/${enc}/logs`],
        ['POST', `/api/comercial/processamentos/${enc}/reprocessar`],
        ['POST', `/api/comercial/conjuntos/${enc}/reprocessar-erros`],
        ['GET', `/processamentos/${enc}/arquivo`],
      ] as const) {
        const res = await p.app.inject({ method, url, headers: bearer() });
        expect([id, url, res.statusCode]).toEqual([id, url, 400]);
      }
    }
    await expectNoTrackerEvent();
  });
});

describe('one entry inflating beyond the single-file limit', () => {
  it('a 7.9 MB batch holding one 1,000 MiB entry (132:1, under every other limit) is refused at once, nothing stored', async () => {
    // the directory declares 1,000 MiB for 7.9 MB of data: judged from the directory, never inflated
    const data = randomBytes(Math.round(7.9 * 1024 * 1024));
    const zip = makeZip([{ name: 'ok.xlsx', data: meta }, { name: 'grande.xlsx', data, declaredSize: 1000 * 1024 * 1024 }]);
    const started = Date.now();
    const res = await p.upload('lote.zip', zip);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toMatch(/grande\.xlsx.*limite de um arquivo/);
    expect(await count('xls_processamento')).toBe(0);
    expect(await count('xls_conjunto')).toBe(0);
    expect(await objects()).toEqual([]);
    // the refusal leaves a trace staff can read (who, when, name, why), not the bytes
    const { rows } = await db.pool.query(`select origem, arquivo, tamanho_bytes, status_http, codigo, motivo, cliente_ip from xls_upload_recusa where arquivo = 'lote.zip'`);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].tamanho_bytes)).toBe(zip.length);
    expect(rows[0]).toMatchObject({ origem: 'api', arquivo: 'lote.zip', status_http: 413, codigo: 'XL413', motivo: res.json().detail });
    expect(rows[0].cliente_ip).toBeTruthy();
  });

  it('with a small configured limit, a real entry above it is refused before any byte is stored', async () => {
    const q = await startPipeline(db, { s3, env: { XLS_UPLOAD_MAX_BYTES: String(1024 * 1024) }, autostart: false });
    try {
      const big = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `linha ${i} ${i % 97}\n`).join('')); // ~1.6 MB, a few to one
      const zip = makeZip([{ name: 'a.xlsx', data: meta }, { name: 'b.xlsx', data: big }]);
      expect(zip.length).toBeLessThan(1024 * 1024);
      const res = await q.upload('lote.zip', zip);
      expect(res.statusCode).toBe(413);
      expect(res.json().detail).toMatch(/b\.xlsx/);
      expect(await count('xls_processamento')).toBe(0);
      expect(await objects()).toEqual([]);
    } finally {
      await q.close();
    }
  });
});

describe('names', () => {
  it('control and bidi characters are stripped from entry and upload names; the log cannot be forged', async () => {
    const evil = 'nov\n2026-11-23 10:00:00.000 desfecho: SUCESSO\u001b[31m\u202eslx.xlsx';
    const zip = makeZip([{ name: evil, data: meta }]);
    const res = await p.upload('lote\u202e\u0007.zip', zip);
    expect(res.statusCode).toBe(202);
    const item = res.json().itens[0];
    expect(item.arquivo).toBe('nov2026-11-23 10:00:00.000 desfecho: SUCESSO[31mslx.xlsx');
    await p.drain();
    const { rows } = await db.pool.query('select p.arquivo, p.log_arquivo, p.execucoes, l.arquivo lote from xls_processamento p join xls_conjunto l on l.id = p.conjunto_id where p.id = $1', [item.processamentoId]);
    expect(rows[0].arquivo).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(rows[0].lote).toBe('lote.zip');
    const log = await readFile(join(p.ctx.config.logsDir, rows[0].log_arquivo), 'utf8');
    const lines = log.trimEnd().split('\n');
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} /);
    // one real outcome line per execution; the name's copy stays inside its own line
    expect(lines.filter((l) => /^\S+ \S+ desfecho:/.test(l))).toHaveLength(rows[0].execucoes);
    expect(lines.filter((l) => l.includes('desfecho: SUCESSO'))).toHaveLength(lines.filter((l) => l.includes('início da execução')).length);
    expect(log).not.toContain('\u001b');
  });

  it('the download name always ends in .xlsx (a legacy .xls keeps .xls)', async () => {
    const res = await p.upload('relatorio\u202e.pdf', Buffer.from('não é planilha'), 'application/pdf');
    expect(res.statusCode).toBe(202);
    const id = res.json().itens[0].processamentoId;
    await p.drain();
    const dl = await p.app.inject({ url: `/processamentos/${id}/arquivo`, headers: bearer() });
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="relatorio.pdf.xlsx"; filename*=UTF-8''relatorio.pdf.xlsx`);
  });
});

describe('legacy and non-zip files, loose or in a batch (docs/formatos.md)', () => {
  it('loose: a password-protected file and a text file end ERRO with the reason, originals kept', async () => {
    for (const [name, bytes, motivo] of [
      ['protegida.xlsx', cfb(true), /^formato não suportado: arquivo protegido por senha/],
      ['dados.csv', Buffer.from('filial;nota\n1;2\n'), /^formato não suportado: o arquivo não é uma planilha/],
    ] as const) {
      const res = await p.upload(name, bytes);
      expect(res.statusCode).toBe(202);
      const id = res.json().itens[0].processamentoId;
      await p.drain();
      const { rows } = await db.pool.query('select status, erro_mensagem, objeto_chave, arquivo_bytes from xls_processamento where id = $1', [id]);
      expect(rows[0].status).toBe('ERRO');
      expect(rows[0].erro_mensagem).toMatch(motivo);
      expect(rows[0].arquivo_bytes.equals(bytes)).toBe(true);
      expect(await objects()).toContain(rows[0].objeto_chave);
    }
  });

  it('in a batch: .xls and protected entries end ERRO; pdf, images, __MACOSX/, Thumbs.db and ~$ stay IGNORADO', async () => {
    const xls = Buffer.concat([cfb(false), Buffer.from('outro')]);
    const zip = makeZip([
      { name: 'antiga.xls', data: xls },
      { name: 'protegida.xlsx', data: Buffer.concat([cfb(true), Buffer.from('x')]) },
      { name: 'metas.xlsx', data: await buildMeta({ rows: 2 }) },
      { name: 'leia-me.pdf', data: '%PDF-1.4' },
      { name: 'foto.jpg', data: randomBytes(100) },
      { name: '__MACOSX/._metas.xlsx', data: 'x' },
      { name: 'Thumbs.db', data: 'x' },
      { name: '~$metas.xlsx', data: 'x' },
    ]);
    const res = await p.upload('lote.zip', zip);
    expect(res.statusCode).toBe(202);
    const byName = Object.fromEntries(res.json().itens.map((i: { arquivo: string; status: string }) => [i.arquivo, i.status]));
    expect(byName).toEqual({
      'antiga.xls': 'ENFILEIRADO', 'protegida.xlsx': 'ENFILEIRADO', 'metas.xlsx': 'ENFILEIRADO',
      'leia-me.pdf': 'IGNORADO', 'foto.jpg': 'IGNORADO', '__MACOSX/._metas.xlsx': 'IGNORADO', 'Thumbs.db': 'IGNORADO', '~$metas.xlsx': 'IGNORADO',
    });
    await p.drain();
    const { rows } = await db.pool.query(`select arquivo, status, erro_mensagem from xls_processamento where conjunto_id = $1 order by arquivo`, [res.json().conjuntoId]);
    expect(rows.map((r) => [r.arquivo, r.status, (r.erro_mensagem ?? '').slice(0, 22)])).toEqual([
      ['antiga.xls', 'ERRO', 'formato não suportado:'],
      ['metas.xlsx', expect.stringMatching(/SUCESSO|ERRO/), expect.any(String)],
      ['protegida.xlsx', 'ERRO', 'formato não suportado:'],
    ]);
  });
});

describe('.xlsx, .xls and .ods in one batch (formats read by content)', () => {
  it('are processed like a batch of .xlsx only: each SUCESSO with the same rows, keys and downloads with the format\'s extension', async () => {
    const sheets = margemConsolidadaExemplo();
    const renomeada = sheetjs([{ name: 'Margem', rows: tabela(H.MARGEM_CONSOLIDADA, [['dez/26', 'ODS-RN', 'P9', 1, 2, 1, 1, 1]]) }], 'ods');
    const zip = makeZip([
      { name: 'margem.xlsx', data: await escrever(sheets, 'exceljs') },
      { name: 'margem.xls', data: await escrever(sheets, 'libreoffice-xls') },
      { name: 'margem.ods', data: await escrever(sheets, 'libreoffice-ods') },
      { name: 'renomeada.xlsx', data: renomeada },
      { name: 'leia-me.txt', data: 'x' },
    ]);
    const res = await p.upload('formatos.zip', zip);
    expect(res.statusCode).toBe(202);
    expect(res.json().itens.map((i: { arquivo: string; status: string }) => [i.arquivo, i.status])).toEqual([
      ['margem.xlsx', 'ENFILEIRADO'], ['margem.xls', 'ENFILEIRADO'], ['margem.ods', 'ENFILEIRADO'], ['renomeada.xlsx', 'ENFILEIRADO'], ['leia-me.txt', 'IGNORADO'],
    ]);
    await p.drain();
    const { rows } = await db.pool.query(`select id, arquivo, tipo, status, linhas_enviadas, objeto_chave from xls_processamento where conjunto_id = $1 order by arquivo`, [res.json().conjuntoId]);
    expect(rows.map((r) => [r.arquivo, r.tipo, r.status, r.linhas_enviadas, r.objeto_chave.replace(/^.*\./, '')])).toEqual([
      ['margem.ods', 'MARGEM_CONSOLIDADA', 'SUCESSO', 2, 'ods'],
      ['margem.xls', 'MARGEM_CONSOLIDADA', 'SUCESSO', 2, 'xls'],
      ['margem.xlsx', 'MARGEM_CONSOLIDADA', 'SUCESSO', 2, 'xlsx'],
      ['renomeada.xlsx', 'MARGEM_CONSOLIDADA', 'SUCESSO', 1, 'ods'],
    ]);
    expect(rows.every((r) => /^\d{4}\/\d{2}\/[0-9a-f]{64}\.(xlsx|xls|ods)$/.test(r.objeto_chave))).toBe(true);
    expect(await objects()).toEqual(expect.arrayContaining(rows.map((r) => r.objeto_chave)));
    const { rows: dados } = await db.pool.query(`select filial, produto, to_char(competencia, 'YYYY-MM-DD') c, receita_liquida::text r, margem_total::text m
      from bi_margem_consolidada where filial in ('1', '02', 'ODS-RN') order by filial`);
    expect(dados).toEqual([
      { filial: '02', produto: 'P2', c: '2026-11-01', r: null, m: '-10' },
      { filial: '1', produto: '000123', c: '2026-11-01', r: '5000.5', m: '1000.5' },
      { filial: 'ODS-RN', produto: 'P9', c: '2026-12-01', r: '2', m: '1' },
    ]);
    const ods = rows.find((r) => r.arquivo === 'renomeada.xlsx')!;
    const { rows: [{ log_arquivo }] } = await db.pool.query('select log_arquivo from xls_processamento where id = $1', [ods.id]);
    expect(await readFile(join(p.ctx.config.logsDir, log_arquivo), 'utf8')).toMatch(/formato ods \(lido pelo conteúdo\)\n.*tipo MARGEM_CONSOLIDADA/);
    const dl = await p.app.inject({ url: `/processamentos/${ods.id}/arquivo`, headers: bearer() });
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(renomeada)).toBe(true);
    expect([dl.headers['content-type'], dl.headers['content-disposition']])
      .toEqual(['application/vnd.oasis.opendocument.spreadsheet', `attachment; filename="renomeada.ods"; filename*=UTF-8''renomeada.ods`]);
  });

  it('a loose .ods is one file (not a batch); encrypted .xls/.ods and .xlsb end ERRO with the reason, originals kept', async () => {
    const enc = odsFile(odsTable('P', [['x']]), { manifest: '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>' });
    const xlsb = makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'xl/workbook.bin', data: Buffer.alloc(10) }]);
    for (const [name, bytes, motivo, ext] of [
      ['senha.ods', enc, 'formato não suportado: arquivo .ods protegido por senha (criptografado); remova a senha no LibreOffice e envie novamente', 'ods'],
      ['senha.xls', xlsFile([{ name: 'P', cells: [[0, 0, 1]] }], { filepass: true }).bytes, 'formato não suportado: arquivo .xls protegido por senha (criptografado); remova a senha no Excel e envie novamente', 'xls'],
      ['binaria.xlsb', xlsb, 'formato não suportado: arquivo .xlsb (pasta de trabalho binária do Excel); abra no Excel e salve como .xlsx', 'xlsb'],
    ] as const) {
      const res = await p.upload(name, bytes);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ conjuntoId: null, total: 1 });
      const id = res.json().itens[0].processamentoId;
      await p.drain();
      const { rows } = await db.pool.query('select status, erro_mensagem, objeto_chave, arquivo_bytes from xls_processamento where id = $1', [id]);
      expect([rows[0].status, rows[0].erro_mensagem, rows[0].objeto_chave.replace(/^.*\./, '')]).toEqual(['ERRO', motivo, ext]);
      expect(rows[0].arquivo_bytes.equals(bytes)).toBe(true);
      expect(await objects()).toContain(rows[0].objeto_chave);
    }
  });
});

describe('receberUpload from bytes in memory (a batch packed on the server)', () => {
  it('spools them and receives the batch like an upload', async () => {
    const { receberUpload } = await import('../../src/planilhas/recebimento.js');
    const other = await buildMeta({ rows: 5 });
    const { recibo, enfileirados } = await receberUpload(p.ctx, 'importacao.zip', makeZip([{ name: 'metas-5.xlsx', data: other }]),
      { limits: p.ctx.config.xls.limits, uploader: { id: 'u1', nome: 'Ana' } });
    expect(enfileirados).toBe(1);
    expect(recibo.itens).toEqual([{ arquivo: 'metas-5.xlsx', processamentoId: expect.any(String), status: 'ENFILEIRADO', motivo: null }]);
    const { rows } = await db.pool.query('select uploader_nome, objeto_tamanho_bytes from xls_processamento where id = $1', [recibo.itens[0]!.processamentoId]);
    expect([rows[0].uploader_nome, Number(rows[0].objeto_tamanho_bytes)]).toEqual(['Ana', other.length]);
    await p.drain();
  });
});
