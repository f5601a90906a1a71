/**
 * The temporary directory full during an upload: TMPDIR on a 2 MB tmpfs mounted for this test
 * (as root, like the rest of the suite's Debian setup). A 5 MB upload answers a 507 problem
 * (the API) or a 507 page (the import page), stores nothing, leaves no temporary file, and the
 * service keeps serving: a small upload right after is received and processed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { buildRelatorio18, buildWorkbook } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const IMPORTAR = 'importar-disco-0123456789';
let db: TestDatabase;
let p: Pipeline;
let mnt: string;
const tmpOriginal = process.env.TMPDIR;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('este teste monta um tmpfs: rode como root');
  db = await createTestDatabase();
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', XLS_IMPORTAR_TOKEN: IMPORTAR } });
  mnt = mkdtempSync(join(tmpdir(), 'bi-disco-cheio-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt]);
  process.env.TMPDIR = mnt;
});
afterAll(async () => {
  process.env.TMPDIR = tmpOriginal;
  if (tmpOriginal === undefined) delete process.env.TMPDIR;
  await p?.close();
  await db?.drop();
  if (mnt) {
    try { execFileSync('umount', [mnt]); } catch { /* not mounted */ }
    rmSync(mnt, { recursive: true, force: true });
  }
});

/** A zip of 5 MB (incompressible, stored): more than the 2 MB tmpfs holds. */
const grande = async () => makeZip([{ name: 'r18.xlsx', data: await buildRelatorio18({ rows: 5 }) },
  { name: 'anexo.pdf', data: randomBytes(5 * 1024 * 1024), method: 'store' }]);

describe('temporary directory full during an upload', () => {
  it('API: 507 problem, nothing stored, no temporary file left; the service then receives and processes a small file', async () => {
    const res = await p.upload('lote.zip', await grande());
    expect(res.statusCode).toBe(507);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({
      status: 507, title: 'Armazenamento insuficiente', code: 'disco_temporario_cheio', retryAfter: 60,
      detail: expect.stringContaining('o disco temporário do serviço está cheio (ENOSPC): nada foi gravado'),
    });
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(0);
    expect((await db.pool.query('select count(*)::int n from xls_conjunto_lote')).rows[0].n).toBe(0);
    expect(readdirSync(mnt).filter((n) => n.startsWith('bi-'))).toEqual([]);

    expect((await p.app.inject({ url: '/health' })).statusCode).toBe(200);
    const ok = await p.upload('pequeno.xlsx', await buildRelatorio18({ rows: 3 }), XLSX);
    expect(ok.statusCode).toBe(202);
    await p.drain();
    expect((await db.pool.query('select arquivo, status from xls_processamento')).rows).toEqual([{ arquivo: 'pequeno.xlsx', status: 'SUCESSO' }]);
    expect(readdirSync(mnt).filter((n) => n.startsWith('bi-'))).toEqual([]);
  });

  it('import page: a 507 page saying the disk is full, nothing stored', async () => {
    const antes = (await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n;
    const boundary = `----b${randomBytes(8).toString('hex')}`;
    const compras = await buildWorkbook([{ name: 'Compras', rows: [['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total']] }]);
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="uploaderId"\r\n\r\nana\r\n--${boundary}\r\ncontent-disposition: form-data; name="uploaderNome"\r\n\r\nAna\r\n`),
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="c.xlsx"\r\ncontent-type: application/octet-stream\r\n\r\n`), compras, Buffer.from('\r\n'),
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="d.xlsx"\r\ncontent-type: application/octet-stream\r\n\r\n`), randomBytes(5 * 1024 * 1024), Buffer.from('\r\n'),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const res = await p.app.inject({ method: 'POST', url: `/xls/importar?k=${IMPORTAR}`, payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, accept: 'text/html' } });
    expect(res.statusCode).toBe(507);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body, res.body.slice(res.body.indexOf('<main'))).toContain('O disco temporário do serviço está cheio (ENOSPC): nada foi gravado; reenvie em alguns minutos.');
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(antes);
    for (let i = 0; i < 40 && readdirSync(mnt).some((n) => n.startsWith('bi-')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(mnt).filter((n) => n.startsWith('bi-'))).toEqual([]);
  });
});
