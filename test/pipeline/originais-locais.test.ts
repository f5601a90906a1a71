/**
 * The original just received, kept on this host for its processing (src/planilhas/originais-locais.ts):
 * the job takes it instead of downloading it; another processing of other bytes, another size,
 * or a second taker never gets it; the directory stays bounded; "off" always downloads. And the
 * archive check that runs while the object store takes a loose xlsx: a refused file leaves no
 * object, no row and no local copy behind.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, startS3 } from '../harness/pipeline.js';
import { buildRelatorio18 } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { createObjectStore, type ObjectStore } from '../../src/integrations/objstore.js';
import type { EmbeddedObjectStore } from '../../src/embedded/objstore.js';
import { IDADE_MAXIMA_MS, MAX_ARQUIVOS, guardarOriginal, tomarOriginal } from '../../src/planilhas/originais-locais.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const novoDir = (p: string) => mkdtempSync(join(tmpdir(), p));

describe('the local store of received originals', () => {
  it('gives a file to one taker of the same SHA-256 and size, never to another size or a second taker', async () => {
    const dir = novoDir('bi-orig-');
    const work = novoDir('bi-orig-work-');
    const bytes = Buffer.from('o conteúdo de uma planilha');
    const src = join(work, 'upload');
    writeFileSync(src, bytes);
    await guardarOriginal(dir, src, sha(bytes), bytes.length);
    expect(readdirSync(dir)).toEqual([`${sha(bytes)}-${bytes.length}`]);
    expect(readdirSync(work)).toEqual([]); // moved, not copied

    expect(await tomarOriginal(dir, sha(bytes), bytes.length + 1, join(work, 'a'))).toBe(false);
    expect(await tomarOriginal(dir, sha('outro'), bytes.length, join(work, 'a'))).toBe(false);
    expect(await tomarOriginal(dir, sha(bytes), null, join(work, 'a'))).toBe(false);
    expect(await tomarOriginal(dir, sha(bytes), bytes.length, join(work, 'b'))).toBe(true);
    expect(readdirSync(work)).toEqual(['b']);
    expect(await tomarOriginal(dir, sha(bytes), bytes.length, join(work, 'c'))).toBe(false); // taken already
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a directory that cannot be made fails nothing: the file stays where it was; a kept file of another size than its name says is not given', async () => {
    const work = novoDir('bi-orig-work-');
    const src = join(work, 'upload');
    writeFileSync(src, 'abc');
    writeFileSync(join(work, 'arquivo'), 'não é um diretório');
    await guardarOriginal(join(work, 'arquivo', 'sub'), src, sha('abc'), 3); // ENOTDIR: not thrown
    expect(readdirSync(work).sort()).toEqual(['arquivo', 'upload']);
    // tampered: the name says 5 bytes, the file holds 3
    const dir = novoDir('bi-orig-');
    writeFileSync(join(dir, `${sha('abc')}-5`), 'abc');
    expect(await tomarOriginal(dir, sha('abc'), 5, join(work, 'dest'))).toBe(false);
    expect(readdirSync(work).sort()).toEqual(['arquivo', 'upload']); // the wrong file is not left as the destination
  });

  it('"off" (no directory) keeps nothing and gives nothing; a name that is not a SHA-256 is not kept', async () => {
    const work = novoDir('bi-orig-work-');
    const src = join(work, 'upload');
    writeFileSync(src, 'x');
    await guardarOriginal(null, src, sha('x'), 1);
    expect(readdirSync(work)).toEqual(['upload']);
    expect(await tomarOriginal(null, sha('x'), 1, join(work, 'y'))).toBe(false);
    const dir = novoDir('bi-orig-');
    await guardarOriginal(dir, src, '../../etc/passwd', 1);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(work)).toEqual(['upload']);
  });

  it(`keeps at most ${MAX_ARQUIVOS} files, the newest, and drops what is older than ${IDADE_MAXIMA_MS / 60_000} minutes`, async () => {
    const dir = novoDir('bi-orig-');
    const work = novoDir('bi-orig-work-');
    const agora = Date.now() / 1000;
    const nomes: string[] = [];
    for (let i = 0; i < MAX_ARQUIVOS + 2; i++) {
      const b = Buffer.from(`planilha ${i}`);
      const p = join(work, `u${i}`);
      writeFileSync(p, b);
      utimesSync(p, agora - 100 + i, agora - 100 + i); // u0 the oldest
      await guardarOriginal(dir, p, sha(b), b.length);
      nomes.push(`${sha(b)}-${b.length}`);
    }
    expect(readdirSync(dir).sort()).toEqual(nomes.slice(2).sort());
    // one of them grows old: the next file kept removes it
    utimesSync(join(dir, nomes[5]!), agora - IDADE_MAXIMA_MS / 1000 - 60, agora - IDADE_MAXIMA_MS / 1000 - 60);
    const b = Buffer.from('mais uma');
    const p = join(work, 'ultima');
    writeFileSync(p, b);
    await guardarOriginal(dir, p, sha(b), b.length);
    const ficou = readdirSync(dir);
    expect(ficou).not.toContain(nomes[5]);
    expect(ficou).toContain(`${sha(b)}-${b.length}`);
    expect(ficou.length).toBeLessThanOrEqual(MAX_ARQUIVOS);
  });
});

describe('upload and processing with the local store (OBJSTORE)', () => {
  let db: TestDatabase;
  let s3: EmbeddedObjectStore;
  beforeAll(async () => { db = await createTestDatabase(); s3 = await startS3(); });
  afterAll(async () => { await s3?.stop(); await db?.drop(); });

  const s3env = (dir: string) => ({
    S3_FILE_STORAGE: 'OBJSTORE', S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey, XLS_ORIGINAIS_LOCAIS: dir,
  });

  it('the processing takes the file received on this host: it ends SUCESSO even with the stored object gone', async () => {
    const dir = novoDir('bi-orig-');
    const p = await startPipeline(db, { env: s3env(dir), autostart: false });
    try {
      const bytes = await buildRelatorio18({ rows: 6 });
      const res = await p.upload('local.xlsx', bytes, XLSX);
      expect(res.statusCode).toBe(202);
      const id = res.json().itens[0].processamentoId as string;
      expect(readdirSync(dir)).toEqual([`${sha(bytes)}-${bytes.length}`]);
      const { rows: [r] } = await db.pool.query('select objeto_chave from xls_processamento where id = $1', [id]);
      // without the local file the processing would have to download this object
      await p.ctx.objstore!.remove(r.objeto_chave);
      expect(await p.ctx.objstore!.exists(r.objeto_chave)).toBe(false);
      for (const run of p.runners) await run.start(null);
      await p.drain();
      const { rows: [fim] } = await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id]);
      expect(fim).toEqual({ status: 'SUCESSO', erro_mensagem: null });
      expect(readdirSync(dir)).toEqual([]); // taken: the processing's temporary directory removed it
    } finally {
      await p.close();
    }
  });

  it('the entries of a batch are kept too, each for its own processing; a duplicate is not kept', async () => {
    const dir = novoDir('bi-orig-');
    const p = await startPipeline(db, { env: s3env(dir), autostart: false });
    try {
      const a = await buildRelatorio18({ rows: 8 });
      const b = await buildRelatorio18({ rows: 9 });
      const res = await p.upload('lote.zip', makeZip([{ name: 'a.xlsx', data: a }, { name: 'b.xlsx', data: b }, { name: 'c.xlsx', data: a }]));
      expect(res.statusCode).toBe(202);
      expect(res.json().itens.map((i: { status: string }) => i.status)).toEqual(['ENFILEIRADO', 'ENFILEIRADO', 'DUPLICADO']);
      expect(readdirSync(dir).sort()).toEqual([`${sha(a)}-${a.length}`, `${sha(b)}-${b.length}`].sort());
      for (const run of p.runners) await run.start(null);
      await p.drain();
      const { rows } = await db.pool.query(`select status from xls_processamento where arquivo in ('a.xlsx', 'b.xlsx')`);
      expect(rows.map((r) => r.status)).toEqual(['SUCESSO', 'SUCESSO']);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it(`a batch of more than ${MAX_ARQUIVOS} entries keeps its first ${MAX_ARQUIVOS} during the request; the others are removed at once (downloaded by their processing)`, async () => {
    const dir = novoDir('bi-orig-');
    const p = await startPipeline(db, { env: s3env(dir), autostart: false });
    try {
      // row counts no other test of this file uses (the same bytes would be DUPLICADO)
      const livros = await Promise.all(Array.from({ length: MAX_ARQUIVOS + 2 }, (_, i) => buildRelatorio18({ rows: 20 + i })));
      const res = await p.upload('muitos.zip', makeZip(livros.map((data, i) => ({ name: `l${i}.xlsx`, data }))));
      expect(res.statusCode).toBe(202);
      const itens = res.json().itens as Array<{ status: string; processamentoId: string }>;
      expect(itens.every((i) => i.status === 'ENFILEIRADO')).toBe(true);
      // the first entries, not the newest ones the store's own pruning would leave
      expect(readdirSync(dir).sort()).toEqual(livros.slice(0, MAX_ARQUIVOS).map((b) => `${sha(b)}-${b.length}`).sort());
      for (const run of p.runners) await run.start(null);
      await p.drain();
      const { rows } = await db.pool.query(`select count(*) filter (where status = 'SUCESSO')::int as ok, count(*)::int as n from xls_processamento where id = any($1::uuid[])`,
        [itens.map((i) => i.processamentoId)]);
      expect(rows[0]).toEqual({ ok: MAX_ARQUIVOS + 2, n: MAX_ARQUIVOS + 2 });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('"off": nothing is kept, the processing downloads (and fails transiently when the object is gone)', async () => {
    const p = await startPipeline(db, { env: s3env('off'), autostart: false });
    try {
      const bytes = await buildRelatorio18({ rows: 7 });
      const res = await p.upload('sem-local.xlsx', bytes, XLSX);
      expect(res.statusCode).toBe(202);
      const id = res.json().itens[0].processamentoId as string;
      const { rows: [r] } = await db.pool.query('select objeto_chave from xls_processamento where id = $1', [id]);
      await p.ctx.objstore!.remove(r.objeto_chave);
      for (const run of p.runners) await run.start(null);
      await p.drain();
      const { rows: [fim] } = await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id]);
      expect(fim.status).toBe('ERRO');
      expect(fim.erro_mensagem).toMatch(/^object store indisponível/);
    } finally {
      await p.close();
    }
  });

  it('a loose xlsx refused by the archive check (CRC) while the store took it: 400, its object removed, no row, no local file', async () => {
    const dir = novoDir('bi-orig-');
    const real = createObjectStore({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
    const puts: string[] = [];
    const removes: string[] = [];
    const spy: ObjectStore = { ...real, bucket: real.bucket,
      put: async (key, body, len, ct) => { puts.push(key); return real.put(key, body, len, ct); },
      remove: async (key) => { removes.push(key); return real.remove(key); } };
    const p = await startPipeline(db, { env: s3env(dir), objstore: spy, autostart: false });
    try {
      const antes = (await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n;
      const xlsx = xlsxCorrompida();
      esperaRecusaCrc(await p.upload('corrompida.xlsx', xlsx, XLSX));
      // the store took it while the check ran, and it was removed again
      expect(puts).toHaveLength(1);
      expect(puts[0]).toContain(sha(xlsx));
      expect(removes).toEqual(puts);
      expect(await real.exists(puts[0]!)).toBe(false);
      expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(antes);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await p.close();
      real.destroy();
    }
  });

  it.each([
    ['the removal of its object fails', 'remove'],
    ['the store refuses the object itself', 'put'],
  ] as const)('a refused loose xlsx is still a 400 with its reason, no row, when %s at that moment', async (_caso, falha) => {
    const dir = novoDir('bi-orig-');
    const real = createObjectStore({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
    const tentativas: string[] = [];
    const spy: ObjectStore = { ...real, bucket: real.bucket,
      put: async (key, body, len, ct) => {
        tentativas.push(`put ${key}`);
        if (falha === 'put') throw new Error('object store: 503 SlowDown');
        return real.put(key, body, len, ct);
      },
      remove: async (key) => {
        tentativas.push(`remove ${key}`);
        throw new Error('object store: conexão recusada');
      } };
    const p = await startPipeline(db, { env: s3env(dir), objstore: spy, autostart: false });
    try {
      const antes = (await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n;
      const xlsx = xlsxCorrompida();
      esperaRecusaCrc(await p.upload('corrompida.xlsx', xlsx, XLSX));
      const chave = tentativas[0]!.slice('put '.length);
      // removal tried only for an object the store took; when it failed, the orphan stays (the same bytes' key)
      expect(tentativas).toEqual(falha === 'remove' ? [`put ${chave}`, `remove ${chave}`] : [`put ${chave}`]);
      expect(await real.exists(chave)).toBe(falha === 'remove');
      expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(antes);
      expect(readdirSync(dir)).toEqual([]);
      if (falha === 'remove') await real.remove(chave);
    } finally {
      await p.close();
      real.destroy();
    }
  });
});

/** A loose xlsx whose workbook entry fails the archive check (its CRC does not match). */
function xlsxCorrompida(): Buffer {
  return makeZip([
    { name: '[Content_Types].xml', data: '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: 'xl/workbook.xml', data: '<workbook/>'.repeat(2000), crc: 12345 },
  ]);
}

/** The answer to xlsxCorrompida(): 400 problem+json with the archive check's reason. */
function esperaRecusaCrc(res: { statusCode: number; headers: Record<string, unknown>; json(): { detail?: string } }): void {
  expect(res.statusCode).toBe(400);
  expect(res.headers['content-type']).toMatch(/problem\+json/);
  expect(res.json().detail).toBe("a entrada 'xl/workbook.xml' está corrompida (CRC não confere)");
}
