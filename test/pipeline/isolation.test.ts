/**
 * Parsing isolated from the service: hostile spreadsheets end their processing in
 * ERRO with a clear reason while the HTTP server (a real listening socket), the job runner
 * and the order webhook keep answering — every webhook event sent meanwhile gets its 200.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { event, order } from '../harness/partner.js';
import { partnerConfigurar } from '../../src/pedidos/db.js';
import { colName } from '../fixtures/handmade.js';
import { makeZip } from '../fixtures/zip.js';
import { fatAt, odsFile, odsTable, xlsFile } from '../fixtures/cfb.js';
import { odsAbasVazias } from '../fixtures/muitas-abas.js';
import { API_TOKEN } from '../harness/service.js';

const SECRET = 'segredo-isolamento';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook ('Metas') whose sheet XML is `rows` (inline strings, no styles). */
function xlsx(rows: string): Buffer {
  return makeZip([
    { name: 'xl/workbook.xml', data: `<workbook xmlns="${NS}" xmlns:r="${NS_R}"><sheets><sheet name="Metas" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${NS_R}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>` },
    { name: 'xl/worksheets/sheet1.xml', data: `<worksheet xmlns="${NS}"><sheetData>${rows}</sheetData></worksheet>` },
  ]);
}

const str = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const HEADER = `<row r="1">${str('A1', 'Competência')}${str('B1', 'Vendedor')}${str('C1', 'Produto')}${str('D1', 'Meta Volume')}${str('E1', 'Meta Margem')}</row>`;

interface Webhooks { sent: number; statuses: number[]; slowestMs: number }

/** Posts order events to the real socket until `until()` holds; every answer is recorded. */
async function webhooksWhile(base: string, until: () => Promise<boolean>, timeoutMs = 90_000): Promise<Webhooks> {
  const out: Webhooks = { sent: 0, statuses: [], slowestMs: 0 };
  const deadline = Date.now() + timeoutMs;
  let i = 0;
  do {
    const t0 = Date.now();
    const res = await fetch(`${base}/webhook/partner`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-partner-secret': SECRET },
      body: JSON.stringify(event(order(`ISO-${i++}`, 'waiting_payment', '2026-11-20T10:00:00Z'))),
      signal: AbortSignal.timeout(20_000),
    });
    out.sent += 1;
    out.statuses.push(res.status);
    out.slowestMs = Math.max(out.slowestMs, Date.now() - t0);
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 25));
  } while (!(await until()) && Date.now() < deadline);
  return out;
}

async function withListening(db: TestDatabase, env: Record<string, string>, fn: (p: Pipeline, base: string) => Promise<void>): Promise<void> {
  const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', PARTNER_WEBHOOK_SECRET: SECRET, ...env } });
  try {
    await partnerConfigurar(db.pool, p.ctx.config.partner);
    const address = await p.app.listen({ port: 0, host: '127.0.0.1' });
    await fn(p, address);
  } finally {
    await p.close();
  }
}

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

async function statusOf(ids: string[]): Promise<Array<{ status: string; erro_mensagem: string | null }>> {
  const { rows } = await db.pool.query('select id, status, erro_mensagem from xls_processamento where id = any($1::uuid[])', [ids]);
  return ids.map((id) => rows.find((r) => r.id === id));
}

const final = (s: string) => s !== 'PENDENTE' && s !== 'PROCESSANDO';

/**
 * Uploads each file (loose), then posts order events until every processing has ended; every
 * event must get its 200. Returns the events' record and the processings' final rows.
 */
async function uploadWhileWebhooks(p: Pipeline, base: string, files: Array<[string, Buffer]>, contentType: string) {
  const ids: string[] = [];
  for (const [name, bytes] of files) {
    const res = await p.upload(name, bytes, contentType);
    expect(res.statusCode).toBe(202);
    ids.push(res.json().itens[0].processamentoId);
  }
  const hooks = await webhooksWhile(base, async () => (await statusOf(ids)).every((s) => final(s.status)));
  expect(hooks.sent).toBeGreaterThan(0);
  expect(hooks.statuses.every((s) => s === 200)).toBe(true);
  return { hooks, st: await statusOf(ids) };
}

describe('hostile spreadsheets while order events keep arriving', () => {
  it('a cell past XFD (LPFILT1) and a cell at column 5,000,000 in 20 rows end ERRO; every webhook event gets its 200', () => withListening(db, {}, async (p, base) => {
    const farRows = Array.from({ length: 20 }, (_, i) => `<row r="${i + 2}">${str(`A${i + 2}`, '11/2026')}${str(`${colName(5_000_000)}${i + 2}`, 'x')}</row>`).join('');
    const files = [
      { name: 'lpfilt.xlsx', bytes: xlsx(`${HEADER}<row r="2"><c r="LPFILT1" t="inlineStr"><is><t>x</t></is></c></row>`) },
      { name: 'coluna-5-milhoes.xlsx', bytes: xlsx(`${HEADER}${farRows}`) },
    ];
    expect(files[0]!.bytes.length).toBeLessThan(2048);
    const { hooks, st } = await uploadWhileWebhooks(p, base, files.map((f) => [f.name, f.bytes]), XLSX);
    expect(st.map((s) => s.status)).toEqual(['ERRO', 'ERRO']);
    expect(st[0]!.erro_mensagem).toBe("formato não suportado: erro ao ler a aba 'Metas' (célula 'LPFILT1' fora dos limites da planilha (a última coluna é XFD, a 16.384ª))");
    expect(st[1]!.erro_mensagem).toMatch(/^formato não suportado: erro ao ler a aba 'Metas' \(célula '[A-Z]+2' fora dos limites da planilha/);
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const { rows } = await db.pool.query(`select count(*)::int n from partner_webhook where convert_from(corpo, 'UTF8') like '%ISO-%'`);
    expect(rows[0].n).toBeGreaterThanOrEqual(hooks.sent);
  }));

  it('hostile .xls and .ods (cyclic FAT, chain past the end, cells past XFD, entity, a 1 Mi-character run, repetition bomb) end ERRO; every webhook event gets its 200', () => withListening(db, {}, async (p, base) => {
    const cyclic = xlsFile([{ name: 'Metas', cells: [[0, 0, 'x']] }]);
    cyclic.bytes.writeUInt32LE(cyclic.start.Workbook!, fatAt(cyclic.start.Workbook!));
    const past = xlsFile([{ name: 'Metas', cells: [[0, 0, 'x']] }]);
    past.bytes.writeUInt32LE(4_000_000, fatAt(past.start.Workbook!));
    const files: Array<[string, Buffer, string | RegExp]> = [
      ['ciclica.xls', cyclic.bytes, 'formato não suportado: arquivo .xls corrompido (cadeia de setores cíclica no fluxo Workbook)'],
      ['alem-do-fim.xls', past.bytes, /^formato não suportado: arquivo \.xls corrompido \(setor 4000000 de Workbook além do fim do arquivo/],
      ['coluna.xls', xlsFile([{ name: 'Metas', cells: [[0, 30_000, 'x']] }]).bytes, /^formato não suportado: erro ao ler a aba 'Metas' \(célula na coluna 30001 fora dos limites/],
      ['entidade.ods', odsFile(odsTable('Metas', [['&lol9;']])), "formato não suportado: erro ao ler a aba 'Metas' (XML: entidade não declarada (só as cinco entidades do XML são aceitas))"],
      // 1.1 Mi characters of text in one run (random: the archive's ratio limit lets it through)
      ['texto-enorme.ods', odsFile(odsTable('Metas', [[randomBytes(550_000).toString('hex')]])), "formato não suportado: erro ao ler a aba 'Metas' (XML: marcação ou texto com mais de 1048576 caracteres)"],
      ['repeticao.ods', odsFile('<table:table table:name="Metas"><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/></table:table-row></table:table>'),
        "formato não suportado: erro ao ler a aba 'Metas' (repetição de células acima de 10.000.000 (number-rows-repeated / number-columns-repeated))"],
    ];
    const { st } = await uploadWhileWebhooks(p, base, files.map(([name, bytes]) => [name, bytes]), 'application/octet-stream');
    st.forEach((s, i) => {
      const motivo = files[i]![2];
      expect(s.status).toBe('ERRO');
      if (typeof motivo === 'string') expect(s.erro_mensagem).toBe(motivo);
      else expect(s.erro_mensagem).toMatch(motivo);
    });
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }));

  it('a parse that exhausts its heap dies alone: the processing ends ERRO with the reason, the service and the webhook keep answering', () => withListening(db, {
    // a small parse heap, and the cell and ratio limits opened wide so that the file gets to the parser
    XLS_LEITURA_HEAP_MB: '32', XLS_CELL_MAX_CHARS: '100000000', XLS_ZIP_MAX_RATIO: '1000000',
  }, async (p, base) => {
    const big = xlsx(`${HEADER}<row r="2">${str('A2', '11/2026')}${str('F2', 'x'.repeat(64_000_000))}</row>`);
    const small = xlsx(`${HEADER}<row r="2">${str('A2', '11/2026')}${str('B2', '999')}${str('C2', 'DIESEL')}${str('D2', '10')}</row>`);
    const { st: [enorme, pequena] } = await uploadWhileWebhooks(p, base, [['enorme.xlsx', big], ['pequena.xlsx', small]], XLSX);
    expect(enorme).toMatchObject({ status: 'ERRO', erro_mensagem: 'a leitura da planilha foi interrompida: memória esgotada (limite de 32 MB da leitura); o arquivo é grande ou malformado demais para ser lido' });
    // the same heap reads an ordinary file: it gets as far as the database (an unknown seller)
    expect(pequena!.erro_mensagem).toMatch(/vendedor não cadastrado/);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }));

  it('a parse past its time limit (XLS_LEITURA_TEMPO_MAX_MS) is stopped: the processing ends ERRO with the reason, the preview says ERRO for the file (200)', () => withListening(db, {
    XLS_LEITURA_TEMPO_MAX_MS: '1',
  }, async (p, base) => {
    const ods = odsAbasVazias(20_000);
    const motivo = 'a leitura da planilha foi interrompida: passou de 1 ms sem concluir uma etapa (abrir e reconhecer o tipo, '
      + 'ler os parâmetros ou um bloco de linhas; limite XLS_LEITURA_TEMPO_MAX_MS); o arquivo é grande ou malformado demais para ser lido';
    const { st: [abas] } = await uploadWhileWebhooks(p, base, [['abas.ods', ods]], 'application/vnd.oasis.opendocument.spreadsheet');
    expect(abas).toMatchObject({ status: 'ERRO', erro_mensagem: motivo });
    const boundary = '----bi-tempo';
    const previa = await p.app.inject({
      method: 'POST', url: '/api/xls/simular',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="arquivo"; filename="outras-abas.ods"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        odsAbasVazias(19_999), Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(previa.statusCode, previa.body).toBe(200);
    expect(previa.json().arquivos).toEqual([expect.objectContaining({ arquivo: 'outras-abas.ods', status: 'ERRO', motivo })]);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }));
});
