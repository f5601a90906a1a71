/**
 * The import page receives its parts as files (never whole in memory): the parts together
 * are bounded by the upload limit, checked as they arrive and again before packing; a batch
 * within it is stored byte for byte (PSQL mode: the legacy column written by COPY), and the
 * temporary files are gone afterwards, refused or not.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { buildWorkbook } from '../fixtures/builder.js';
import { HTML, IMPORTAR_TOKEN, appHabilitado } from './helpers.js';

const TMP = mkdtempSync(join(tmpdir(), 'bi-importar-teste-'));
process.env.TMPDIR = TMP;

let db: TestDatabase;
let app: FastifyInstance;
let planilha: Buffer;
const url = `/xls/importar?k=${IMPORTAR_TOKEN}`;

function multipart(files: Array<{ name: string; data: Buffer }>) {
  const boundary = `----b${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [n, v] of Object.entries({ uploaderId: 'ana', uploaderNome: 'Ana' })) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`), f.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...HTML } };
}

/** A COMPRAS workbook whose bytes differ by `n` (another checksum each). */
const compras = (n: number) => buildWorkbook([{ name: 'Compras', rows: [
  ['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total'],
  [new Date(Date.UTC(2026, 10, 3)), '11222333000181', `Fornecedor ${n}`, `NF-${n}`, 'Diesel S10', '1202', 1000 + n, 5000 + n],
] }]);

beforeAll(async () => {
  db = await createTestDatabase();
  planilha = await compras(1);
  // room for two workbooks packed, not three
  app = await appHabilitado(db, { XLS_UPLOAD_MAX_BYTES: String(Math.round(planilha.length * 2.6)) });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** The temporary directories of the import left in TMPDIR, once the response is out (they go right after it). */
async function sobras(): Promise<string[]> {
  const listar = () => readdirSync(TMP).filter((n) => n.startsWith('bi-importar-') || n.startsWith('bi-planilhas-'));
  for (let i = 0; i < 40 && listar().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return listar();
}
const conta = async () => (await db.pool.query('select count(*)::int as n from xls_processamento')).rows[0].n;

describe('import page: parts bounded together, streamed to files', () => {
  it('three parts each within the limit but beyond it together: 413 page, nothing stored, no temporary file left', async () => {
    const files = [{ name: 'a.xlsx', data: planilha }, { name: 'b.xlsx', data: await compras(2) }, { name: 'c.xlsx', data: await compras(3) }];
    expect(files.every((f) => f.data.length < planilha.length * 2.6)).toBe(true);
    const res = await app.inject({ method: 'POST', url, ...multipart(files) });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('passam do limite de envio');
    expect(res.body).toContain('nada foi gravado');
    expect(await conta()).toBe(0);
    expect(await sobras()).toEqual([]);
  });

  it('two parts within the limit: one batch, each original stored byte for byte (legacy column by COPY)', async () => {
    const b = await compras(2);
    const res = await app.inject({ method: 'POST', url, ...multipart([{ name: 'a.xlsx', data: planilha }, { name: 'b.xlsx', data: b }]) });
    expect(res.statusCode).toBe(303);
    const { rows } = await db.pool.query('select arquivo, arquivo_bytes, objeto_tamanho_bytes::int as n from xls_processamento order by arquivo');
    expect(rows.map((r) => r.arquivo)).toEqual(['a.xlsx', 'b.xlsx']);
    expect(Buffer.compare(rows[0].arquivo_bytes, planilha)).toBe(0);
    expect(Buffer.compare(rows[1].arquivo_bytes, b)).toBe(0);
    expect(rows.map((r) => r.n)).toEqual([planilha.length, b.length]);
    expect(await sobras()).toEqual([]);
  });
});
