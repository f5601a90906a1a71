/**
 * The batch normalisation (partner_webhook_normalizar_lote: the batch as sets) against the
 * one-event path (partner_webhook_normalizar, event by event in arrival order): the same mixed
 * backlog — new codes, codes repeated inside a batch in and out of order, existing orders
 * newer / older / equal, cancellations, paid orders released by the gate (an older unpaid
 * observation arriving after a paid one too), and every kind of unreadable event — must leave
 * the same partner_webhook rows, partner_pedido rows and transitions, whatever the batch size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const AGORA = '2026-11-24T12:00:00Z';
const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);

function ev(code: unknown, event: string, status: string | undefined, updatedAt: string | null | undefined, extra: Record<string, unknown> = {}, time = '2026-11-20T09:00:00Z') {
  const resource: Record<string, unknown> = { code, total: 100.5, customer: { name: `Cliente ${String(code)}`, email: 'c@posto.example', document: '123' },
    items: [{ sku: 'DIESEL', quantity: 1, price: 100.5 }], ...extra };
  if (status !== undefined) resource.status = status;
  if (updatedAt !== undefined) resource.updated_at = updatedAt;
  return JSON.stringify({ event, time, resource });
}
const SEM = { customer: undefined, items: undefined, total: undefined };
const T = (h: number, m = 0) => `2026-11-20T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00Z`;

/** Orders that exist before the backlog (through the one-order API, as the poll does). */
const EXISTENTES: Array<[string, string, string]> = [
  ['E-NOVO', 'invoiced', T(15)], // the backlog brings an older one: obsoleto
  ['E-VELHO', 'waiting_payment', T(8)], // a newer received one: atualizado, released
  ['E-IGUAL', 'waiting_payment', T(8)], // the same again: repetido
  ['E-FILA', 'received', T(9)], // with an older unpaid one below: released, then cancelled
];

/** The backlog, in arrival order (Buffers are sent as they are). */
const BACKLOG: Array<string | Buffer> = [
  ev('N-1', 'order.created', 'waiting_payment', T(10)),
  ev('R-1', 'order.created', 'waiting_payment', T(10)), // R-1 three times in order
  ev('E-NOVO', 'order.status.updated', 'received', T(11)),
  ev('R-1', 'order.paid', 'received', T(11), { paid_at: T(11) }),
  ev('R-2', 'order.status.updated', 'invoiced', T(12)), // R-2 out of order: newest first
  '{nope',
  ev('E-VELHO', 'order.paid', 'received', T(9), { paid_at: T(9) }),
  ev('R-1', 'order.status.updated', 'invoiced', T(12)),
  ev('R-2', 'order.paid', 'received', T(11), { paid_at: T(11) }), // older: obsoleto, but received evidence and paid_at
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // invalid UTF-8
  ev('E-IGUAL', 'order.created', 'waiting_payment', T(8)),
  ev('R-2', 'order.created', 'waiting_payment', T(10)), // older still: the unpaid evidence that releases it
  '[1,2,3]',
  '"texto"',
  '{"a": "\\u0000"}',
  JSON.stringify({ event: 'invoice.created', resource: { code: ' P-77 ' } }),
  JSON.stringify({ resource: { code: 'SEM-EVENTO' } }),
  ev('E-FILA', 'order.created', 'waiting_payment', T(8)),
  JSON.stringify({ event: 'order.created', time: T(10), resource: { status: 'waiting_payment', updated_at: T(10) } }), // no code
  JSON.stringify({ event: 'order.created', time: T(10), resource: 'P-STRING' }), // resource not an object
  JSON.stringify({ event: 'order.paid', time: T(10) }), // no resource
  ev('X-STATUS', 'order.paid', 'lost_in_space', T(10)),
  ev('X-DATA', 'order.created', 'waiting_payment', 'ontem'),
  ev('X-DATA2', 'order.created', 'waiting_payment', '2026-13-45T00:00:00Z'), // the ISO shape, not a date: the cast fails
  ev('X-TIME', 'order.created', 'waiting_payment', undefined, {}, 'amanhã'),
  ev('X-TIME2', 'order.created', 'waiting_payment', null, {}, '2026-02-30T10:00:00Z'),
  JSON.stringify({ event: 'order.created', resource: { code: 'X-SEM-DATA', status: 'waiting_payment' } }),
  ev('X-PAGO', 'order.paid', 'received', T(10), { paid_at: 42 }),
  ev('X-TOTAL', 'order.created', 'waiting_payment', T(10), { total: 'abc' }),
  ev('X-DATA', 'order.created', 'waiting_payment', T(10)), // the same code, readable this time: criado
  ev('E-FILA', 'order.cancelled', undefined, T(13)), // status from the event: cancelled, after its release
  ev(123, 'order.created', 'WAITING_PAYMENT ', undefined, { total: ' 12.50 ' }, T(10, 30)), // numeric code, the event's time for updated_at
  ev(' C-1 ', 'order.created', 'waiting_payment', T(10)),
  ev('C-1', 'order.cancelled', undefined, T(11)),
  ev('C-1', 'order.created', 'waiting_payment', T(10)), // older than the cancellation: obsoleto
  ev('P-1', 'order.paid', 'received', T(10), { paid_at: T(10) }), // first seen paid, before gate_primeira_captura_desde: stays
  ev('P-2', 'order.paid', 'received', T(14), { paid_at: T(14) }), // paid after it: released (resgate)
  ev('P-3', 'order.created', 'refused', T(10)),
  ev('P-3', 'order.paid', 'received', T(11), { paid_at: T(11) }),
  ev('P-3', 'order.paid', 'received', T(11), { paid_at: T(11) }), // repetido
  ev('P-4', 'order.status.updated', 'received', T(10), { customer: 'não é objeto', items: { nao: 'lista' }, total: null, paid_at: null }),
  ev('P-4', 'order.status.updated', 'received', T(10), SEM), // same instant, same status: repetido
  ev('P-4', 'order.status.updated', 'delivered', T(10), SEM), // same instant, later stage: atualizado
];

async function preparar(): Promise<string[]> {
  await q('truncate partner_webhook, partner_pedido cascade');
  const cfg = await q(`update partner_configuracao set gate_primeira_captura_desde = '2026-11-20T12:00:00Z'`);
  expect(cfg.rowCount).toBe(1);
  for (const [code, status, t] of EXISTENTES) {
    await q(`select partner_pedido_observar($1::jsonb, 'poll', null, null, '2026-11-24T08:00:00Z')`,
      [JSON.stringify({ code, status, updated_at: t, total: 1, paid_at: status === 'received' ? t : null })]);
  }
  const ids = BACKLOG.map(() => randomUUID());
  const base = Date.parse('2026-11-24T10:00:00Z');
  await q(`select count(*) from partner_webhook_receber_lote($1::uuid[], $2::bytea[], null, null, null, $3::timestamptz[])`,
    [ids, BACKLOG.map((b) => (Buffer.isBuffer(b) ? b : Buffer.from(b))), ids.map((_, i) => new Date(base + i * 1000).toISOString())]);
  return ids;
}

async function estado() {
  const eventos = (await q(`select situacao, resultado, detalhe, evento, code, payload, processado_em, tentativas
      from partner_webhook order by recebido_em`)).rows;
  const pedidos = (await q(`select code, estado, status, total, pago_em, atualizado_no_parceiro, cliente_nome, cliente_email,
      cliente_documento, itens, recurso, origem, nao_pago_visto_em, recebido_visto_em, enfileirado_em, enfileirado_por, liberacao
      from partner_pedido order by code`)).rows;
  const transicoes = (await q(`select p.code, t.de, t.para, t.motivo, t.em from partner_pedido_transicao t
      join partner_pedido p on p.id = t.pedido_id order by p.code, t.id`)).rows;
  return { eventos, pedidos, transicoes };
}

async function umPorUm() {
  const ids = await preparar();
  for (const id of ids) await q('select partner_webhook_normalizar($1::uuid, $2)', [id, AGORA]);
  return estado();
}

async function emLotes(limite: number) {
  await preparar();
  let lotes = 0;
  // transaction ids are handed out in sequence, to a subtransaction only when it writes: a batch
  // normalised as a set takes two (its transaction, the subtransaction of the batch); redone
  // one event at a time (the fallback after an unexpected error, which would give the same
  // rows) it takes one more per event
  const xid = async () => Number((await q('select txid_current()::text as x')).rows[0].x);
  const antes = await xid();
  for (;;) {
    const r = (await q('select partner_webhook_normalizar_lote($1, $2) as r', [limite, AGORA])).rows[0].r;
    if (r.tratados === 0) break;
    lotes++;
  }
  const xids = (await xid()) - antes - 1;
  return { ...(await estado()), lotes, xids };
}

describe('partner_webhook_normalizar_lote: the batch as sets, the same as one event at a time', () => {
  let referencia: Awaited<ReturnType<typeof umPorUm>>;
  beforeAll(async () => { referencia = await umPorUm(); });

  it('one event at a time: the outcomes the rules give (so that the comparison below compares something)', () => {
    expect(referencia.eventos.map((e) => e.resultado)).toEqual([
      'criado', 'criado', 'obsoleto', 'atualizado', 'criado', 'json_invalido', 'atualizado', 'atualizado', 'obsoleto', 'json_invalido',
      'repetido', 'obsoleto', 'formato_desconhecido', 'formato_desconhecido', 'json_invalido', 'evento_desconhecido', 'evento_desconhecido',
      'obsoleto', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido',
      'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'pedido_invalido', 'criado', 'atualizado', 'criado',
      'criado', 'atualizado', 'obsoleto', 'criado', 'criado', 'criado', 'atualizado', 'repetido', 'criado', 'repetido', 'atualizado',
    ]);
    const detalhe = referencia.eventos.map((e) => e.detalhe);
    expect(detalhe.slice(18, 29)).toEqual([
      'pedido sem code', 'o pedido não é um objeto JSON', 'o pedido não é um objeto JSON', 'pedido X-STATUS: status desconhecido lost_in_space',
      'campo updated_at não é uma data ISO-8601: "ontem"', 'campo updated_at não é uma data ISO-8601: "2026-13-45T00:00:00Z"',
      'campo time não é uma data ISO-8601: "amanhã"', 'campo time não é uma data ISO-8601: "2026-02-30T10:00:00Z"',
      'pedido X-SEM-DATA: sem updated_at', 'campo paid_at não é uma data ISO-8601: 42', 'campo total não é um número: "abc"',
    ]);
    expect(detalhe[5]).toMatch(/json/i);
    expect(detalhe[9]).toMatch(/UTF8/);
    expect(detalhe[14]).toMatch(/Unicode/);
    expect(detalhe.slice(15, 17)).toEqual(["evento 'invoice.created'", 'evento ausente']);
    expect(referencia.eventos[15]).toMatchObject({ evento: 'invoice.created', code: 'P-77' });
    const pedido = (code: string) => referencia.pedidos.find((p) => p.code === code);
    expect(pedido('R-1')).toMatchObject({ estado: 'ENFILEIRADO', status: 'invoiced', liberacao: 'gate_transicao' });
    expect(pedido('R-2')).toMatchObject({ estado: 'ENFILEIRADO', status: 'invoiced', liberacao: 'gate_transicao' }); // released by the older unpaid event
    expect(pedido('R-2')!.pago_em).toEqual(new Date(T(11)));
    expect(pedido('E-VELHO')).toMatchObject({ estado: 'ENFILEIRADO', status: 'received' });
    expect(pedido('E-NOVO')).toMatchObject({ estado: 'CAPTURADO', status: 'invoiced' });
    expect(pedido('E-FILA')).toMatchObject({ estado: 'CANCELADO', status: 'cancelled', liberacao: 'gate_transicao' });
    expect(pedido('C-1')).toMatchObject({ estado: 'CANCELADO', status: 'cancelled' });
    expect(pedido('123')).toMatchObject({ estado: 'CAPTURADO', status: 'waiting_payment', total: '12.50' });
    expect(pedido('123')!.atualizado_no_parceiro).toEqual(new Date(T(10, 30)));
    expect(pedido('P-1')).toMatchObject({ estado: 'CAPTURADO', liberacao: null });
    expect(pedido('P-2')).toMatchObject({ estado: 'ENFILEIRADO', liberacao: 'gate_resgate_primeira_captura' });
    expect(pedido('P-3')).toMatchObject({ estado: 'ENFILEIRADO', liberacao: 'gate_transicao' });
    expect(pedido('P-4')).toMatchObject({ status: 'delivered', cliente_nome: null, itens: [], total: null });
    expect(pedido('X-DATA')).toMatchObject({ estado: 'CAPTURADO' });
    expect(referencia.pedidos.map((p) => p.code)).not.toContain('X-DATA2');
    expect(referencia.transicoes.filter((t) => t.code === 'E-FILA').map((t) => `${t.de}>${t.para}:${t.motivo}`))
      .toEqual(['null>CAPTURADO:captura', 'CAPTURADO>ENFILEIRADO:gate_transicao', 'ENFILEIRADO>CANCELADO:cancelamento']);
  });

  for (const limite of [1000, 50, 7, 2]) {
    it(`in batches of ${limite}: the same events, orders and transitions`, async () => {
      const lote = await emLotes(limite);
      expect(lote.lotes).toBe(Math.ceil(BACKLOG.length / limite));
      expect(lote.xids, 'each batch as a set, not redone event by event').toBeLessThanOrEqual(2 * lote.lotes + 1);
      expect(lote.eventos).toEqual(referencia.eventos);
      expect(lote.pedidos).toEqual(referencia.pedidos);
      expect(lote.transicoes).toEqual(referencia.transicoes);
    });
  }

  it('an event that fails unexpectedly: the batch is redone one event at a time, the others normalised, that one retried later', async () => {
    await preparar();
    // a total that does not fit numeric(14,2): not a reading error (PW422) but an unexpected one
    const [id] = (await q(`select partner_webhook_receber($1::bytea) as id`, [Buffer.from(ev('Z-GRANDE', 'order.created', 'waiting_payment', T(10), { total: 1e15 }))])).rows.map((r) => r.id);
    const r = (await q('select partner_webhook_normalizar_lote(1000, $1) as r', [AGORA])).rows[0].r;
    expect(r.tratados).toBe(BACKLOG.length + 1);
    const falho = (await q('select situacao, tentativas, detalhe, proxima_tentativa_em from partner_webhook where id = $1', [id])).rows[0];
    expect(falho).toMatchObject({ situacao: 'PENDENTE', tentativas: 1 });
    expect(falho.detalhe).toMatch(/numeric/);
    expect(falho.proxima_tentativa_em).not.toBeNull();
    const depois = await estado();
    expect(depois.eventos.slice(0, BACKLOG.length)).toEqual(referencia.eventos);
    expect(depois.pedidos).toEqual(referencia.pedidos);
    expect(depois.transicoes).toEqual(referencia.transicoes);
  });

  it('a batch writes its events back reading each once: no plan joins the orders to every event (a quadratic nested loop)', async () => {
    // the statistics that once gave the final UPDATE a nested loop over the orders read for each
    // event (200 × 200 for a batch of 200): a history of normalised events, a backlog of 400
    await q('truncate partner_webhook, partner_pedido cascade');
    await q(`insert into partner_webhook (recebido_em, corpo, situacao, resultado, processado_em)
      select timestamptz '2026-01-01' + g * interval '1 ms', convert_to('{}', 'UTF8'), 'NORMALIZADO', 'criado', now() from generate_series(1, 10000) g`);
    const corpos = Array.from({ length: 400 }, (_, i) => Buffer.from(ev(`Q-${i}`, 'order.created', 'waiting_payment', T(10))));
    const base = Date.parse('2026-11-24T10:00:00Z');
    await q(`select count(*) from partner_webhook_receber_lote($1::uuid[], $2::bytea[], null, null, null, $3::timestamptz[])`,
      [corpos.map(() => randomUUID()), corpos, corpos.map((_, i) => new Date(base + i).toISOString())]);
    await q('vacuum analyze partner_webhook');
    const c = await db.pool.connect();
    const planos: Array<{ Plan: Plano; 'Query Text': string }> = [];
    const ouvir = (n: { message?: string }) => {
      const m = /plan:\s*(\{[\s\S]*\})\s*$/.exec(n.message ?? '');
      if (m) planos.push(JSON.parse(m[1]!));
    };
    c.on('notice', ouvir);
    try {
      await c.query(`load 'auto_explain'`);
      await c.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set auto_explain.log_analyze = on;
        set auto_explain.log_format = 'json'; set client_min_messages = log`);
      for (let i = 0; i < 2; i++) {
        const r = (await c.query('select partner_webhook_normalizar_lote(200, $1) as r', [AGORA])).rows[0].r;
        expect(r).toEqual({ tratados: 200, revisar: 0 });
      }
      await c.query('reset client_min_messages');
    } finally {
      c.off('notice', ouvir);
      c.release();
    }
    const escritas = planos.filter((p) => p['Query Text'].includes('update public.partner_webhook w set'));
    expect(escritas).toHaveLength(2);
    const repetidos = (n: Plano): string[] => [
      ...((n['Node Type'] === 'Function Scan' && (n['Actual Loops'] ?? 1) > 1) ? [`${n['Function Name']} × ${n['Actual Loops']}`] : []),
      ...(n.Plans ?? []).flatMap(repetidos)];
    for (const e of escritas) expect(repetidos(e.Plan)).toEqual([]);
    expect((await q(`select count(*)::int n from partner_webhook where situacao = 'NORMALIZADO' and recebido_em >= '2026-11-24'`)).rows[0].n).toBe(400);
  });
});

interface Plano { 'Node Type': string; 'Function Name'?: string; 'Actual Loops'?: number; Plans?: Plano[] }
