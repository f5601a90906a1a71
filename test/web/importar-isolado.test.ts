/**
 * The import page detects each part's type in the parse thread, as a processing does — never
 * in the process that serves the webhook. In this test process the reader refuses to open a
 * workbook on the main thread (vi.mock): the page still detects, accepts an ordinary part and
 * refuses an unreadable one, so every workbook it opened was opened in the parse thread (which
 * loads its own, unmocked modules).
 */
import { randomBytes } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { makeZip } from '../fixtures/zip.js';
import { HTML, IMPORTAR_TOKEN, appHabilitado } from './helpers.js';

const abertosNoPrincipal = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/xlsx/open.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/xlsx/open.js')>();
  return {
    ...original,
    openWorkbook: (...args: Parameters<typeof original.openWorkbook>) => {
      if (isMainThread) {
        abertosNoPrincipal.n += 1;
        throw new Error('planilha aberta no processo principal');
      }
      return original.openWorkbook(...args);
    },
  };
});

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HEADERS = ['Data', 'CNPJ Fornecedor', 'Fornecedor', 'Nota Fiscal', 'Produto', 'Código ONU', 'Quantidade', 'Valor Total'];
const col = (i: number) => String.fromCharCode(65 + i);
const cel = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

/** A COMPRAS sheet (inline strings, no styles). */
function compras(): Buffer {
  const rows = `<row r="1">${HEADERS.map((h, i) => cel(`${col(i)}1`, h)).join('')}</row><row r="2">${cel('C2', 'Fornecedor Nove')}</row>`;
  return makeZip([
    { name: 'xl/workbook.xml', data: `<workbook xmlns="${NS}" xmlns:r="${NS_R}"><sheets><sheet name="Compras" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${NS_R}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>` },
    { name: 'xl/worksheets/sheet1.xml', data: `<worksheet xmlns="${NS}"><sheetData>${rows}</sheetData></worksheet>` },
  ]);
}

function multipart(name: string, data: Buffer) {
  const boundary = `----b${randomBytes(8).toString('hex')}`;
  const campos = Object.entries({ uploaderId: 'ana', uploaderNome: 'Ana' }).map(([n, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('');
  const payload = Buffer.concat([Buffer.from(campos), Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`),
    data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...HTML } };
}

let db: TestDatabase;
let app: FastifyInstance;
beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('import page: type detection in the parse thread', () => {
  it('an ordinary part is detected and accepted, an unreadable one refused, and no workbook is opened on the main thread', async () => {
    const url = `/xls/importar?k=${IMPORTAR_TOKEN}`;
    const ilegivel = await app.inject({ method: 'POST', url, ...multipart('cortada.xlsx', compras().subarray(0, 300)) });
    expect(ilegivel.statusCode).toBe(400);
    expect(ilegivel.headers['content-type']).toMatch(/text\/html/);
    expect(ilegivel.body).toContain('cortada.xlsx: não é uma planilha legível');
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(0);

    const comum = await app.inject({ method: 'POST', url, ...multipart('comum.xlsx', compras()) });
    expect(comum.statusCode, comum.body.slice(0, 400)).toBe(303);
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(1);
    expect(abertosNoPrincipal.n).toBe(0);
  });
});
