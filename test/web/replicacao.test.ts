/**
 * The reset screens under /admin by HTTP: list and start form (motivo, explicit confirmation,
 * confirmation secret; every refusal shown on the form with its status), the detail with the
 * steps and the manual recovery of the failed step.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { HTML, appHabilitado, navegador, sessao, type SessaoTeste } from './helpers.js';
import { limpar, SEGREDO } from '../replicacao/helpers.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db, { REPLICATOR_CONFIRM_SECRET: SEGREDO });
  s = await sessao(db);
});
afterEach(async () => { await limpar(db.pool); });
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const { get, post } = navegador(() => app, () => s);
const contar = async () => (await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n as number;

describe('/admin/replicacao', () => {
  it('is linked from the /admin panel and shows the start form and the empty list', async () => {
    expect((await get('/admin')).body).toContain('href="/admin/replicacao"');
    const res = await get('/admin/replicacao');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Nenhum reset.');
    expect(res.body).toContain('name="motivo"');
    expect(res.body).toContain('name="confirmo"');
    expect(res.body).toContain('name="segredo"');
    expect(res.body).toContain(`name="_csrf" value="${s.csrf}"`);
    expect(res.body).not.toContain(SEGREDO);
  });

  it('refuses without CSRF (400), without the confirmation (400), with a wrong secret (403), with a long motivo (400): nothing starts', async () => {
    expect((await post('/admin/replicacao', { motivo: 'x', confirmo: 'sim', segredo: SEGREDO }, false)).statusCode).toBe(400);
    const semConfirmar = await post('/admin/replicacao', { motivo: 'sem marcar', segredo: SEGREDO });
    expect(semConfirmar.statusCode).toBe(400);
    expect(semConfirmar.body).toContain('Marque a confirmação');
    expect(semConfirmar.body).toContain('sem marcar'); // the form keeps what was typed
    const errado = await post('/admin/replicacao', { motivo: 'x', confirmo: 'sim', segredo: 'outro' });
    expect(errado.statusCode).toBe(403);
    expect(errado.body).toContain('Segredo de confirmação inválido');
    const longo = await post('/admin/replicacao', { motivo: 'm'.repeat(501), confirmo: 'sim', segredo: SEGREDO });
    expect(longo.statusCode).toBe(400);
    expect(longo.body).toContain('máximo é 500');
    expect(await contar()).toBe(0);
  });

  it('starts a reset (303 to its detail), then 409 on the form while it runs; the detail refreshes itself', async () => {
    const res = await post('/admin/replicacao', { motivo: 'pela tela', confirmo: 'sim', segredo: SEGREDO });
    expect(res.statusCode).toBe(303);
    const m = /^\/admin\/replicacao\/([0-9a-f-]{36})\?ok=iniciado$/.exec(String(res.headers.location));
    expect(m).not.toBeNull();
    const { rows } = await db.pool.query('select status, motivo, solicitante from xls_resetar_replicator where id = $1', [m![1]]);
    expect(rows[0]).toEqual({ status: 'EM_ANDAMENTO', motivo: 'pela tela', solicitante: `tela:ana@empresa.com.br` });
    const det = await get(String(res.headers.location));
    expect(det.statusCode).toBe(200);
    expect(det.body).toContain('Reset iniciado');
    expect(det.body).toContain('>Em andamento</span>');
    expect(det.body).not.toContain('>EM_ANDAMENTO<');
    // the refresh goes to the detail's own address: the start banner does not come back
    expect(det.body).toContain(`<meta http-equiv="refresh" content="3; url=/admin/replicacao/${m![1]}">`);
    expect((await get(`/admin/replicacao/${m![1]}`)).body).not.toContain('Reset iniciado');
    // the title is the date, not an id
    expect(/<h1>([^<]*)<\/h1>/.exec(det.body)?.[1]).toMatch(/^Reset da replicação de \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/);
    const de_novo = await post('/admin/replicacao', { motivo: 'outra vez', confirmo: 'sim', segredo: SEGREDO });
    expect(de_novo.statusCode).toBe(409);
    expect(de_novo.body).toContain('Já existe um reset em andamento');
    expect((await get('/admin/replicacao')).body).toContain(`href="/admin/replicacao/${m![1]}"`);
  });

  it('the detail of a failed reset shows each step and what to do by hand', async () => {
    const { rows } = await db.pool.query(`select id from replicacao_resetar('falhou no docstore', 'psql')`);
    const id = rows[0].id as string;
    for (const [passo, st, msg] of [['VALIDAR', 'SUCESSO', 'ok'], ['PAUSAR', 'SUCESSO', 'ok'], ['AGUARDAR_PARADA', 'SUCESSO', 'ok'],
      ['RESET_SLOT', 'SUCESSO', 'slot(s) removido(s): powersync_1'], ['DROP_DOCSTORE', 'ERRO', 'connect ECONNREFUSED 127.0.0.1:1']]) {
      await db.pool.query(`select replicacao_passo($1, $2, 'EM_ANDAMENTO')`, [id, passo]);
      await db.pool.query(`select replicacao_passo($1, $2, $3, $4)`, [id, passo, st, msg]);
    }
    await db.pool.query(`select replicacao_falhar($1, 'DROP_DOCSTORE: connect ECONNREFUSED 127.0.0.1:1')`, [id]);
    const res = await get(`/admin/replicacao/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('O que fazer à mão (falha em DROP_DOCSTORE)');
    expect(res.body).toContain('dropDatabase');
    expect(res.body).toContain('connect ECONNREFUSED 127.0.0.1:1');
    // the ten steps, each with its state in words
    const passos = [...res.body.matchAll(/<li class="passo-([A-Z_]+)">\s*<div class="passo-cabeca"><strong>(\d+)\. ([A-Z_]+)<\/strong> <span class="status status-[A-Z_]+">([^<]+)<\/span>/g)]
      .map((x) => `${x[2]} ${x[3]} ${x[4]}`);
    expect(passos).toEqual(['1 VALIDAR concluído', '2 PAUSAR concluído', '3 AGUARDAR_PARADA concluído', '4 RESET_SLOT concluído', '5 DROP_DOCSTORE falhou',
      '6 RECRIAR_PUBLICACAO não executado', '7 RESUME não executado', '8 AGUARDAR_REPLICACAO não executado', '9 VERIFICAR_PARIDADE não executado', '10 FINALIZAR não executado']);
    expect(res.body).toContain('>Falhou</span>');
    expect(res.body).toContain('href="/admin/replicacao/runbook#what-to-do-by-hand-after-each-failure-runbook"');
    expect(res.body).not.toMatch(/http-equiv="refresh"/);
    // an old ?ok=iniciado on an execution that ended shows no green banner above the red one
    expect((await get(`/admin/replicacao/${id}?ok=iniciado`)).body).not.toContain('Reset iniciado');
    expect((await get('/admin/replicacao')).body).toContain('falhou no docstore');
  });

  it('the runbook is a page of the app; the list puts the history before the form, statuses in words', async () => {
    const rb = await get('/admin/replicacao/runbook');
    expect(rb.statusCode).toBe(200);
    expect(rb.body).toContain('<h4 id="what-to-do-by-hand-after-each-failure-runbook">');
    expect(rb.body).toContain('db.dropDatabase()');
    expect(rb.body).toContain('<div class="doc-tabela"');
    await db.pool.query(`select replicacao_falhar((select id from replicacao_resetar('antigo', 'psql')), 'VALIDAR: falhou')`);
    const lista = (await get('/admin/replicacao')).body;
    expect(lista.indexOf('Histórico de resets')).toBeGreaterThan(0);
    expect(lista.indexOf('Histórico de resets')).toBeLessThan(lista.indexOf('Novo reset'));
    expect(lista).toContain('>Falhou</span>');
    expect(lista).toContain('href="/admin/replicacao/runbook"');
  });

  it('motivo: at most 500 characters as SQL counts them (an emoji is one), text only; NUL or a repeated field is a 400 page', async () => {
    const antes = await contar();
    const longo = await post('/admin/replicacao', { motivo: '🚚'.repeat(501), confirmo: 'sim', segredo: SEGREDO });
    expect(longo.statusCode).toBe(400);
    expect(longo.body).toContain('O motivo tem 501 caracteres; o máximo é 500.');
    const nul = await post('/admin/replicacao', { motivo: 'a\u0000b', confirmo: 'sim', segredo: SEGREDO });
    expect(nul.statusCode).toBe(400);
    expect(nul.headers['content-type']).toMatch(/text\/html/);
    expect(nul.body).toContain('O campo “motivo” contém um caractere não aceito (NUL).');
    const rep = await app.inject({ method: 'POST', url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(s.csrf)}&confirmo=sim&segredo=x&segredo=${encodeURIComponent(SEGREDO)}` });
    expect(rep.statusCode).toBe(400);
    expect(rep.body).toContain('O campo “segredo” veio repetido');
    const repMotivo = await app.inject({ method: 'POST', url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(s.csrf)}&confirmo=sim&segredo=${encodeURIComponent(SEGREDO)}&motivo=a&motivo=b` });
    expect(repMotivo.statusCode).toBe(400);
    expect(await contar()).toBe(antes);
    const ok = await post('/admin/replicacao', { motivo: '🚚'.repeat(500), confirmo: 'sim', segredo: SEGREDO });
    expect(ok.statusCode).toBe(303);
    expect((await db.pool.query(`select char_length(motivo) n from xls_resetar_replicator order by iniciado_em desc limit 1`)).rows[0].n).toBe(500);
  });

  it('unknown or malformed id: 404 page', async () => {
    const r = await get('/admin/replicacao/00000000-0000-4000-8000-000000000000');
    expect(r.statusCode).toBe(404);
    expect(r.body).toContain('não existe');
    expect((await get('/admin/replicacao/xyz')).statusCode).toBe(404);
  });

  it('secret unset: the screen says the reset is off and a post is 503', async () => {
    const antes = await contar();
    const off = await appHabilitado(db, { REPLICATOR_CONFIRM_SECRET: '' });
    try {
      const page = await off.inject({ url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie } });
      expect(page.body).toContain('está desligado');
      expect(page.body).not.toContain('name="segredo"');
      const res = await off.inject({ method: 'POST', url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: s.csrf, confirmo: 'sim', segredo: 'x' }).toString() });
      expect(res.statusCode).toBe(503);
    } finally { await off.close(); }
    expect(await contar()).toBe(antes);
  });
});
