/**
 * The daily reconciliation ledger: the job partner_conciliar fetches a day's
 * orders from the fake platform (GET /orders?created_since=&created_until=, pages of 2, the
 * poll's client) and partner_conciliar decides in SQL: complete, recovered (poll only), missing
 * then backfilled through the one normalisation, status differences listed (never changed),
 * unreadable (INCOMPLETO) and the platform unreachable (INACESSIVEL) — each with the error
 * tracker event and the e-mail — idempotent when run twice; and the pg_cron request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import {
  drainJobs, logCapture, makeRunner, order, event, startErrtrackerReceiver, startFakePartner, startSmtp,
  type FakePartner, type SmtpSink, type TrackerReceiver,
} from '../harness/partner.js';
import { partnerJobHandlers } from '../../src/pedidos/jobs.js';
import { partnerConfigurar } from '../../src/pedidos/db.js';
import { partnerConciliacaoSolicitar } from '../../src/pedidos/conciliacao-db.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { initErrtracker, flushErrtracker } from '../../src/integrations/errtracker.js';
import type { JobRunner } from '../../src/jobs/runner.js';

let db: TestDatabase;
let smtp: SmtpSink;
let tracker: TrackerReceiver;
let fake: FakePartner;
let app: FastifyInstance;
let runner: JobRunner;
const logs = logCapture();

const DIA = '2026-11-27'; // a Friday
const q = <T = Record<string, any>>(sql: string, params: unknown[] = []) => db.pool.query(sql, params).then((r) => r.rows as T[]);

beforeAll(async () => {
  [db, smtp, tracker, fake] = await Promise.all([createTestDatabase(), startSmtp(), startErrtrackerReceiver(), startFakePartner()]);
  initErrtracker({ dsn: tracker.dsn, release: '0.0.0-test', environment: 'test', commit: null });
  const { config } = loadConfig(testEnv(db, {
    LOG_LEVEL: 'info', ERRTRACKER_DSN: tracker.dsn, SMTP_URL: smtp.url, MAIL_FROM: 'Alertas BI <alertas@bi.example.com>',
    PARTNER_API_URL: fake.url, PARTNER_API_TOKEN: fake.token,
  }));
  app = await buildApp({ config, pool: db.pool, version: '0.0.0-test', commit: null, objstore: null }, { logStream: logs.stream });
  await app.ready();
  runner = makeRunner(db.pool, partnerJobHandlers(app.ctx), app.log);
  await partnerConfigurar(db.pool, config.partner, new Date('2026-11-01T08:00:00-03:00'));
  await q(`insert into destinatario (email, nome) values ('ops@distribuidora.example', 'Operações')`);
});
afterAll(async () => {
  await app?.close();
  await Promise.all([smtp?.close(), tracker?.close(), fake?.close()]);
  await db?.drop();
});

async function reset() {
  await q(`truncate partner_webhook, partner_pedido, partner_aviso, partner_puxada, partner_conciliacao cascade`);
  await q('delete from app.job');
  smtp.mails.length = 0;
  tracker.events.length = 0;
  logs.lines.length = 0;
  fake.orders.clear();
  fake.requests.length = 0;
  fake.failWith = null;
  fake.unreachable = false;
}

/** An order created on the day at `hh:mm` (Brasília), on the fake platform. */
function noDia(code: string, status: string, hhmm: string, dia = DIA) {
  const o = order(code, status, `${dia}T${hhmm}:00-03:00`, { created_at: `${dia}T${hhmm}:00-03:00` });
  fake.orders.set(code, o);
  return o;
}

/** Delivered by the webhook: stored and normalised as the intake does. */
async function porWebhook(o: ReturnType<typeof order>) {
  await q(`select partner_webhook_receber(convert_to($1, 'UTF8'), 'application/json')`, [JSON.stringify(event(o))]);
  await q('select partner_webhook_normalizar_lote(1000)');
}

const conciliar = async () => {
  expect(await partnerConciliacaoSolicitar(db.pool, DIA)).not.toBeNull();
  await drainJobs([runner], db.pool);
  await flushErrtracker();
};
const veredito = async () => (await q<{ r: Record<string, any> }>('select partner_conciliacao_dia($1) r', [DIA]))[0]!.r;

describe('reconciliation of a day', () => {
  it('a complete day: every order of the platform came by the webhook; the day is asked with the poll client, page by page', async () => {
    await reset();
    for (const [c, h] of [['A-1', '08:10'], ['A-2', '11:00'], ['A-3', '17:30']] as const) await porWebhook(noDia(c, 'waiting_payment', h));
    noDia('OUTRO-DIA', 'waiting_payment', '10:00', '2026-11-28'); // not in the day's list
    await conciliar();
    expect(await veredito()).toMatchObject({
      status: 'CONCILIADO', na_plataforma: 3, aqui: 3, por_webhook: 3, recuperados: 0, faltando: 0, preenchidos: 0,
      faltando_apos: 0, divergentes: 0, ilegiveis: 0, itens: { recuperados: [], faltando: [], divergentes: [] },
    });
    // the day's window in Brasília, two pages of two, the poll's Bearer
    expect(fake.requests.map((r) => [r.createdSince, r.createdUntil, r.page, r.authorization])).toEqual([
      ['2026-11-27T03:00:00.000Z', '2026-11-28T03:00:00.000Z', 1, `Bearer ${fake.token}`],
      ['2026-11-27T03:00:00.000Z', '2026-11-28T03:00:00.000Z', 2, `Bearer ${fake.token}`],
    ]);
    expect(await q(`select count(*)::int n from partner_aviso`)).toEqual([{ n: 0 }]);
    expect(smtp.mails).toHaveLength(0);
  });

  it('every case: by webhook, recovered by the poll, missing then backfilled, a status difference listed and not changed; twice the same', async () => {
    await reset();
    await porWebhook(noDia('W-1', 'waiting_payment', '09:00'));
    await q(`select partner_pedido_observar($1, 'poll')`, [JSON.stringify(noDia('R-1', 'waiting_payment', '10:00'))]);
    noDia('M-1', 'received', '11:00'); // the webhook's delivery was lost, the poll has not run yet
    await porWebhook(order('D-1', 'waiting_payment', `${DIA}T12:00:00-03:00`));
    fake.orders.set('D-1', order('D-1', 'received', `${DIA}T12:30:00-03:00`, { created_at: `${DIA}T12:00:00-03:00` })); // paid: we missed it
    await conciliar();
    const primeiro = await veredito();
    expect(primeiro).toMatchObject({
      status: 'CONCILIADO', na_plataforma: 4, aqui: 4, por_webhook: 2, recuperados: 1, faltando: 1, preenchidos: 1,
      faltando_apos: 0, divergentes: 1, ilegiveis: 0,
      itens: {
        recuperados: [{ code: 'R-1', status: 'waiting_payment', estado: 'CAPTURADO' }],
        faltando: [{ code: 'M-1', status_plataforma: 'received', preenchido: true, erro: null }],
        divergentes: [{ code: 'D-1', status_plataforma: 'received', status_aqui: 'waiting_payment', estado_aqui: 'CAPTURADO' }],
      },
    });
    // backfilled through the one normalisation (first seen paid: the gate keeps it CAPTURADO, as for any pull)
    expect(await q(`select code, origem, estado, status from partner_pedido where code in ('M-1', 'D-1') order by code`)).toEqual([
      { code: 'D-1', origem: 'webhook', estado: 'CAPTURADO', status: 'waiting_payment' }, // listed, never fixed
      { code: 'M-1', origem: 'conciliacao', estado: 'CAPTURADO', status: 'received' },
    ]);
    expect(await q(`select count(*)::int n from partner_aviso`)).toEqual([{ n: 0 }]);

    // twice: the same verdict, nothing stored again, no notice
    const pedidos = await q(`select code, atualizado_em from partner_pedido order by code`);
    await conciliar();
    const segundo = await veredito();
    const semTempo = ({ conciliada_em: _c, solicitada_em: _s, tentativas: _t, ...v }: Record<string, any>) => v;
    expect(semTempo(segundo)).toEqual(semTempo(primeiro));
    expect(segundo.tentativas).toBe(2);
    expect(await q(`select code, atualizado_em from partner_pedido order by code`)).toEqual(pedidos);
    // and from psql, with the same list pasted: the same again
    const lista = JSON.stringify([...fake.orders.values()]);
    expect(semTempo((await q<{ r: any }>('select partner_conciliar($1, $2) r', [DIA, lista]))[0]!.r)).toEqual(semTempo(primeiro));
  });

  it('an order that cannot be backfilled leaves the day INCOMPLETO: one error-tracker event and one e-mail, not two', async () => {
    await reset();
    await porWebhook(noDia('W-1', 'waiting_payment', '09:00'));
    noDia('X-1', 'em_analise', '10:00'); // a status the normalisation does not know
    await conciliar();
    expect(await veredito()).toMatchObject({
      status: 'INCOMPLETO', na_plataforma: 2, aqui: 1, faltando: 1, preenchidos: 0, faltando_apos: 1,
      itens: { faltando: [{ code: 'X-1', preenchido: false, erro: expect.stringContaining('status') }] },
    });
    await drainJobs([runner], db.pool);
    await flushErrtracker();
    expect(tracker.events.map((e) => e.message)).toEqual([
      'Conciliação de pedidos de 27/11/2026 incompleta: 1 pedido(s) da plataforma faltando após o preenchimento',
    ]);
    expect(smtp.mails.map((m) => [m.to, m.subject])).toEqual([[['ops@distribuidora.example'], 'Conciliação de pedidos incompleta']]);
    expect(smtp.mails[0]!.text).toContain('X-1');
    await conciliar();
    expect((await veredito()).status).toBe('INCOMPLETO');
    expect(await q(`select count(*)::int n from partner_aviso where tipo = 'conciliacao_incompleta'`)).toEqual([{ n: 1 }]);
    expect(smtp.mails).toHaveLength(1);
  });

  it('the platform unreachable for the whole window: INACESSIVEL after the last attempt, with the tracker event and the e-mail', async () => {
    await reset();
    noDia('A-1', 'waiting_payment', '09:00');
    fake.unreachable = true;
    expect(await partnerConciliacaoSolicitar(db.pool, DIA)).not.toBeNull();
    await q(`update app.job set max_attempts = 2 where kind = 'partner_conciliar'`);
    await drainJobs([runner], db.pool);
    expect(await veredito()).toMatchObject({ status: 'PENDENTE', tentativas: 1, erro: expect.stringContaining('inacessível') });
    expect(await q(`select count(*)::int n from partner_aviso`)).toEqual([{ n: 0 }]);
    await q(`update app.job set run_at = now() where kind = 'partner_conciliar' and status = 'pending'`);
    await drainJobs([runner], db.pool);
    await flushErrtracker();
    expect(await veredito()).toMatchObject({ status: 'INACESSIVEL', tentativas: 2, na_plataforma: null });
    // (the failed attempts are reported as the poll's are; the alert is the message)
    expect(tracker.events.map((e) => e.message).filter((m) => m?.startsWith('Conciliação'))).toEqual([
      expect.stringMatching(/^Conciliação de pedidos de 27\/11\/2026 impossível: plataforma inacessível \(plataforma de pedidos inacessível/),
    ]);
    expect(smtp.mails.map((m) => m.subject)).toEqual(['Conciliação de pedidos incompleta']);
    expect(smtp.mails[0]!.text).toContain(`select partner_conciliacao_solicitar('${DIA}');`);
    // back again: the day is reconciled, the missing order backfilled
    fake.unreachable = false;
    await conciliar();
    expect(await veredito()).toMatchObject({ status: 'CONCILIADO', na_plataforma: 1, faltando: 1, preenchidos: 1 });
  });

  it('pg_cron asks each business day for the days since the previous one; never today, never on a weekend or holiday', async () => {
    await reset();
    const agendar = (at: string) => q<{ n: number }>('select partner_conciliacao_agendar($1) n', [at]).then((r) => r[0]!.n);
    expect(await agendar('2026-11-28T06:30:00-03:00')).toBe(0); // Saturday
    await q(`insert into feriado (data, nome, abrangencia) values ('2026-11-30', 'Aniversário da cidade', 'municipal')`);
    expect(await agendar('2026-11-30T06:30:00-03:00')).toBe(0); // a holiday
    await q(`delete from feriado where data = '2026-11-30'`);
    await q(`insert into partner_conciliacao (dia, status, solicitada_em) values ('2026-11-26', 'CONCILIADO', now())`);
    expect(await agendar('2026-11-30T06:30:00-03:00')).toBe(6); // Monday: 23–29/11 but the 26th, already reconciled
    expect(await q(`select dia::text, status, motivo from partner_conciliacao where dia >= '2026-11-27' order by dia`)).toEqual([
      { dia: '2026-11-27', status: 'PENDENTE', motivo: 'agendada' },
      { dia: '2026-11-28', status: 'PENDENTE', motivo: 'agendada' },
      { dia: '2026-11-29', status: 'PENDENTE', motivo: 'agendada' },
    ]);
    expect(await agendar('2026-11-30T06:31:00-03:00')).toBe(0); // already queued
    await expect(q(`select partner_conciliacao_solicitar(current_date)`)).rejects.toMatchObject({ code: 'PW400' });
  });
});
