import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { drainJobs, event, logCapture, makeRunner, order } from '../harness/partner.js';
import { LOG_REVISAR, partnerJobHandlers } from '../../src/pedidos/jobs.js';
import { partnerConfigurar } from '../../src/pedidos/db.js';
import { createPool } from '../../src/db/pool.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { testEnv } from '../harness/service.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { waitUntilBlocked } from '../harness/wait.js';

const SECRET = 'segredo-do-parceiro-123';
let db: TestDatabase;
let app: FastifyInstance;
let runner: JobRunner;
const logs = logCapture();

beforeAll(async () => {
  db = await createTestDatabase();
  const { config } = loadConfig(testEnv(db, { PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'info' }));
  app = await buildApp({ config, pool: db.pool, version: '0.0.0-test', commit: null, objstore: null }, { logStream: logs.stream });
  await app.ready();
  runner = makeRunner(db.pool, partnerJobHandlers(app.ctx), app.log);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});
beforeEach(async () => {
  await db.pool.query('truncate partner_webhook, partner_pedido cascade');
  await db.pool.query(`delete from app.job`);
  await partnerConfigurar(db.pool, app.ctx.config.partner);
});

const post = (payload: string | Buffer | object, headers: Record<string, string> = {}, secret: string | null = SECRET) =>
  app.inject({
    method: 'POST', url: '/webhook/partner', payload: payload as string,
    headers: { ...(secret === null ? {} : { 'x-partner-secret': secret }), ...(typeof payload === 'object' && !Buffer.isBuffer(payload) ? { 'content-type': 'application/json' } : {}), ...headers },
  });

async function stored(id: string) {
  const { rows } = await db.pool.query('select * from partner_webhook where id = $1', [id]);
  return rows[0];
}

const drain = () => drainJobs([runner], db.pool);
const count = async (sql: string, params: unknown[] = []) => (await db.pool.query<{ n: number }>(`select count(*)::int as n from ${sql}`, params)).rows[0]!.n;

describe('POST /webhook/partner: secret', () => {
  it('401 problem without X-Partner-Secret or with a wrong one, and stores nothing', async () => {
    const body = event(order('P-1', 'waiting_payment', '2026-11-20T10:00:00Z'));
    for (const secret of [null, 'errado', `${SECRET}x`, SECRET.slice(0, 4), '']) {
      const res = await post(body, {}, secret);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 401, instance: '/webhook/partner' });
    }
    expect(await count('partner_webhook')).toBe(0);
    expect(logs.lines.some((l) => JSON.stringify(l).includes(SECRET))).toBe(false);
  });

  it('without PARTNER_WEBHOOK_SECRET every delivery is accepted', async () => {
    const open = await testApp(db);
    try {
      const res = await open.inject({ method: 'POST', url: '/webhook/partner', payload: { event: 'order.created' } });
      expect(res.statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('POST /webhook/partner: store first, answer 200', () => {
  it('stores the raw body with recebido_em before answering {recebido, id}, then normalises as a job', async () => {
    const before = new Date();
    const raw = JSON.stringify(event(order('P-10', 'waiting_payment', '2026-11-20T10:00:00Z')));
    const res = await post(raw, { 'content-type': 'application/json', 'user-agent': 'plataforma/1.0' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['id', 'recebido']);
    expect(body.recebido).toBe(true);
    const row = await stored(body.id);
    expect(row.corpo.toString('utf8')).toBe(raw);
    expect(row.recebido_em.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(row).toMatchObject({ situacao: 'PENDENTE', content_type: 'application/json', user_agent: 'plataforma/1.0' });
    expect(await count(`app.job where kind = 'partner_normalizar' and status = 'pending'`)).toBe(1);

    await drain();
    expect(await stored(body.id)).toMatchObject({ situacao: 'NORMALIZADO', resultado: 'criado', evento: 'order.created', code: 'P-10' });
    const { rows } = await db.pool.query('select * from partner_pedido where code = $1', ['P-10']);
    expect(rows[0]).toMatchObject({ estado: 'CAPTURADO', status: 'waiting_payment', origem: 'webhook', cliente_nome: 'Posto Boa Viagem' });
    expect(Number(rows[0].total)).toBe(150.5);
  });

  it('a body that is not JSON (or not an event) is stored byte for byte, answered 200 and flagged for review', async () => {
    const cases: Array<{ payload: string | Buffer; headers: Record<string, string>; resultado: string }> = [
      { payload: '{nope', headers: { 'content-type': 'application/json' }, resultado: 'json_invalido' },
      { payload: 'olá, texto', headers: { 'content-type': 'text/plain' }, resultado: 'json_invalido' },
      { payload: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' }, resultado: 'json_invalido' },
      { payload: Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x22]), headers: { 'content-type': 'application/octet-stream' }, resultado: 'json_invalido' },
      { payload: '{"event":"order.paid","resource":{"code":"X","status":"received","updated_at":"2026-11-20T10:00:00Z","note":"\\u0000"}}',
        headers: { 'content-type': 'application/json' }, resultado: 'json_invalido' },
      { payload: '', headers: { 'content-type': 'application/json' }, resultado: 'json_invalido' },
      { payload: '[1,2,3]', headers: { 'content-type': 'application/json' }, resultado: 'formato_desconhecido' },
      { payload: JSON.stringify({ event: 'invoice.created', resource: { code: 'P-77' } }), headers: { 'content-type': 'application/json' }, resultado: 'evento_desconhecido' },
      { payload: JSON.stringify({ hello: 'world' }), headers: { 'content-type': 'application/json' }, resultado: 'evento_desconhecido' },
      { payload: JSON.stringify(event(order('', 'received', '2026-11-20T10:00:00Z'))), headers: { 'content-type': 'application/json; charset=utf-8' }, resultado: 'pedido_invalido' },
      { payload: JSON.stringify(event(order('P-78', 'lost_in_space', '2026-11-20T10:00:00Z'))), headers: { 'content-type': 'application/json' }, resultado: 'pedido_invalido' },
      { payload: JSON.stringify(event(order('P-79', 'received', 'ontem'))), headers: { 'content-type': 'application/json' }, resultado: 'pedido_invalido' },
      { payload: JSON.stringify(event(order('P-80', 'received', '2026-11-20T10:00:00Z', { total: 'doze reais' }))), headers: { 'content-type': 'application/json' }, resultado: 'pedido_invalido' },
    ];
    const ids: string[] = [];
    for (const c of cases) {
      const res = await post(c.payload, c.headers);
      expect(res.statusCode, String(c.payload)).toBe(200);
      ids.push(res.json().id);
    }
    // no content-type at all, with and without a body
    for (const payload of ['sem tipo', undefined]) {
      const res = await app.inject({ method: 'POST', url: '/webhook/partner', headers: { 'x-partner-secret': SECRET }, ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().id);
    }
    await drain();
    for (const [i, c] of cases.entries()) {
      const row = await stored(ids[i]!);
      expect(Buffer.compare(row.corpo, Buffer.isBuffer(c.payload) ? c.payload : Buffer.from(c.payload, 'utf8')), String(c.payload)).toBe(0);
      expect(row.situacao, String(c.payload)).toBe('REVISAR');
      expect(row.resultado, String(c.payload)).toBe(c.resultado);
      expect(row.detalhe).toBeTruthy();
    }
    expect((await stored(ids.at(-2)!)).corpo.toString()).toBe('sem tipo');
    expect((await stored(ids.at(-1)!)).corpo.length).toBe(0);
    expect(await count(`partner_webhook where situacao = 'REVISAR'`)).toBe(cases.length + 2);
    expect(await count('partner_pedido')).toBe(0);
    expect(logs.lines.filter((l) => l.msg === LOG_REVISAR).reduce((a, l) => a + Number(l.revisar), 0)).toBe(cases.length + 2);
  });

  it('an event without status takes it from the event: order.paid → received, order.cancelled → cancelled', async () => {
    const semStatus = (code: string) => { const { status: _s, ...o } = order(code, 'received', '2026-11-20T10:00:00Z'); return o; };
    for (const [code, evento] of [['S-PAGO', 'order.paid'], ['S-CANC', 'order.cancelled']] as const) {
      const b = { event: evento, time: '2026-11-20T10:00:00Z', resource: semStatus(code) };
      expect(b.resource).not.toHaveProperty('status');
      expect((await post(b)).statusCode).toBe(200);
    }
    await drain();
    expect((await db.pool.query(`select code, status, estado from partner_pedido order by code`)).rows).toEqual([
      { code: 'S-CANC', status: 'cancelled', estado: 'CANCELADO' },
      { code: 'S-PAGO', status: 'received', estado: 'CAPTURADO' },
    ]);
    expect(await count(`partner_webhook where situacao <> 'NORMALIZADO'`)).toBe(0);
  });

  it('what the normalisation writes on the row, per outcome: the same through a batch (one UPDATE of the batch) and one event at a time', async () => {
    const bodies = [
      '{nope',
      '[1,2,3]',
      JSON.stringify({ event: 'invoice.created', resource: { code: ' P-77 ' } }),
      JSON.stringify(event(order('P-78', 'lost_in_space', '2026-11-20T10:00:00Z'), 'order.paid')),
      JSON.stringify(event(order('P-79', 'waiting_payment', '2026-11-20T10:00:00Z'))),
    ];
    const colunas = async (id: string) => {
      const r = await stored(id);
      return { situacao: r.situacao, resultado: r.resultado, detalhe: r.detalhe?.slice(0, 24) ?? null, evento: r.evento, code: r.code,
        payload: r.payload, processado: r.processado_em !== null };
    };
    const esperado = [
      { situacao: 'REVISAR', resultado: 'json_invalido', evento: null, code: null, payload: null, processado: true },
      { situacao: 'REVISAR', resultado: 'formato_desconhecido', detalhe: 'o corpo é JSON mas não é', evento: null, code: null, payload: [1, 2, 3], processado: true },
      { situacao: 'REVISAR', resultado: 'evento_desconhecido', detalhe: "evento 'invoice.created'", evento: 'invoice.created', code: 'P-77',
        payload: JSON.parse(bodies[2]!), processado: true },
      { situacao: 'REVISAR', resultado: 'pedido_invalido', evento: 'order.paid', code: 'P-78', payload: JSON.parse(bodies[3]!), processado: true },
      { situacao: 'NORMALIZADO', resultado: 'criado', detalhe: null, evento: 'order.created', code: 'P-79', payload: JSON.parse(bodies[4]!), processado: true },
    ];
    // a batch: the job
    const lote: string[] = [];
    for (const b of bodies) lote.push((await post(b, { 'content-type': 'application/json' })).json().id);
    await drain();
    const viaLote = await Promise.all(lote.map(colunas));
    for (const [i, e] of esperado.entries()) expect(viaLote[i], bodies[i]).toMatchObject(e);
    expect(viaLote[0]!.detalhe).toBeTruthy();
    expect(viaLote[3]!.detalhe).toBe('pedido P-78: status desc'); // 'pedido P-78: status desconhecido lost_in_space', cut to 24 above
    // one at a time: partner_webhook_normalizar, on the same bodies stored again from scratch
    await db.pool.query('truncate partner_webhook, partner_pedido cascade');
    await db.pool.query('delete from app.job');
    const um: string[] = [];
    for (const b of bodies) um.push((await db.pool.query('select partner_webhook_receber($1::bytea) as id', [Buffer.from(b)])).rows[0].id);
    for (const id of um) await db.pool.query('select partner_webhook_normalizar($1::uuid)', [id]);
    expect(await Promise.all(um.map(colunas))).toEqual(viaLote);
  });

  it('a batch of large bodies is written in several UPDATEs (one per 8 MiB): every row normalised, its body untouched', async () => {
    const ids: string[] = [];
    const corpos: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = JSON.stringify(event(order(`P-GRANDE-${i}`, 'waiting_payment', '2026-11-20T10:00:00Z', { observacao: `${i}`.repeat(3 * 1024 * 1024) })));
      corpos.push(c);
      ids.push((await post(c, { 'content-type': 'application/json' })).json().id);
    }
    await drain();
    const { rows } = await db.pool.query(`select id, situacao, resultado, code, corpo, payload -> 'resource' ->> 'code' as payload_code,
        length(payload -> 'resource' ->> 'observacao') as obs from partner_webhook order by recebido_em`);
    expect(rows.map((r) => [r.id, r.situacao, r.resultado, r.code, r.payload_code, r.obs])).toEqual(
      ids.map((id, i) => [id, 'NORMALIZADO', 'criado', `P-GRANDE-${i}`, `P-GRANDE-${i}`, 3 * 1024 * 1024]));
    expect(rows.map((r, i) => r.corpo.equals(Buffer.from(corpos[i]!)))).toEqual([true, true, true, true]);
  });

  it('accepts a body larger than the 1 MiB limit of the rest of the service', async () => {
    const big = event(order('P-BIG', 'waiting_payment', '2026-11-20T10:00:00Z', { observacao: 'x'.repeat(2 * 1024 * 1024) }));
    const res = await post(big);
    expect(res.statusCode).toBe(200);
    await drain();
    expect(await stored(res.json().id)).toMatchObject({ situacao: 'NORMALIZADO', resultado: 'criado' });
  });

  it('503 problem (and an ERROR log) only when the database cannot store the event and there is no spool', async () => {
    const deadPool = createPool('postgres://postgres@127.0.0.1:1/nada', 2);
    const { config } = loadConfig(testEnv(db, { PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'info', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0' }));
    const cap = logCapture();
    const broken = await buildApp({ config, pool: deadPool, version: 't', commit: null, objstore: null }, { logStream: cap.stream });
    try {
      const res = await broken.inject({ method: 'POST', url: '/webhook/partner', headers: { 'x-partner-secret': SECRET }, payload: '{}' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toBe('60');
      expect(cap.lines.filter((l) => l.level === 40 && l.msg?.includes('tentando de novo'))).toHaveLength(3);
      expect(cap.lines.filter((l) => l.level === 50 && l.msg?.includes('NÃO gravado'))).toHaveLength(1);
    } finally {
      await broken.close();
      await deadPool.end();
    }
  });
});

describe('normalisation: idempotent by code, tolerant of order', () => {
  it('a burst of duplicate and out-of-order events ends in the newest state, each order released once', async () => {
    const codes = Array.from({ length: 12 }, (_, i) => `B-${i}`);
    const events: object[] = [];
    for (const c of codes) {
      const v1 = event(order(c, 'waiting_payment', '2026-11-20T10:00:00Z'));
      const v2 = event(order(c, 'received', '2026-11-20T10:05:00Z'));
      const v3 = event(order(c, 'invoiced', '2026-11-20T11:00:00Z'));
      events.push(v1, v2, v3, v2, v3, v1); // every event twice
    }
    // deterministic shuffle
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = events.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [events[i], events[j]] = [events[j]!, events[i]!];
    }
    const answers = await Promise.all(events.map((e) => post(e)));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(answers.map((r) => r.json().id)).size).toBe(events.length);

    const r2 = makeRunner(db.pool, partnerJobHandlers(app.ctx), app.log, 'replica-2');
    await drainJobs([runner, r2], db.pool);

    expect(await count(`partner_webhook where situacao = 'NORMALIZADO'`)).toBe(events.length);
    const { rows } = await db.pool.query(`select code, estado, status, atualizado_no_parceiro, liberacao from partner_pedido order by code`);
    expect(rows).toHaveLength(codes.length);
    for (const r of rows) {
      expect(r).toMatchObject({ estado: 'ENFILEIRADO', status: 'invoiced', liberacao: 'gate_transicao' });
      expect(r.atualizado_no_parceiro.toISOString()).toBe('2026-11-20T11:00:00.000Z');
    }
    expect(await count(`partner_pedido_transicao where para = 'ENFILEIRADO'`)).toBe(codes.length);
    const res = await db.pool.query<{ resultado: string; n: number }>(
      `select resultado, count(*)::int as n from partner_webhook group by 1 order by 1`);
    const by = Object.fromEntries(res.rows.map((r) => [r.resultado, r.n]));
    expect(by.criado).toBe(codes.length);
    expect((by.atualizado ?? 0) + (by.obsoleto ?? 0) + (by.repetido ?? 0)).toBe(events.length - codes.length);
    expect(by.repetido).toBeGreaterThanOrEqual(1);
    // the intake coalesced the burst into few normalisation jobs, each run once
    expect(await count(`app.job where kind = 'partner_normalizar' and (status <> 'done' or attempts <> 1)`)).toBe(0);
    expect(await count(`app.job where kind = 'partner_normalizar'`)).toBeLessThan(events.length / 4);
  });

  it('an older updated_at never overwrites a newer state, whatever the arrival order', async () => {
    const ids: string[] = [];
    for (const e of [
      event(order('O-1', 'shipped', '2026-11-20T12:00:00Z')),
      event(order('O-1', 'waiting_payment', '2026-11-20T10:00:00Z')),
      event(order('O-1', 'received', '2026-11-20T10:30:00Z')),
      event(order('O-1', 'shipped', '2026-11-20T12:00:00Z')),
    ]) {
      ids.push((await post(e)).json().id);
      await drain(); // one at a time, in this arrival order
    }
    const results = await Promise.all(ids.map(async (id) => (await stored(id)).resultado));
    expect(results).toEqual(['criado', 'obsoleto', 'obsoleto', 'repetido']);
    const { rows } = await db.pool.query(`select * from partner_pedido where code = 'O-1'`);
    expect(rows[0]).toMatchObject({ status: 'shipped', estado: 'ENFILEIRADO', liberacao: 'gate_transicao' });
    // the released order went CAPTURADO -> ENFILEIRADO once the evidence (unpaid 10:00 < received 10:30) was complete
    const t = await db.pool.query(`select de, para, motivo from partner_pedido_transicao t join partner_pedido p on p.id = t.pedido_id
      where p.code = 'O-1' order by t.id`);
    expect(t.rows).toEqual([
      { de: null, para: 'CAPTURADO', motivo: 'captura' },
      { de: 'CAPTURADO', para: 'ENFILEIRADO', motivo: 'gate_transicao' },
    ]);
  });

  it('same updated_at: the later lifecycle stage wins in either order', async () => {
    for (const [code, first, second] of [['T-1', 'received', 'cancelled'], ['T-2', 'cancelled', 'received']] as const) {
      await post(event(order(code, first, '2026-11-20T10:00:00Z')));
      await drain();
      await post(event(order(code, second, '2026-11-20T10:00:00Z')));
      await drain();
    }
    const { rows } = await db.pool.query(`select code, status, estado from partner_pedido order by code`);
    expect(rows).toEqual([
      { code: 'T-1', status: 'cancelled', estado: 'CANCELADO' },
      { code: 'T-2', status: 'cancelled', estado: 'CANCELADO' },
    ]);
  });

  it('an unexpected failure is retried for that event only (backoff, then REVISAR erro_interno); the batch goes on', async () => {
    await db.pool.query(`create or replace function public.tg_teste_falha() returns trigger language plpgsql as $$
      begin if new.code like 'R-%' then raise exception 'falha simulada'; end if; return new; end $$`);
    await db.pool.query(`create trigger _000_teste before insert on partner_pedido for each row execute function public.tg_teste_falha()`);
    const id = (await post(event(order('R-1', 'received', '2026-11-20T10:00:00Z')))).json().id;
    const ok = (await post(event(order('OK-1', 'received', '2026-11-20T10:00:00Z')))).json().id;
    const id2 = (await post(event(order('R-2', 'received', '2026-11-20T10:00:00Z')))).json().id;
    try {
      await drain();
      expect(await stored(ok)).toMatchObject({ situacao: 'NORMALIZADO' });
      const row = await stored(id);
      expect(row).toMatchObject({ situacao: 'PENDENTE', tentativas: 1, detalhe: 'falha simulada' });
      expect(row.proxima_tentativa_em.getTime()).toBeGreaterThan(Date.now());
      // the job ended: nothing was due; partner_tick re-enqueues once the retry is due
      expect(await count(`app.job where kind = 'partner_normalizar' and status in ('pending', 'running')`)).toBe(0);
      await db.pool.query(`update partner_webhook set proxima_tentativa_em = now(), tentativas = 7 where id = $1`, [id2]);
      expect(await db.pool.query('select partner_tick() as r').then((r) => r.rows[0].r)).toHaveProperty('normalizacao_enfileirada');
      await drain();
      expect(await stored(id2)).toMatchObject({ situacao: 'REVISAR', resultado: 'erro_interno', tentativas: 8 });
    } finally {
      await db.pool.query(`drop trigger _000_teste on partner_pedido; drop function public.tg_teste_falha()`);
    }
    await db.pool.query(`update partner_webhook set proxima_tentativa_em = now() where id = $1`, [id]);
    await db.pool.query('select partner_tick()');
    await drain();
    expect(await stored(id)).toMatchObject({ situacao: 'NORMALIZADO', resultado: 'criado', tentativas: 1 });
  });

  it('no stored event is left without a job while the job finishes (intake racing the end of the batch)', async () => {
    // many rounds of: a burst of intakes while a runner drains; at the end nothing is PENDENTE
    for (let round = 0; round < 5; round++) {
      const posting = Promise.all(Array.from({ length: 30 }, (_, i) => post(event(order(`RACE-${round}-${i}`, 'waiting_payment', '2026-11-20T10:00:00Z')))));
      const draining = (async () => { for (let k = 0; k < 10; k++) { runner.wake(); await runner.settled(); } })();
      await Promise.all([posting, draining]);
    }
    await drain();
    expect(await count(`partner_webhook where situacao = 'PENDENTE'`)).toBe(0);
    expect(await count('partner_pedido')).toBe(150);
  });

  it('the end of the job waits for an intake in flight, so its event is not orphaned (deterministic race)', async () => {
    await db.pool.query(`select app.enqueue('partner_normalizar', '{}', now(), 'lote', 100)`);
    const [job] = (await db.pool.query(`select id from app.claim_jobs('w-corrida', array['partner_normalizar'], 1)`)).rows;
    const intake = await db.pool.connect();
    try {
      await intake.query('begin');
      await intake.query('select partner_webhook_receber($1::bytea)', [Buffer.from(JSON.stringify(event(order('RC-1', 'waiting_payment', '2026-11-20T10:00:00Z'))))]);
      // the job's enqueue was a no-op (a running job exists); now the job tries to finish
      let done = false;
      const fim = db.pool.query('select partner_normalizar_concluir($1, $2) as ok', ['w-corrida', job.id]).then((r) => { done = true; return r.rows[0].ok; });
      await waitUntilBlocked(db.pool, { queryLike: 'partner_normalizar_concluir' });
      expect(done).toBe(false); // blocked by the intake still in flight
      await intake.query('commit');
      expect(await fim).toBe(false); // it sees the new event: the job goes on
    } finally {
      intake.release();
    }
    expect(await count(`app.job where id = $1 and status = 'running'`, [job.id])).toBe(1);
    expect((await db.pool.query('select partner_webhook_normalizar_lote() as r')).rows[0].r).toEqual({ tratados: 1, revisar: 0 });
    expect((await db.pool.query('select partner_normalizar_concluir($1, $2) as ok', ['w-corrida', job.id])).rows[0].ok).toBe(true);
    expect(await count(`app.job where id = $1 and status = 'done'`, [job.id])).toBe(1);
    // and the next intake finds no running job: it enqueues a new one
    await post(event(order('RC-2', 'waiting_payment', '2026-11-20T10:00:00Z')));
    expect(await count(`app.job where kind = 'partner_normalizar' and status = 'pending'`)).toBe(1);
  });

  it('partner_webhook_reprocessar: a REVISAR event can be fixed and normalised again; PW404 / PW409 otherwise', async () => {
    const id = (await post('{"event":"order.paid","resource":{"code":"F-1","status":"received","updated_at":"2026-11-20T10:00:00Z"}')).json().id;
    await drain();
    expect(await stored(id)).toMatchObject({ situacao: 'REVISAR', resultado: 'json_invalido' });
    await db.pool.query(`update partner_webhook set corpo = corpo || '}'::bytea where id = $1`, [id]);
    await db.pool.query('select partner_webhook_reprocessar($1)', [id]);
    await drain();
    expect(await stored(id)).toMatchObject({ situacao: 'NORMALIZADO', resultado: 'criado', code: 'F-1' });
    await expect(db.pool.query('select partner_webhook_reprocessar($1)', [id])).rejects.toMatchObject({ code: 'PW409' });
    await expect(db.pool.query('select partner_webhook_reprocessar(gen_random_uuid())')).rejects.toMatchObject({ code: 'PW404' });
  });
});

describe('gate', () => {
  const observe = (o: object, origem = 'webhook') => db.pool.query('select partner_pedido_observar($1::jsonb, $2) as r', [JSON.stringify(o), origem]);
  const pedido = async (code: string) => (await db.pool.query('select * from partner_pedido where code = $1', [code])).rows[0];

  it('releases on the witnessed transition to received; an order first seen paid stays CAPTURADO without alarm', async () => {
    await post(event(order('G-1', 'waiting_payment', '2026-11-20T10:00:00Z')));
    await post(event(order('G-2', 'received', '2026-11-20T10:00:00Z')));
    await drain();
    await post(event(order('G-1', 'received', '2026-11-20T10:10:00Z')));
    await drain();
    expect(await pedido('G-1')).toMatchObject({ estado: 'ENFILEIRADO', liberacao: 'gate_transicao', enfileirado_por: 'gate_transicao' });
    expect(await pedido('G-2')).toMatchObject({ estado: 'CAPTURADO', liberacao: null });
    // by the poll too
    await observe(order('G-3', 'received', '2026-11-20T10:00:00Z'), 'poll');
    expect(await pedido('G-3')).toMatchObject({ estado: 'CAPTURADO', origem: 'poll' });
    expect(await count('partner_aviso')).toBe(0);
    expect(await count('partner_episodio')).toBe(0);
  });

  it('first-capture rescue: with PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE, paid_at at or after it is released', async () => {
    const { config } = loadConfig(testEnv(db, { PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: '2026-11-20' }));
    await partnerConfigurar(db.pool, config.partner);
    const desde = (await db.pool.query('select gate_primeira_captura_desde as d from partner_configuracao')).rows[0].d;
    expect(desde.toISOString()).toBe('2026-11-20T03:00:00.000Z'); // midnight in America/Sao_Paulo
    await observe(order('R-1', 'received', '2026-11-20T03:00:00Z'), 'poll');
    await observe(order('R-2', 'received', '2026-11-20T02:59:59Z'), 'poll');
    await observe(order('R-3', 'waiting_payment', '2026-11-21T10:00:00Z'), 'poll');
    expect(await pedido('R-1')).toMatchObject({ estado: 'ENFILEIRADO', liberacao: 'gate_resgate_primeira_captura' });
    expect(await pedido('R-2')).toMatchObject({ estado: 'CAPTURADO' });
    expect(await pedido('R-3')).toMatchObject({ estado: 'CAPTURADO' });
    // off again: a new capture stays
    await partnerConfigurar(db.pool, app.ctx.config.partner);
    await observe(order('R-4', 'received', '2026-11-21T10:00:00Z'), 'poll');
    expect(await pedido('R-4')).toMatchObject({ estado: 'CAPTURADO' });
    await expect(db.pool.query(`select partner_configurar(false, 45, 24, 15, 5, 6, 'amanhã', false)`)).rejects.toMatchObject({ code: 'PW400' });
  });

  it('a newer cancelled status cancels even a released order, and CANCELADO stays', async () => {
    await observe(order('C-1', 'waiting_payment', '2026-11-20T10:00:00Z'));
    await observe(order('C-1', 'received', '2026-11-20T10:01:00Z'));
    expect(await pedido('C-1')).toMatchObject({ estado: 'ENFILEIRADO' });
    await observe(order('C-1', 'cancelled', '2026-11-20T10:02:00Z'));
    expect(await pedido('C-1')).toMatchObject({ estado: 'CANCELADO', status: 'cancelled' });
    await observe(order('C-1', 'received', '2026-11-20T10:03:00Z'));
    expect(await pedido('C-1')).toMatchObject({ estado: 'CANCELADO', status: 'received' });
  });
});

describe('API under Bearer', () => {
  it('POST /api/pedidos/{code}/enfileirar releases a paid CAPTURADO order once; 404, 409, 422 problems otherwise', async () => {
    const observe = (o: object) => db.pool.query('select partner_pedido_observar($1::jsonb, $2)', [JSON.stringify(o), 'poll']);
    await observe(order('E-1', 'received', '2026-11-20T10:00:00Z'));
    await observe(order('E-2', 'waiting_payment', '2026-11-20T10:00:00Z'));
    await observe(order('E-3', 'cancelled', '2026-11-20T10:00:00Z'));
    const enf = (code: string, headers: Record<string, string> = bearer()) => app.inject({ method: 'POST', url: `/api/pedidos/${encodeURIComponent(code)}/enfileirar`, headers });

    expect((await enf('E-1', {})).statusCode).toBe(401);
    const ok = await enf('E-1');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ code: 'E-1', estado: 'ENFILEIRADO', liberacao: 'console', enfileiradoPor: 'api', status: 'received', total: 150.5 });
    expect(Object.keys(ok.json()).sort()).toEqual(['atualizadoEm', 'atualizadoNoParceiro', 'cliente', 'code', 'criadoEm', 'enfileiradoEm',
      'enfileiradoPor', 'estado', 'id', 'itens', 'liberacao', 'origem', 'pagoEm', 'status', 'total'].sort());
    const again = await enf('E-1');
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('PD409');
    expect((await enf('E-2')).json()).toMatchObject({ status: 422, code: 'PD422' });
    expect((await enf('E-3')).json()).toMatchObject({ status: 409, code: 'PD409' });
    expect((await enf('NAO-EXISTE')).json()).toMatchObject({ status: 404, code: 'PD404' });
    expect(await count(`partner_pedido_transicao where motivo = 'console'`)).toBe(1);

    const get = await app.inject({ url: '/api/pedidos/E-2', headers: bearer() });
    expect(get.json()).toMatchObject({ code: 'E-2', estado: 'CAPTURADO', pagoEm: null, cliente: { nome: 'Posto Boa Viagem' } });
    expect((await app.inject({ url: '/api/pedidos/zzz', headers: bearer() })).json()).toMatchObject({ status: 404, code: 'PD404' });
  });

  it('GET /api/partner/status reports every key', async () => {
    expect((await app.inject({ url: '/api/partner/status' })).statusCode).toBe(401);
    const empty = await app.inject({ url: '/api/partner/status', headers: bearer() });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toMatchObject({
      ultimoEvento: null, episodioAberto: null, ultimoEpisodio: null, ultimoPoll: null, ultimaPuxada: null,
      contingencia: { ligada: false, apiConfigurada: false, ligadaEm: null, ultimaDesligadaEm: null },
      watchdog: { habilitado: false, limiteMinComercial: 45, limiteHoras: 24 },
      eventos: { pendentes: 0, revisar: 0 }, pedidos: { capturados: 0, enfileirados: 0, cancelados: 0 },
    });
    const id = (await post(event(order('S-1', 'received', '2026-11-20T10:00:00Z')))).json().id;
    const s = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json();
    expect(s.ultimoEvento).toMatchObject({ id, situacao: 'PENDENTE', evento: null });
    expect(s.eventos.pendentes).toBe(1);
    expect(Object.keys(s).sort()).toEqual(['agora', 'contingencia', 'episodioAberto', 'eventos', 'pedidos', 'silencio', 'spool',
      'ultimaPuxada', 'ultimoEpisodio', 'ultimoEvento', 'ultimoPoll', 'watchdog']);
    expect(s.spool).toEqual({
      replica: hostname(), habilitado: true, ativo: false, bancoIndisponivel: false, registros: 0, bytes: 0,
      limiteBytes: 1024 * 1024 * 1024, maisAntigoEm: null, idadeSegundos: null,
    });
    expect(Object.keys(s.silencio).sort()).toEqual(['alertaPrevistoEm', 'aprendido', 'desde', 'horas', 'minutosComerciais']);
    // the learned alarm, with no history: the fixed thresholds decide, and it says why
    expect(Object.keys(s.silencio.aprendido).sort()).toEqual(['base', 'disparaEm', 'esperados', 'faixaAtual', 'fixoEm', 'motivoFixo', 'probabilidade']);
  });
});
