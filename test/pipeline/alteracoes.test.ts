/**
 * Imports staff can trust, end to end through the API and the job: the preview of each of the
 * ten types stores nothing and foretells exactly what the real send then records; the
 * mass-deletion guard holds a truncated RELATORIO18 and a POSTOS with a tenth of the
 * stations, and approving applies them; undo and change sets over HTTP.
 */
import { chmodSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { API_TOKEN } from '../harness/service.js';
import { startEmbeddedObjectStore, type EmbeddedObjectStore } from '../../src/embedded/objstore.js';
import { buildMeta, buildRelatorio18 } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { arquivosDosDezTipos, postos } from '../fixtures/dez-tipos.js';
import { H, escrever, fluxoSheets, tabela, titulo } from '../fixtures/tipos.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let p: Pipeline;
let s3: EmbeddedObjectStore;
let s3dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  s3dir = mkdtempSync(join(tmpdir(), 'bi-s3-alt-'));
  chmodSync(s3dir, 0o755);
  s3 = await startEmbeddedObjectStore({ directory: s3dir, bucket: 'bi-teste' });
  p = await startPipeline(db, { s3 });
});
afterAll(async () => {
  await p?.close();
  await s3?.stop();
  await db?.drop();
});

const rows = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows;

function multipart(filename: string, bytes: Buffer, contentType = XLSX) {
  const boundary = '----bi' + Math.random().toString(16).slice(2);
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="arquivo"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
    bytes, Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
const simular = (filename: string, bytes: Buffer, contentType = XLSX) =>
  p.app.inject({ method: 'POST', url: '/api/xls/simular', ...multipart(filename, bytes, contentType) });
const api = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  p.app.inject({ method, url, headers: { authorization: `Bearer ${API_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });

/** Every bi_* table (each row as JSON, ordered), the processings and the files of the object store. */
async function estado() {
  const tabelas = (await rows(`select tablename from pg_tables where schemaname = 'public' and tablename like 'bi\\_%' order by 1`)).map((r) => r.tablename as string);
  const bi: Record<string, unknown[]> = {};
  for (const t of tabelas) bi[t] = (await rows(`select to_jsonb(t) j from public.${t} t order by t.id`)).map((r) => r.j);
  const processamentos = await rows('select id, status, atualizado_em from xls_processamento order by id');
  const conjuntos = await rows('select id from xls_conjunto_lote order by id');
  const arquivos: string[] = [];
  const walk = (d: string) => { for (const f of readdirSync(d)) { const x = join(d, f); if (statSync(x).isDirectory()) walk(x); else arquivos.push(x); } };
  walk(s3dir);
  return { bi, processamentos, conjuntos, arquivos: arquivos.sort() };
}

/** What the real send of the same file recorded, per table, as the preview counts it. */
async function contagensReais(id: string) {
  const r = await api('GET', `/api/comercial/processamentos/${id}/alteracoes?size=1`);
  expect(r.statusCode).toBe(200);
  const out: Record<string, { inseridas: number; alteradas: number; removidas: number }> = {};
  const { rows: c } = await db.pool.query(`select tabela, operacao, sum(coalesce(cardinality(linha_ids), 1))::int n from app.xls_alteracao where processamento_id = $1 group by 1, 2`, [id]);
  for (const x of c) {
    out[x.tabela] ??= { inseridas: 0, alteradas: 0, removidas: 0 };
    out[x.tabela]![x.operacao === 'INSERIDA' ? 'inseridas' : x.operacao === 'ALTERADA' ? 'alteradas' : 'removidas'] = x.n;
  }
  return out;
}

async function enviar(nome: string, bytes: Buffer) {
  const res = await p.upload(nome, bytes, XLSX);
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().itens[0].processamentoId as string;
  await p.drain();
  return (await rows('select id, status, erro_mensagem, exclusao_retida, linhas_removidas from xls_processamento where id = $1', [id]))[0];
}

describe('preview', () => {
  it('of each of the ten types stores nothing, and its counts are what the real send then records', async () => {
    const vistos = new Set<string>();
    for (const [nome, bytes] of await arquivosDosDezTipos()) {
      const antes = await estado();
      const res = await simular(nome, bytes);
      expect(res.statusCode, res.body).toBe(200);
      const [a] = res.json().arquivos;
      expect(a.status, `${nome}: ${a.motivo}`).toBe('SIMULADO');
      vistos.add(a.tipo);
      expect(await estado()).toEqual(antes);

      const real = await enviar(nome, bytes);
      expect(real.status, `${nome}: ${real.erro_mensagem}`).toBe('SUCESSO');
      const previstas = Object.fromEntries(Object.entries(a.tabelas as Record<string, { inseridas: number; alteradas: number; removidas: number }>)
        .map(([t, c]) => [t, { inseridas: c.inseridas, alteradas: c.alteradas, removidas: c.removidas }]));
      expect(previstas, nome).toEqual(await contagensReais(real.id));
      expect(Object.keys(previstas).length, nome).toBeGreaterThan(0);
    }
    expect(vistos.size).toBe(10);
  }, 240_000);

  it('says the period or position, rows read, examples with before/after values, and that a file would be held', async () => {
    expect((await enviar('r18-base.xlsx', await buildRelatorio18({ rows: 42 }))).status).toBe('SUCESSO');
    // the guard's limits are read from bi_configuracao at each merge
    await db.pool.query(`update bi_configuracao set valor = '10' where chave = 'xls_exclusao_limite_linhas'`);
    const res = await simular('r18-curto.xlsx', await buildRelatorio18({ rows: 2 }));
    await db.pool.query(`update bi_configuracao set valor = '100' where chave = 'xls_exclusao_limite_linhas'`);
    const [a] = res.json().arquivos;
    expect(a, JSON.stringify({ ...a, tabelas: undefined })).toMatchObject({ tipo: 'RELATORIO18', periodoInicio: '2026-11-01', periodoFim: '2026-11-30', linhasLidas: 2, status: 'RETIDO' });
    expect(a.retencao).toEqual([
      expect.objectContaining({ tabela: 'bi_faturamento', escopo: 21, remover: 20, percentual: 95.2 }),
      expect.objectContaining({ tabela: 'bi_movimento', escopo: 21, remover: 20 }),
    ]);
    expect(a.tabelas.bi_faturamento.removidas).toBe(20);
    expect(a.tabelas.bi_faturamento.exemplos.REMOVIDA).toHaveLength(20);
    expect(a.tabelas.bi_faturamento.exemplos.REMOVIDA[0].antes).toMatchObject({ filial: expect.any(String), valor_total: expect.any(Number) });
    const fluxo = (await simular('fluxo.xlsx', await escrever(fluxoSheets({ posicao: '17/01/2027', totalReceber: 100, titulos: [titulo({ documento: 'R1', saldo: 80 })] }), 'exceljs'))).json().arquivos[0];
    expect(fluxo).toMatchObject({ tipo: 'FLUXO_PAGAR_RECEBER', posicao: '2027-01-17', status: 'SIMULADO' });
    expect(fluxo.tabelas.bi_titulo.exemplos.ALTERADA[0]).toMatchObject({ antes: { atual: true }, depois: { atual: false } });
  });

  it('of a batch: the master report first, an unreadable entry and a non-spreadsheet as a send would end', async () => {
    const zip = makeZip([
      { name: 'meta.xlsx', data: await buildMeta({ linhas: [{ vendedor: 9901 }] }) },
      { name: 'r18.xlsx', data: await buildRelatorio18({ rows: 40, faturamento: [{ vendedor: 9901, nome_vendedor: 'Novo' }] }) },
      // a sound zip that is no workbook: received by a send, it ends ERRO
      { name: 'quebrado.xlsx', data: makeZip([{ name: 'nada.txt', data: 'isto não é uma planilha' }]) },
      { name: 'leia-me.pdf', data: 'x' },
    ]);
    const antes = await estado();
    const res = await simular('lote.zip', zip, 'application/zip');
    expect(res.statusCode, res.body).toBe(200);
    const por = Object.fromEntries(res.json().arquivos.map((a: { arquivo: string }) => [a.arquivo, a]));
    expect(res.json().total).toBe(4);
    expect(por['meta.xlsx']).toMatchObject({ tipo: 'META', status: 'SIMULADO' });
    expect(por['r18.xlsx']).toMatchObject({ tipo: 'RELATORIO18' });
    expect(por['quebrado.xlsx']).toMatchObject({ status: 'ERRO', motivo: expect.any(String) });
    expect(por['leia-me.pdf']).toMatchObject({ status: 'IGNORADO' });
    expect(await estado()).toEqual(antes);
  });

  it('same refusals as processar: not multipart 415, empty 400, a zip slip 400 — nothing stored', async () => {
    const antes = await estado();
    expect((await p.app.inject({ method: 'POST', url: '/api/xls/simular', headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(415);
    expect((await simular('vazio.xlsx', Buffer.alloc(0))).statusCode).toBe(400);
    const slip = await simular('lote.zip', makeZip([{ name: 'a.pdf', localName: '../a.xlsx', data: 'x' }]), 'application/zip');
    expect(slip.statusCode).toBe(400);
    expect(slip.headers['content-type']).toContain('application/problem+json');
    expect((await p.app.inject({ method: 'POST', url: '/api/xls/simular', ...multipart('a.xlsx', Buffer.from('x')), headers: { 'content-type': 'multipart/form-data; boundary=x' } })).statusCode).toBe(401);
    expect(await estado()).toEqual(antes);
  });
});

describe('preview of content already received', () => {
  it('says DUPLICADO, as a send does, for a file already imported and for a zip holding the same entry twice; nothing read, nothing stored', async () => {
    const bytes = await buildRelatorio18({ rows: 12, faturamento: [{ vendedor: 9911, nome_vendedor: 'Dup' }] });
    const real = await enviar('r18-dup.xlsx', bytes);
    expect(real.status).toBe('SUCESSO');
    const antes = await estado();
    // the README's "Try it": send the batch, then preview it
    const res = await simular('r18-dup.xlsx', bytes);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().arquivos[0]).toMatchObject({ status: 'DUPLICADO', linhasLidas: 0, tabelas: {}, motivo: `arquivo já recebido: processamento ${real.id} (SUCESSO)` });
    // a send of it says the same
    const envio = await p.upload('r18-dup.xlsx', bytes, XLSX);
    expect(envio.json().itens[0]).toMatchObject({ status: 'DUPLICADO', motivo: `arquivo já recebido: processamento ${real.id} (SUCESSO)` });

    const nova = await buildMeta({ linhas: [{ vendedor: 9911 }] });
    // the same entry twice (same bytes under another name; one name twice is refused, 400), and the already imported file
    const zip = makeZip([{ name: 'meta.xlsx', data: nova }, { name: 'meta-copia.xlsx', data: nova }, { name: 'r18.xlsx', data: bytes }]);
    const lote = await simular('lote-dup.zip', zip, 'application/zip');
    expect(lote.statusCode, lote.body).toBe(200);
    const [primeira, copia, r18] = lote.json().arquivos;
    expect(lote.json().total).toBe(3);
    expect(primeira).toMatchObject({ arquivo: 'meta.xlsx', status: 'SIMULADO', tipo: 'META' });
    expect(copia).toMatchObject({ arquivo: 'meta-copia.xlsx', status: 'DUPLICADO', linhasLidas: 0, motivo: "arquivo repetido neste envio: mesmo conteúdo de 'meta.xlsx' (um envio o receberia uma vez só)" });
    expect(r18).toMatchObject({ arquivo: 'r18.xlsx', status: 'DUPLICADO', motivo: `arquivo já recebido: processamento ${real.id} (SUCESSO)` });
    expect(await estado()).toEqual(antes);
  });

  it('previews a file whose earlier send ended ERRO (a send would reprocess it): 200, never the unique key of the checksum', async () => {
    // an invalid row refuses a FLUXO whole: the send ends ERRO (XL422)
    const fluxo = await escrever(fluxoSheets({ posicao: '20/01/2027', totalReceber: 100, titulos: [titulo({ documento: 'E1', saldo: 'mil' })] }), 'exceljs');
    const real = await enviar('fluxo-erro.xlsx', fluxo);
    expect(real.status, real.erro_mensagem).toBe('ERRO');
    const antes = await estado();
    const res = await simular('fluxo-erro.xlsx', fluxo);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().arquivos[0]).toMatchObject({ tipo: 'FLUXO_PAGAR_RECEBER', status: 'ERRO', motivo: real.erro_mensagem });
    expect(await estado()).toEqual(antes);
  });
});

describe('mass-deletion guard, end to end', () => {
  it('a truncated RELATORIO18 (13 of 600 rows) ends ERRO with 0 rows removed; "aplicarExclusoes" applies it', async () => {
    const completo = await enviar('r18-completo.xlsx', await buildRelatorio18({ rows: 1200 }));
    expect(completo.status).toBe('SUCESSO');
    const n = async () => (await rows(`select count(*)::int n from bi_faturamento where emissao between '2026-11-01' and '2026-11-30'`))[0].n;
    expect(await n()).toBe(600);
    const truncado = await enviar('r18-truncado.xlsx', await buildRelatorio18({ rows: 26 }));
    expect(truncado).toMatchObject({ status: 'ERRO', exclusao_retida: true, linhas_removidas: null });
    expect(truncado.erro_mensagem).toContain('removeria 587 de 600 linhas de bi_faturamento');
    expect(await n()).toBe(600);
    const detalhe = (await api('GET', `/api/comercial/processamentos/${truncado.id}`)).json();
    expect(detalhe).toMatchObject({ exclusaoRetida: true, exclusoesAprovadasEm: null });

    // a plain reprocess is held again; approval of something not held is a 409
    expect((await api('POST', `/api/comercial/processamentos/${completo.id}/reprocessar`, { aprovarExclusoes: true })).statusCode).toBe(409);
    const ok = await api('POST', `/api/comercial/processamentos/${truncado.id}/reprocessar`, { aprovarExclusoes: true });
    expect(ok.statusCode, ok.body).toBe(202);
    await p.drain();
    expect((await rows('select status, linhas_removidas, exclusoes_aprovadas_por from xls_processamento where id = $1', [truncado.id]))[0])
      .toEqual({ status: 'SUCESSO', linhas_removidas: 587 + 587, exclusoes_aprovadas_por: 'api' });
    expect(await n()).toBe(13);
    expect((await api('POST', `/api/comercial/processamentos/${truncado.id}/reprocessar`, { outra: 1 })).statusCode).toBe(400);
  });

  it('a POSTOS file with a tenth of the stations is held; approved, it applies', async () => {
    const todos = await enviar('postos-todos.xlsx', await escrever([{ name: 'Postos', rows: postos(200, 1000) }], 'exceljs'));
    expect(todos.status).toBe('SUCESSO');
    const decimo = await enviar('postos-decimo.xlsx', await escrever([{ name: 'Postos', rows: postos(20, 1000) }], 'exceljs'));
    expect(decimo).toMatchObject({ status: 'ERRO', exclusao_retida: true });
    expect(decimo.erro_mensagem).toContain('removeria 180 de 200 linhas de bi_posto');
    expect((await rows('select count(*)::int n from bi_posto'))[0].n).toBe(200);
    expect((await api('POST', `/api/comercial/processamentos/${decimo.id}/reprocessar`, { aprovarExclusoes: true })).statusCode).toBe(202);
    await p.drain();
    expect((await rows('select count(*)::int n from bi_posto'))[0].n).toBe(20);
  });
});

describe('undo and change sets over HTTP', () => {
  it('lists the change set, undoes, refuses a second undo and an earlier one while a later stands', async () => {
    const cota = (v: number) => escrever([{ name: '2030', rows: tabela(H.COTA, [['Betim', 'Gasolina C', v]]) }], 'exceljs');
    const a = await enviar('cota-a.xlsx', await cota(7));
    const b = await enviar('cota-b.xlsx', await cota(9));
    const pag = await api('GET', `/api/comercial/processamentos/${b.id}/alteracoes?operacao=ALTERADA`);
    expect(pag.statusCode).toBe(200);
    expect(pag.json()).toMatchObject({ totalSize: 1, content: [{ tabela: 'bi_cota_fornecedor', operacao: 'ALTERADA', chave: { ano: 2030, polo: 'Betim', produto: 'Gasolina C', mes: 1 } }] });
    expect(pag.json().content[0].antes.quantidade).toBe(7);
    expect(pag.json().content[0].depois.quantidade).toBe(9);
    expect((await api('GET', `/api/comercial/processamentos/${b.id}/alteracoes?operacao=APAGADA`)).statusCode).toBe(400);
    expect((await api('GET', `/api/comercial/processamentos/${b.id}/alteracoes?tabela=xls_processamento`)).statusCode).toBe(400);
    expect((await api('GET', `/api/comercial/processamentos/00000000-0000-4000-8000-000000000000/alteracoes`)).statusCode).toBe(404);

    const conflito = await api('POST', `/api/comercial/processamentos/${a.id}/desfazer`);
    expect(conflito.statusCode).toBe(409);
    expect(conflito.json()).toMatchObject({ motivo: 'conflito', conflitos: [{ id: b.id, arquivo: 'cota-b.xlsx' }] });
    const ok = await api('POST', `/api/comercial/processamentos/${b.id}/desfazer`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ id: b.id, desfeitoPor: 'api', tabelas: { bi_cota_fornecedor: { restauradas: 1 } } });
    expect((await rows(`select quantidade::int q from bi_cota_fornecedor where ano = 2030`))).toEqual([{ q: 7 }]);
    expect((await api('POST', `/api/comercial/processamentos/${b.id}/desfazer`)).json()).toMatchObject({ status: 409, motivo: 'ja_desfeito' });
    expect((await api('GET', `/api/comercial/processamentos/${b.id}`)).json()).toMatchObject({ desfeitoPor: 'api', desfeitoEm: expect.any(String) });
    const log = await api('GET', `/api/comercial/processamentos/${b.id}/logs`);
    expect(log.body).toContain('importação desfeita por api: bi_cota_fornecedor: 0 removidas, 1 restauradas, 0 recolocadas');
    expect((await api('POST', `/api/comercial/processamentos/${a.id}/desfazer`)).statusCode).toBe(200);
    expect((await rows(`select count(*)::int n from bi_cota_fornecedor where ano = 2030`))).toEqual([{ n: 0 }]);
  });
});
