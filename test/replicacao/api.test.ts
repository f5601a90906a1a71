/** The reset API: authentication, confirmation, refusals, 409, two replicas at once, the Page list. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { createPool } from '../../src/db/pool.js';
import { bearer } from '../harness/service.js';
import { iniciar, limpar, LISTA_URL, RESET_URL, SEGREDO, startServico, type Servico } from './helpers.js';

let db: TestDatabase;
let svc: Servico;

beforeAll(async () => {
  db = await createTestDatabase();
  // no job runner: the executions stay EM_ANDAMENTO, which is what these tests need
  svc = await startServico(db, db.pool, {}, { runner: false });
});
afterEach(async () => { await limpar(db.pool); });
afterAll(async () => {
  await svc?.close();
  await db?.drop();
});

describe('POST /api/transporte/admin/resetar-replicator', () => {
  it('without Bearer: 401 problem, nothing started', async () => {
    const res = await svc.app.inject({ method: 'POST', url: RESET_URL, headers: { 'x-confirm-nuke': SEGREDO } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n).toBe(0);
  });

  it('without X-Confirm-Nuke, or with a wrong one: 403 problem, nothing started', async () => {
    const sem = await svc.app.inject({ method: 'POST', url: RESET_URL, headers: bearer() });
    expect(sem.statusCode).toBe(403);
    expect(sem.json().detail).toMatch(/X-Confirm-Nuke/);
    const errado = await iniciar(svc.app, {}, { 'x-confirm-nuke': `${SEGREDO}x` });
    expect(errado.statusCode).toBe(403);
    const vazio = await iniciar(svc.app, {}, { 'x-confirm-nuke': '' });
    expect(vazio.statusCode).toBe(403);
    expect((await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n).toBe(0);
  });

  it('REPLICATOR_CONFIRM_SECRET unset: 503 problem, whatever the header says', async () => {
    const outro = await startServico(db, db.pool, { REPLICATOR_CONFIRM_SECRET: '' }, { runner: false });
    try {
      const res = await iniciar(outro.app, {});
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/REPLICATOR_CONFIRM_SECRET/);
    } finally {
      await outro.close();
    }
  });

  it('motivo longer than 500 characters, or a bad body: 400 problem', async () => {
    const longo = await iniciar(svc.app, { motivo: 'x'.repeat(501) });
    expect(longo.statusCode).toBe(400);
    expect(longo.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await iniciar(svc.app, { motivo: { texto: 'x' } })).statusCode).toBe(400);
    expect((await iniciar(svc.app, { outro: 'campo' })).statusCode).toBe(400);
    // a string only: a number is not turned into "123", true not into "true"
    for (const motivo of [123, true, ['x']]) {
      const r = await iniciar(svc.app, { motivo });
      expect(r.statusCode, JSON.stringify(motivo)).toBe(400);
      expect(r.json().detail).toBe('motivo deve ser um texto (string JSON) ou null');
    }
    // characters as SQL counts them (char_length): 501 emoji refused, like 501 letters
    expect((await iniciar(svc.app, { motivo: '🚚'.repeat(501) })).statusCode).toBe(400);
    const quebrado = await svc.app.inject({ method: 'POST', url: RESET_URL, payload: '{"motivo":',
      headers: { ...bearer(), 'x-confirm-nuke': SEGREDO, 'content-type': 'application/json' } });
    expect(quebrado.statusCode).toBe(400);
    expect((await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n).toBe(0);
    // exactly 500 is accepted, emoji too (the same limit as the screen's)
    const ok = await iniciar(svc.app, { motivo: '🚚'.repeat(500) });
    expect(ok.statusCode).toBe(202);
    expect(ok.json().motivo).toBe('🚚'.repeat(500));
  });

  it('202 with the execution (every key), without a body too; 409 while it runs', async () => {
    const res = await svc.app.inject({ method: 'POST', url: RESET_URL, headers: { ...bearer(), 'x-confirm-nuke': SEGREDO } });
    expect(res.statusCode, res.body).toBe(202);
    const e = res.json();
    expect(Object.keys(e).sort()).toEqual(['erroMensagem', 'estrategia', 'finalizadoEm', 'id', 'iniciadoEm', 'motivo', 'reinicioManual',
      'slotNovo', 'slotsRemovidos', 'solicitante', 'status', 'stepAtual', 'stepFalho', 'ultimoNuke'].sort());
    expect(e).toMatchObject({ status: 'EM_ANDAMENTO', motivo: null, solicitante: 'api', stepAtual: null, slotsRemovidos: [] });
    const job = await db.pool.query(`select kind, status, max_attempts from app.job where payload ->> 'id' = $1`, [e.id]);
    expect(job.rows).toEqual([{ kind: 'replicacao_resetar', status: 'pending', max_attempts: 1 }]);

    const again = await iniciar(svc.app, { motivo: 'de novo' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 409, code: 'RR409' });
    expect(again.json().detail).toContain(e.id);
  });

  it('two resets at once from two replicas: one 202, one 409', async () => {
    const pool2 = createPool(db.url, 4, 'replica-2');
    const outra = await startServico(db, pool2, {}, { runner: false });
    try {
      const res = await Promise.all([iniciar(svc.app, { motivo: 'r1' }), iniciar(outra.app, { motivo: 'r2' })]);
      expect(res.map((r) => r.statusCode).sort()).toEqual([202, 409]);
      const { rows } = await db.pool.query(`select count(*)::int n from xls_resetar_replicator where status = 'EM_ANDAMENTO'`);
      expect(rows[0].n).toBe(1);
    } finally {
      await outra.close();
      await pool2.end();
    }
  });
});

describe('GET …/resetar-replicator/{id} and the list', () => {
  it('detail: 404 problem for an unknown id, 400 for a malformed one', async () => {
    const r404 = await svc.app.inject({ method: 'GET', url: `${RESET_URL}/00000000-0000-4000-8000-000000000000`, headers: bearer() });
    expect(r404.statusCode).toBe(404);
    expect(r404.json().code).toBe('RR404');
    expect((await svc.app.inject({ method: 'GET', url: `${RESET_URL}/nao-e-uuid`, headers: bearer() })).statusCode).toBe(400);
    expect((await svc.app.inject({ method: 'GET', url: `${RESET_URL}/00000000-0000-4000-8000-000000000000` })).statusCode).toBe(401);
  });

  it('detail of a failed execution carries its steps and the manual recovery of the failed step', async () => {
    const id = (await iniciar(svc.app, { motivo: 'detalhe' })).json().id;
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'EM_ANDAMENTO')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'SUCESSO', 'ok')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'PAUSAR', 'EM_ANDAMENTO')`, [id]);
    await db.pool.query(`select replicacao_falhar($1, 'plataforma fora do ar')`, [id]);
    const res = await svc.app.inject({ method: 'GET', url: `${RESET_URL}/${id}`, headers: bearer() });
    expect(res.statusCode).toBe(200);
    const d = res.json();
    expect(d).toMatchObject({ status: 'ERRO', stepAtual: 'PAUSAR', stepFalho: 'PAUSAR', erroMensagem: 'plataforma fora do ar' });
    expect(d.passos.map((p: { step: string; status: string }) => [p.step, p.status])).toEqual([['VALIDAR', 'SUCESSO'], ['PAUSAR', 'ERRO']]);
    expect(d.instrucoes).toMatch(/novo reset/);
    expect(d.finalizadoEm).not.toBeNull();
  });

  it('GET /api/comercial/admin/nuke-replication: Page, iniciado_em descending, size rules, limit/offset ignored, Bearer required', async () => {
    await db.pool.query('delete from xls_resetar_replicator');
    for (let i = 0; i < 3; i++) {
      const { rows } = await db.pool.query(`select id from replicacao_resetar($1, 'psql')`, [`motivo ${i}`]);
      // the first started is the newest: iniciado_em's order is the reverse of the insertion's (and of the time-ordered ids)
      await db.pool.query(`update xls_resetar_replicator set iniciado_em = now() - make_interval(hours => $2) where id = $1`, [rows[0].id, i + 1]);
      await limpar(db.pool);
    }
    const res = await svc.app.inject({ method: 'GET', url: `${LISTA_URL}?size=2&limit=1&offset=2`, headers: bearer() });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.totalSize).toBe(3);
    expect(page.pageable).toMatchObject({ number: 0, size: 2, mode: 'OFFSET' });
    expect(page.content.map((c: { motivo: string }) => c.motivo)).toEqual(['motivo 0', 'motivo 1']);
    const p1 = (await svc.app.inject({ method: 'GET', url: `${LISTA_URL}?page=1&size=2`, headers: bearer() })).json();
    expect(p1.content.map((c: { motivo: string }) => c.motivo)).toEqual(['motivo 2']);
    const def = (await svc.app.inject({ method: 'GET', url: `${LISTA_URL}?size=0`, headers: bearer() })).json();
    expect(def.pageable.size).toBe(20);
    expect((await svc.app.inject({ method: 'GET', url: `${LISTA_URL}?size=500`, headers: bearer() })).json().pageable.size).toBe(100);
    expect((await svc.app.inject({ method: 'GET', url: `${LISTA_URL}?page=abc`, headers: bearer() })).statusCode).toBe(400);
    expect((await svc.app.inject({ method: 'GET', url: LISTA_URL })).statusCode).toBe(401);
  });
});
