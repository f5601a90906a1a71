/**
 * The reconciliation ledger as staff and scripts see it: /pedidos lists the last 30
 * days one line each ("27/11: 4 na plataforma, 4 aqui, 1 recuperados pela consulta, 0 faltando"),
 * each line opens the day's detail (recovered, missing, divergent orders), a form asks for any
 * past day; the learned alarm's current slot is said next to the webhook's state;
 * GET /api/partner/conciliacao?desde= returns the same days (Bearer), refusing a bad date (400).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer } from '../harness/service.js';
import { event, order } from '../harness/partner.js';
import { appHabilitado, navegador, sessao, type SessaoTeste } from './helpers.js';

let db: TestDatabase;
let app: FastifyInstance;
let s: SessaoTeste;
const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params).then((r) => r.rows);

const ONTEM = new Date(Date.now() - 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });
const criado = (hhmm: string) => `${ONTEM}T${hhmm}:00-03:00`;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
  s = await sessao(db);
  // yesterday: came by the webhook (A-2 is paid on the platform, CAPTURADO here as
  // waiting_payment), A-3 only by the poll, A-4 is missing here
  for (const [code, status] of [['A-1', 'received'], ['A-2', 'waiting_payment']] as const) {
    await q(`select partner_webhook_receber(convert_to($1, 'UTF8'), 'application/json')`,
      [JSON.stringify(event(order(code, status, criado('10:00'), { created_at: criado('10:00') } as never)))]);
  }
  await q('select partner_webhook_normalizar_lote(100)');
  await q(`select partner_pedido_observar($1::jsonb, 'poll')`, [JSON.stringify(order('A-3', 'received', criado('11:00'), { created_at: criado('11:00') } as never))]);
  const lista = [['A-1', 'received'], ['A-2', 'received'], ['A-3', 'received'], ['A-4', 'received']]
    .map(([code, status]) => order(code!, status!, criado('12:00'), { created_at: criado('10:00') } as never));
  await q('select partner_conciliar($1::date, $2::jsonb)', [ONTEM, JSON.stringify(lista)]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const { get, post } = navegador(() => app, () => s);

describe('the reconciliation ledger', () => {
  it('/pedidos: one line a day linking to its detail; the detail lists the recovered, missing and divergent orders', async () => {
    const [dia] = await q('select na_plataforma, aqui, recuperados, faltando, preenchidos, divergentes from partner_conciliacao where dia = $1', [ONTEM]);
    const res = await get('/pedidos');
    expect(res.statusCode).toBe(200);
    const dd = `${ONTEM.slice(8, 10)}/${ONTEM.slice(5, 7)}`;
    const linha = new RegExp(`<a href="/pedidos/conciliacao/${ONTEM}">${dd}: ${dia.na_plataforma} na plataforma, ${dia.aqui} aqui, ${dia.recuperados} recuperados pela consulta, 0 faltando`);
    expect(res.body).toMatch(linha);
    expect(res.body).toContain('name="dia"');
    expect(res.body).toMatch(/id="ritmo-pedidos">Alarme de silêncio pelos limites fixos \(ainda não há histórico suficiente para esta faixa\)|id="ritmo-pedidos">Ritmo/);

    const det = await get(`/pedidos/conciliacao/${ONTEM}`);
    expect(det.statusCode).toBe(200);
    expect(det.body).toContain('Faltando (1)');
    expect(det.body).toMatch(/<strong>A-4<\/strong><\/td><td data-rotulo="Status na plataforma">pago<\/td><td data-rotulo="Trazido agora">sim<\/td>/);
    expect(det.body).toContain('Status diferente (1)');
    expect(det.body).toMatch(/<strong>A-2<\/strong><\/td><td data-rotulo="Na plataforma">pago<\/td><td data-rotulo="Aqui">aguardando pagamento<\/td>/);
    expect(dia.divergentes).toBe(1);
    // a day never reconciled, and a day that is not a day: readable 404 pages
    expect((await get('/pedidos/conciliacao/2001-01-01')).statusCode).toBe(404);
    expect((await get('/pedidos/conciliacao/2026-02-30')).statusCode).toBe(404);
  });

  it('asking for a past day queues its job; today and garbage are refused with a banner, nothing queued', async () => {
    const antes = (await q(`select count(*)::int n from app.job where kind = 'partner_conciliar'`))[0].n;
    const pedido = await post('/pedidos/conciliacao', { dia: '2026-01-15' });
    expect([pedido.statusCode, pedido.headers.location]).toEqual([303, '/pedidos?aviso=conciliacao-pedida#conciliacao']);
    expect((await get('/pedidos?aviso=conciliacao-pedida')).body).toContain('Conciliação do dia pedida');
    const hoje = new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });
    for (const dia of [hoje, 'ontem', '2026-13-01']) {
      expect((await post('/pedidos/conciliacao', { dia })).headers.location, dia).toBe('/pedidos?aviso=conciliacao-dia-invalido#conciliacao');
    }
    expect((await q(`select count(*)::int n from app.job where kind = 'partner_conciliar'`))[0].n).toBe(antes + 1);
  });

  it('GET /api/partner/conciliacao?desde= returns the same days (Bearer); a bad date is a 400 problem', async () => {
    const res = await app.inject({ url: `/api/partner/conciliacao?desde=${ONTEM}`, headers: bearer() });
    expect(res.statusCode, res.body).toBe(200);
    const { dias } = res.json() as { dias: Array<Record<string, any>> };
    expect(dias.map((d) => d.dia)).toContain(ONTEM);
    const d = dias.find((x) => x.dia === ONTEM)!;
    expect(d).toMatchObject({ naPlataforma: 4, faltando: 1, divergentes: 1 });
    expect(d.itens.faltando.map((i: { code: string }) => i.code)).toEqual(['A-4']);
    expect(d.itens.divergentes[0]).toMatchObject({ code: 'A-2', statusPlataforma: 'received' });
    for (const bad of ['2026-02-30', '0000-01-01', 'ontem', '2026-1-1']) {
      const r = await app.inject({ url: `/api/partner/conciliacao?desde=${bad}`, headers: bearer() });
      expect(r.statusCode, bad).toBe(400);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await app.inject({ url: '/api/partner/conciliacao' })).statusCode).toBe(401);
    const st = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json() as { silencio: { aprendido: unknown } };
    expect(st.silencio).toHaveProperty('aprendido');
  });
});
