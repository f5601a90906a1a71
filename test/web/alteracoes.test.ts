/**
 * The detail screen's change set ("Alterações"), "Desfazer esta importação" (with its
 * confirmation) and "Aplicar mesmo assim", by HTTP with a staff session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { fat, importar, iniciar, mov, periodoNov, processarNovo, receberAvulso, completeJobs } from '../xls-sql/helpers.js';
import { HTML, IMPORTAR_TOKEN, appHabilitado, navegador, sessao, type SessaoTeste } from './helpers.js';
import { H, escrever, tabela } from '../fixtures/tipos.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;
beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
  s = await sessao(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const { get, post } = navegador(() => app, () => s);
let n = 0;
const r18 = (fats: ReturnType<typeof fat>[]) =>
  processarNovo(db.pool, `tela-alt-${++n}`, 'RELATORIO18', { staging: { faturamento: fats, movimento: [mov(0)] }, meta: periodoNov });

describe('Alterações on the detail screen', () => {
  it('counts per table, the rows with before/after, filters and pages; undo asks for confirmation and records who', async () => {
    const a = await r18(Array.from({ length: 30 }, (_, i) => fat(i)));
    const b = await r18(Array.from({ length: 30 }, (_, i) => fat(i, i === 3 ? { valor_total: '1234.5' } : {})));
    const page = await get(`/processamentos/${b.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2 id="alteracoes">Alterações</h2>');
    expect(page.body).toMatch(/data-rotulo="Tabela">Faturamento <small>\(bi_faturamento\)<\/small><\/td><td class="num" data-rotulo="Inseridas">0<\/td><td class="num" data-rotulo="Alteradas">1<\/td>/);
    expect(page.body).toContain('valor_total: 65.9');
    expect(page.body).toContain('valor_total: 1234.5');
    expect(page.body).toContain('Desfazer esta importação');

    const first = await get(`/processamentos/${a.id}?atabela=bi_faturamento&aoperacao=INSERIDA`);
    expect(first.body).toContain('Página 1 de 2 (30 alterações)');
    expect(first.body).toContain('apagina=1#alteracoes');
    expect((await get(`/processamentos/${a.id}?atabela=bi_faturamento&aoperacao=INSERIDA&apagina=1`)).body).toContain('Página 2 de 2');

    const semConfirmar = await post(`/processamentos/${b.id}/desfazer`, {});
    expect(semConfirmar.statusCode).toBe(400);
    expect(semConfirmar.body).toContain('marque a confirmação');
    const antes = await post(`/processamentos/${a.id}/desfazer`, { confirmar: 'sim' });
    expect(antes.statusCode).toBe(409);
    expect(antes.body).toContain('importações posteriores alteraram as mesmas linhas');
    expect(antes.body).toContain(`tela-alt-${n}.xlsx`);

    const ok = await post(`/processamentos/${b.id}/desfazer`, { confirmar: 'sim' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/processamentos/${b.id}?ok=desfeito`);
    const depois = await get(ok.headers.location as string);
    expect(depois.body).toContain('Importação desfeita');
    expect(depois.body).toMatch(/foi <strong>desfeita<\/strong> por ana@empresa\.com\.br em \d\d\/\d\d\/\d{4}/);
    expect(depois.body).not.toContain('Desfazer esta importação…');
    expect((await db.pool.query(`select valor_total::text v from bi_faturamento where nota_fiscal = '1003'`)).rows).toEqual([{ v: '65.9' }]);
    expect((await post(`/processamentos/${b.id}/desfazer`, { confirmar: 'sim' })).statusCode).toBe(409);
    const semCsrf = await post(`/processamentos/${b.id}/desfazer`, { confirmar: 'sim' }, false);
    expect(semCsrf.statusCode).toBe(400);
    expect(semCsrf.body).toContain('token CSRF inválido');
  });

  it('an identical re-import says it changed nothing; "Aplicar mesmo assim" appears only on a held import', async () => {
    const base = Array.from({ length: 150 }, (_, i) => fat(500 + i));
    const a = await r18(base);
    const igual = await r18(base);
    expect((await get(`/processamentos/${igual.id}`)).body).toContain('Esta importação não alterou nenhuma linha');
    expect((await get(`/processamentos/${a.id}`)).body).not.toContain('Aplicar mesmo assim');
    expect((await post(`/processamentos/${a.id}/aprovar-exclusoes`, {})).statusCode).toBe(409);

    const r = await receberAvulso(db.pool, `tela-retida-${++n}`);
    const id = r.processamentoId!;
    await iniciar(db.pool, id, 'w-tela', 'RELATORIO18');
    const err = await importar(db.pool, id, 'w-tela', 'RELATORIO18', { staging: { faturamento: base.slice(0, 5), movimento: [mov(0)] }, meta: periodoNov }).catch((e) => e);
    expect(err.code).toBe('XL428');
    await db.pool.query(`select * from public.xls_falhar($1, 'w-tela', $2, 'XL428')`, [id, err.message]);
    await completeJobs(db.pool, 'w-tela');
    const retida = await get(`/processamentos/${id}`);
    expect(retida.body).toContain('Importação retida: removeria linhas demais');
    expect(retida.body).toContain(`action="/processamentos/${id}/aprovar-exclusoes"`);
    const aprovar = await post(`/processamentos/${id}/aprovar-exclusoes`, {});
    expect(aprovar.statusCode).toBe(303);
    expect((await db.pool.query('select status, exclusoes_aprovadas_por from xls_processamento where id = $1', [id])).rows)
      .toEqual([{ status: 'PENDENTE', exclusoes_aprovadas_por: 'ana@empresa.com.br' }]);
    expect((await get(aprovar.headers.location as string)).body).toContain('Exclusões aprovadas');
  });
});

describe('"Pré-visualizar" on the import page', () => {
  function multipart(fields: Record<string, string>, files: Array<{ name: string; data: Buffer }>) {
    const boundary = `----b${Math.random().toString(16).slice(2)}`;
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    for (const f of files) {
      parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="arquivo"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`), f.data, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return { payload: Buffer.concat(parts), headers: { ...HTML, 'content-type': `multipart/form-data; boundary=${boundary}` } };
  }
  const cota = (v: number) => escrever([{ name: '2031', rows: tabela(H.COTA, [['Betim', 'Gasolina C', v, 2]]) }], 'exceljs');

  it('shows, in Portuguese, what each file would insert, change and remove, stores nothing, and offers the send', async () => {
    const url = `/xls/importar?k=${IMPORTAR_TOKEN}`;
    const enviar = async (acao: string, v: number) => app.inject({ method: 'POST', url, ...multipart({ uploaderId: 'ana', uploaderNome: 'Ana', acao }, [{ name: `cota-${v}.xlsx`, data: await cota(v) }]) });
    expect((await app.inject({ url, headers: HTML })).body).toContain('value="previa"');
    const feito = await enviar('enviar', 5);
    expect(feito.statusCode).toBe(303);
    const antes = (await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n;
    const previa = await enviar('previa', 8);
    expect(previa.statusCode).toBe(200);
    expect(previa.body).toContain('Nada foi gravado ainda.');
    expect(previa.body).toContain('cota-8.xlsx');
    expect(previa.body).toContain('seria importado');
    expect(previa.body).toMatch(/data-rotulo="Tabela">Cota fornecedor<\/td><td class="num" data-rotulo="Inseriria">\d+<\/td>/);
    expect(previa.body).toContain('value="enviar"');
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(antes);
  });
});
