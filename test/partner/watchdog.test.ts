/**
 * Watchdog, contingency and REST poll, with the clock moved through partner_tick(p_agora),
 * a real SMTP server, an error-tracker receiver and a fake of the platform's REST API.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, urlFor, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import {
  drainJobs, logCapture, makeRunner, order, startErrtrackerReceiver, startFakePartner, startSmtp,
  type FakePartner, type SmtpSink, type TrackerReceiver,
} from '../harness/partner.js';
import { partnerJobHandlers } from '../../src/pedidos/jobs.js';
import { partnerConfigurar, partnerTick } from '../../src/pedidos/db.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { initErrtracker, flushErrtracker } from '../../src/integrations/errtracker.js';
import { createListener, type Listener } from '../../src/jobs/listener.js';
import type { JobRunner } from '../../src/jobs/runner.js';

let db: TestDatabase;
let smtp: SmtpSink;
let tracker: TrackerReceiver;
let fake: FakePartner;
let app: FastifyInstance;
let runner: JobRunner;
const logs = logCapture();
let baseEnv: Record<string, string | undefined>;

const WEBHOOK_URL = 'https://bi.example.com/webhook/partner';

beforeAll(async () => {
  [db, smtp, tracker, fake] = await Promise.all([createTestDatabase(), startSmtp(), startErrtrackerReceiver(), startFakePartner()]);
  // Sentry is a process-global singleton: one receiver for this file (vitest forks a process per file)
  initErrtracker({ dsn: tracker.dsn, release: '0.0.0-test', environment: 'test', commit: null });
  baseEnv = testEnv(db, {
    LOG_LEVEL: 'info', ERRTRACKER_DSN: tracker.dsn, SMTP_URL: smtp.url, MAIL_FROM: 'Alertas BI <alertas@bi.example.com>',
    PARTNER_WATCHDOG_HABILITADO: 'true', PARTNER_WEBHOOK_PUBLIC_URL: WEBHOOK_URL,
    PARTNER_API_URL: fake.url, PARTNER_API_TOKEN: fake.token,
  });
  const { config } = loadConfig(baseEnv);
  app = await buildApp({ config, pool: db.pool, version: '0.0.0-test', commit: null, objstore: null }, { logStream: logs.stream });
  await app.ready();
  runner = makeRunner(db.pool, partnerJobHandlers(app.ctx), app.log);
  await db.pool.query(`insert into destinatario (email, nome, ativo) values
    ('ops@distribuidora.example', 'Operações', true), ('TI@distribuidora.example', 'TI', true),
    ('ferias@distribuidora.example', 'De férias', false)`);
  await expect(db.pool.query(`insert into destinatario (email) values ('ti@distribuidora.example')`)).rejects.toMatchObject({ code: '23505' });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([smtp?.close(), tracker?.close(), fake?.close()]);
  await db?.drop();
});

/** Fresh state; settings from the environment plus overrides; the watch started at `desde`. */
async function reset(env: Record<string, string | undefined> = {}, desde = '2026-11-30T08:00:00-03:00') {
  await db.pool.query(`truncate partner_webhook, partner_pedido, partner_episodio, partner_contingencia, partner_aviso,
    partner_puxada cascade`);
  await db.pool.query('delete from app.job');
  await db.pool.query('update partner_configuracao set monitorando_desde = null');
  const { config } = loadConfig({ ...baseEnv, ...env });
  await partnerConfigurar(db.pool, config.partner, new Date(desde));
  smtp.mails.length = 0;
  smtp.refuse.clear();
  tracker.events.length = 0;
  logs.lines.length = 0;
  fake.orders.clear();
  fake.requests.length = 0;
  fake.failWith = null;
}

/** A delivery of the webhook at a given instant (already normalised: only recebido_em matters here). */
async function delivery(at: string) {
  await db.pool.query(`insert into partner_webhook (corpo, recebido_em, situacao, resultado, processado_em)
    values ('{}', $1, 'NORMALIZADO', 'repetido', $1)`, [at]);
}
const tick = (at: string) => partnerTick(db.pool, new Date(at));
const drain = async () => { await drainJobs([runner], db.pool); await flushErrtracker(); };
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows as T[];
const avisos = () => q<{ tipo: string }>('select tipo from partner_aviso order by id').then((r) => r.map((x) => x.tipo));
const parado = () => tracker.events.filter((e) => e.message?.startsWith('Webhook parado'));

describe('business minutes (Mon-Fri 08:00-18:00 America/Sao_Paulo, holidays excluded)', () => {
  const mc = async (a: string, b: string) => Number((await q<{ m: string }>('select minutos_comerciais($1, $2) as m', [a, b]))[0]!.m);

  it('counts only business time', async () => {
    expect(await mc('2026-12-07T10:00:00-03:00', '2026-12-07T11:00:00-03:00')).toBe(60);
    expect(await mc('2026-12-07T07:00:00-03:00', '2026-12-07T09:00:00-03:00')).toBe(60);
    expect(await mc('2026-12-07T17:00:00-03:00', '2026-12-07T19:30:00-03:00')).toBe(60);
    expect(await mc('2026-12-04T17:50:00-03:00', '2026-12-07T08:35:00-03:00')).toBe(45); // Fri 17:50 -> Mon 08:35
    expect(await mc('2026-12-05T00:00:00-03:00', '2026-12-06T23:59:00-03:00')).toBe(0); // weekend
    expect(await mc('2026-12-07T11:00:00-03:00', '2026-12-07T10:00:00-03:00')).toBe(0);
    expect(await mc('2026-12-07T08:00:00-03:00', '2026-12-14T08:00:00-03:00')).toBe(5 * 600);
    expect(await mc('2026-12-07T13:00:00Z', '2026-12-07T13:00:30Z')).toBe(0.5);
  });

  it('honours the national holidays of any year and the rows DBAs add', async () => {
    expect(await mc('2026-11-20T09:00:00-03:00', '2026-11-20T17:00:00-03:00')).toBe(0); // Consciência Negra (Friday)
    expect(await mc('2026-12-25T09:00:00-03:00', '2026-12-25T17:00:00-03:00')).toBe(0);
    // far beyond any seeded list: Christmas 2041 (Wednesday), Tiradentes 2087 (Monday), Good Friday
    // (Easter 2027-03-28, 2042-04-06, 2050-04-10, 2100-03-28)
    expect(await mc('2041-12-25T09:00:00-03:00', '2041-12-25T17:00:00-03:00')).toBe(0);
    expect(await mc('2087-04-21T09:00:00-03:00', '2087-04-21T17:00:00-03:00')).toBe(0);
    expect(await mc('2041-12-24T17:50:00-03:00', '2041-12-26T08:35:00-03:00')).toBe(45);
    const t = await q<{ t: Date }>(`select apos_minutos_comerciais('2041-12-24T17:50:00-03:00', 45) as t`);
    expect(t[0]!.t.toISOString()).toBe('2041-12-26T11:35:00.000Z');
    for (const sexta of ['2026-04-03', '2027-03-26', '2042-04-04', '2050-04-08', '2100-03-26']) {
      expect(await mc(`${sexta}T09:00:00-03:00`, `${sexta}T10:00:00-03:00`), sexta).toBe(0);
      expect(await q('select feriado_nacional($1::date) n', [sexta]), sexta).toEqual([{ n: 'Sexta-feira Santa' }]);
    }
    // the Thursday before and the Monday after Good Friday 2042 are business days; 20/11 only from 2024
    expect(await mc('2042-04-03T09:00:00-03:00', '2042-04-03T10:00:00-03:00')).toBe(60);
    expect(await mc('2042-04-07T09:00:00-03:00', '2042-04-07T10:00:00-03:00')).toBe(60);
    expect(await mc('2023-11-20T09:00:00-03:00', '2023-11-20T10:00:00-03:00')).toBe(60);
    expect(await mc('2045-11-20T09:00:00-03:00', '2045-11-20T10:00:00-03:00')).toBe(0);
    // the table holds the local days only: no national row is stored
    expect(await q(`select data from feriado where feriado_nacional(data) is not null`)).toEqual([]);
    expect(await mc('2026-12-08T10:00:00-03:00', '2026-12-08T11:00:00-03:00')).toBe(60);
    await db.pool.query(`insert into feriado (data, nome, abrangencia) values ('2026-12-08', 'Aniversário da cidade', 'municipal')`);
    expect(await mc('2026-12-08T10:00:00-03:00', '2026-12-08T11:00:00-03:00')).toBe(0);
    await db.pool.query(`delete from feriado where data = '2026-12-08'`);
  });

  it('apos_minutos_comerciais is the inverse', async () => {
    const r = await q<{ t: Date }>(`select apos_minutos_comerciais('2026-12-04T17:50:00-03:00', 45) as t`);
    expect(r[0]!.t.toISOString()).toBe('2026-12-07T11:35:00.000Z');
  });

  it('apos_minutos_comerciais: zero or negative minutes are the instant itself; from after 18:00 or a weekend it counts from the next opening', async () => {
    // (survivors of `npm run mutacao` on the function: greatest(p_minutos, 0) → 1, `if v_fim > v_ini` → true)
    const apos = async (de: string, min: number) => (await q<{ t: Date }>('select apos_minutos_comerciais($1, $2) as t', [de, min]))[0]!.t.toISOString();
    expect(await apos('2026-12-04T19:30:00-03:00', 0)).toBe('2026-12-04T22:30:00.000Z');
    expect(await apos('2026-12-04T19:30:00-03:00', -10)).toBe('2026-12-04T22:30:00.000Z');
    // Friday 19:30 (after closing) + 30 business minutes: Monday 08:30, not Friday's negative remainder
    expect(await apos('2026-12-04T19:30:00-03:00', 30)).toBe('2026-12-07T11:30:00.000Z');
    // Saturday noon + 600 (a whole business day): Monday 18:00
    expect(await apos('2026-12-05T12:00:00-03:00', 600)).toBe('2026-12-07T21:00:00.000Z');
    for (const [de, min] of [['2026-12-04T19:30:00-03:00', 30], ['2026-12-03T16:10:00-03:00', 200]] as const) {
      expect(await mc(de, await apos(de, min)), `${de} + ${min}`).toBe(min);
    }
  });
});

const NO_API = { PARTNER_API_URL: undefined, PARTNER_API_TOKEN: undefined };

describe('watchdog: one alert per silence episode', () => {
  beforeEach(() => reset(NO_API));

  it('alerts at 45 business minutes (Friday 17:05 -> 17:50), to the tracker and by e-mail to every active recipient, once', async () => {
    await delivery('2026-12-04T17:05:00-03:00');
    expect(await tick('2026-12-04T17:49:00-03:00')).not.toHaveProperty('episodio_aberto');
    const t = await tick('2026-12-04T17:50:00-03:00');
    expect(t).toMatchObject({ motivo: 'limite_min_comercial', minutos_comerciais: 45 });
    await drain();

    expect(smtp.mails.map((m) => m.to).flat().sort()).toEqual(['TI@distribuidora.example', 'ops@distribuidora.example']);
    for (const m of smtp.mails) {
      expect(m.subject).toBe('Webhook parado');
      expect(m.from).toBe('alertas@bi.example.com');
      expect(m.text).toContain(`exclua o webhook que aponta para ${WEBHOOK_URL}`);
      expect(m.text).toContain('X-Partner-Secret');
      expect(m.text).toContain('select max(recebido_em) from partner_webhook');
      expect(m.text).toContain('04/12/2026');
      expect(m.text).toContain('17:05');
    }
    expect(parado()).toHaveLength(1);
    expect(parado()[0]).toMatchObject({ level: 'error', project: '1' });
    expect(parado()[0]!.extra).toMatchObject({ alerta: 'webhook_parado', motivo: 'limite_min_comercial' });

    // the silence goes on: no new alert, minute after minute, day after day
    for (const at of ['2026-12-04T17:51:00-03:00', '2026-12-04T18:30:00-03:00', '2026-12-05T17:05:00-03:00', '2026-12-07T09:00:00-03:00']) {
      expect(await tick(at)).not.toHaveProperty('episodio_aberto');
    }
    await drain();
    expect(await avisos()).toEqual(['webhook_parado']);
    expect(smtp.mails).toHaveLength(2);
    expect(parado()).toHaveLength(1);
    expect(await q('select * from partner_aviso_envio where enviado_em is null')).toEqual([]);
  });

  it('silence from Friday 17:50: nothing that evening; the 24-hour net fires on Saturday 17:50', async () => {
    await delivery('2026-12-04T17:50:00-03:00');
    for (const at of ['2026-12-04T18:30:00-03:00', '2026-12-05T10:00:00-03:00', '2026-12-05T17:49:00-03:00']) {
      expect(await tick(at)).not.toHaveProperty('episodio_aberto');
    }
    expect(await tick('2026-12-05T17:50:00-03:00')).toMatchObject({ motivo: 'limite_horas', minutos_comerciais: 10 });
    await drain();
    expect(smtp.mails.map((m) => m.subject)).toEqual(['Webhook parado', 'Webhook parado']);
    expect(smtp.mails[0]!.text).toContain('24 horas sem eventos');
    expect(parado()).toHaveLength(1);
    // Monday 08:35 crosses 45 business minutes too, but the episode is already open
    expect(await tick('2026-12-07T08:35:00-03:00')).not.toHaveProperty('episodio_aberto');
    expect(await avisos()).toEqual(['webhook_parado']);
  });

  it('with a wider net the weekend silence alerts on Monday 08:35 (45 business minutes)', async () => {
    await reset({ ...NO_API, PARTNER_WATCHDOG_LIMITE_HORAS: '72' });
    await delivery('2026-12-04T17:50:00-03:00');
    for (const at of ['2026-12-05T17:50:00-03:00', '2026-12-06T23:00:00-03:00', '2026-12-07T08:34:00-03:00']) {
      expect(await tick(at)).not.toHaveProperty('episodio_aberto');
    }
    expect(await tick('2026-12-07T08:35:00-03:00')).toMatchObject({ motivo: 'limite_min_comercial' });
    const s = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json();
    expect(s.silencio.alertaPrevistoEm).toBeNull(); // already alerted
  });

  it('a holiday does not count: Monday 17:50 -> (Tiradentes on Tuesday) -> Wednesday 08:35', async () => {
    await reset({ ...NO_API, PARTNER_WATCHDOG_LIMITE_HORAS: '100', PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL: '45' });
    await delivery('2026-04-20T17:50:00-03:00');
    const s = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json();
    expect(s.watchdog).toMatchObject({ habilitado: true, limiteMinComercial: 45, limiteHoras: 100 });
    for (const at of ['2026-04-21T12:00:00-03:00', '2026-04-22T08:34:00-03:00']) {
      expect(await tick(at)).not.toHaveProperty('episodio_aberto');
    }
    expect(await tick('2026-04-22T08:35:00-03:00')).toMatchObject({ motivo: 'limite_min_comercial' });
  });

  it('a non-default business-minute limit is the one applied: 30, last event Friday 17:05 → nothing at 17:34, the alert at 17:35', async () => {
    await reset({ ...NO_API, PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL: '30' });
    await delivery('2026-12-04T17:05:00-03:00');
    expect(await tick('2026-12-04T17:34:00-03:00')).not.toHaveProperty('episodio_aberto');
    expect(await tick('2026-12-04T17:35:00-03:00')).toMatchObject({ motivo: 'limite_min_comercial', minutos_comerciais: 30 });
  });

  it('no event ever: silence counts from the start of the watch; nothing when the watchdog is off', async () => {
    await reset({ ...NO_API, PARTNER_WATCHDOG_HABILITADO: 'false' }, '2026-12-07T08:00:00-03:00');
    expect(await tick('2026-12-09T08:00:00-03:00')).not.toHaveProperty('episodio_aberto');
    await reset(NO_API, '2026-12-07T08:00:00-03:00');
    expect(await tick('2026-12-07T08:44:00-03:00')).not.toHaveProperty('episodio_aberto');
    expect(await tick('2026-12-07T08:45:00-03:00')).toMatchObject({ motivo: 'limite_min_comercial' });
  });

  it('the episode closes by itself when max(recebido_em) advances; "Webhook voltou a funcionar" when the return is at most 1 hour old', async () => {
    await delivery('2026-12-07T08:00:00-03:00');
    await tick('2026-12-07T08:45:00-03:00');
    await delivery('2026-12-07T09:30:00-03:00');
    const t = await tick('2026-12-07T10:30:00-03:00'); // exactly one hour after the return
    expect(t).toMatchObject({ aviso_retorno: true });
    await drain();
    expect(smtp.mails.map((m) => m.subject).sort()).toEqual(['Webhook parado', 'Webhook parado', 'Webhook voltou a funcionar', 'Webhook voltou a funcionar']);
    const voltou = smtp.mails.find((m) => m.subject === 'Webhook voltou a funcionar')!;
    expect(voltou.text).toContain('07/12/2026');
    expect(voltou.text).toContain('09:30');
    const [ep] = await q<{ retorno_em: Date; aviso_retorno: boolean }>('select * from partner_episodio');
    expect(ep!.retorno_em.toISOString()).toBe('2026-12-07T12:30:00.000Z');
    expect(parado()).toHaveLength(1);

    // watching resumes: a new silence is a new episode with its own single alert
    expect(await tick('2026-12-07T10:14:00-03:00')).not.toHaveProperty('episodio_aberto');
    expect(await tick('2026-12-07T10:15:00-03:00')).toMatchObject({ motivo: 'limite_min_comercial' });
    expect((await q('select * from partner_episodio')).length).toBe(2);
  });

  it('a return older than 1 hour closes the episode without the recovery e-mail', async () => {
    await delivery('2026-12-07T08:00:00-03:00');
    await tick('2026-12-07T08:45:00-03:00');
    await delivery('2026-12-07T09:30:00-03:00');
    await delivery('2026-12-07T09:40:00-03:00');
    expect(await tick('2026-12-07T10:30:01-03:00')).toMatchObject({ aviso_retorno: false });
    await drain();
    expect(smtp.mails.map((m) => m.subject)).toEqual(['Webhook parado', 'Webhook parado']);
    expect(await avisos()).toEqual(['webhook_parado']);
    const [ep] = await q<{ fechado_em: Date; retorno_em: Date; aviso_retorno: boolean }>('select * from partner_episodio');
    expect(ep!.retorno_em.toISOString()).toBe('2026-12-07T12:30:00.000Z');
    expect(ep!.aviso_retorno).toBe(false);
  });

  it('an SMTP refusal is retried for that recipient only', async () => {
    smtp.refuse.add('ops@distribuidora.example');
    await delivery('2026-12-07T08:00:00-03:00');
    await tick('2026-12-07T08:45:00-03:00');
    await drain();
    expect(smtp.mails.map((m) => m.to).flat()).toEqual(['TI@distribuidora.example']);
    const [job] = await q<{ status: string; last_error: string }>(`select status, last_error from app.job where kind = 'partner_aviso'`);
    expect(job).toMatchObject({ status: 'pending' });
    expect(job!.last_error).toContain('ops@distribuidora.example');
    smtp.refuse.clear();
    await db.pool.query(`update app.job set run_at = now() where kind = 'partner_aviso'`);
    await drain();
    expect(smtp.mails.map((m) => m.to).flat()).toEqual(['TI@distribuidora.example', 'ops@distribuidora.example']);
    expect(parado()).toHaveLength(1); // the tracker event is not repeated by the retry
  });
});

describe('contingency and REST poll', () => {
  beforeEach(() => reset());

  it('after 15 business minutes of silence pulls every 5 minutes until the webhook returns, logging each change once', async () => {
    await delivery('2026-12-07T10:00:00-03:00');
    await tick('2026-12-07T10:00:00-03:00'); // the first tick also requests the 6-hourly poll
    await drain();
    expect(await q(`select motivo, status from partner_puxada`)).toEqual([{ motivo: 'poll', status: 'CONCLUIDA' }]);

    expect(await tick('2026-12-07T10:14:00-03:00')).not.toHaveProperty('contingencia');
    fake.orders.set('K-1', order('K-1', 'received', new Date().toISOString()));
    expect(await tick('2026-12-07T10:15:00-03:00')).toMatchObject({ contingencia: 'LIGADA' });
    await drain();
    expect(logs.count('Contingência de pedidos LIGADA')).toBe(1);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/orders', page: 1, authorization: `Bearer ${fake.token}` });
    const [k1] = await q('select estado, origem from partner_pedido where code = $1', ['K-1']);
    expect(k1).toEqual({ estado: 'CAPTURADO', origem: 'contingencia' }); // paid order of the outage: arrives, waits for Enfileirar

    const pulls = async () => (await q(`select count(*)::int as n from partner_puxada where motivo = 'contingencia'`))[0]!.n;
    expect(await pulls()).toBe(1);
    await tick('2026-12-07T10:16:00-03:00');
    await tick('2026-12-07T10:19:00-03:00');
    expect(await pulls()).toBe(1);
    await tick('2026-12-07T10:20:00-03:00');
    await drain();
    expect(await pulls()).toBe(2);
    await tick('2026-12-07T10:24:00-03:00');
    expect(await pulls()).toBe(2);
    await tick('2026-12-07T10:25:00-03:00');
    await drain();
    expect(await pulls()).toBe(3);
    expect(logs.count('Contingência de pedidos LIGADA')).toBe(1);
    const st = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json();
    expect(st.contingencia).toMatchObject({ ligada: true, apiConfigurada: true });
    expect(st.ultimaPuxada).toMatchObject({ motivo: 'contingencia', status: 'CONCLUIDA' });
    expect(st.ultimoPoll).toMatchObject({ motivo: 'poll', status: 'CONCLUIDA' });

    await delivery('2026-12-07T10:27:00-03:00');
    expect(await tick('2026-12-07T10:28:00-03:00')).toMatchObject({ contingencia: 'DESLIGADA' });
    await drain();
    await tick('2026-12-07T10:33:00-03:00');
    await tick('2026-12-07T10:40:00-03:00');
    await drain();
    expect(await pulls()).toBe(3);
    expect(logs.count('Contingência de pedidos LIGADA')).toBe(1);
    expect(logs.count('Contingência de pedidos DESLIGADA')).toBe(1);
    expect(await avisos()).toEqual(['contingencia_ligada', 'contingencia_desligada']);
  });

  it('the contingency counts business minutes: last event Friday 17:50 → nothing at 18:05 nor Monday 08:04, LIGADA at Monday 08:05', async () => {
    await delivery('2026-12-04T17:50:00-03:00');
    for (const at of ['2026-12-04T18:05:00-03:00', '2026-12-05T12:00:00-03:00', '2026-12-07T08:04:00-03:00']) {
      expect(await tick(at), at).not.toHaveProperty('contingencia');
    }
    expect(await tick('2026-12-07T08:05:00-03:00')).toMatchObject({ contingencia: 'LIGADA' });
  });

  it('the poll every 6 hours recovers an order the webhook missed, through the same idempotent path', async () => {
    const now = Date.now();
    const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
    // the webhook saw A unpaid; then it went blind: A's payment and order B never arrived
    await db.pool.query('select partner_pedido_observar($1::jsonb, $2)', [JSON.stringify(order('A', 'waiting_payment', iso(3_600_000))), 'webhook']);
    fake.orders.set('A', order('A', 'received', iso(300_000)));
    fake.orders.set('B', order('B', 'received', iso(240_000)));
    fake.orders.set('C', order('C', 'cancelled', iso(180_000)));
    fake.orders.set('OLD', order('OLD', 'received', iso(3 * 86_400_000))); // before the first window
    await delivery('2026-12-07T10:00:00-03:00'); // no contingency here: the webhook is not silent

    expect(await tick('2026-12-07T10:00:00-03:00')).toHaveProperty('puxada_poll');
    await drain();
    expect(fake.requests.map((r) => r.page)).toEqual([1, 2]);
    const since = Date.parse(fake.requests[0]!.updatedSince!);
    expect(Math.abs(since - (now - 24 * 3_600_000))).toBeLessThan(60_000); // first pull: 24 hours back
    const rows = await q<{ code: string; estado: string; origem: string; liberacao: string | null }>(
      'select code, estado, origem, liberacao from partner_pedido order by code');
    expect(rows).toEqual([
      { code: 'A', estado: 'ENFILEIRADO', origem: 'poll', liberacao: 'gate_transicao' },
      { code: 'B', estado: 'CAPTURADO', origem: 'poll', liberacao: null },
      { code: 'C', estado: 'CANCELADO', origem: 'poll', liberacao: null },
    ]);
    expect((await q('select status, pedidos, criados, atualizados, paginas from partner_puxada'))[0])
      .toEqual({ status: 'CONCLUIDA', pedidos: 3, criados: 2, atualizados: 1, paginas: 2 });

    // nothing until 6 hours later; then again, from the last pull on (10 minutes of overlap), idempotently
    expect(await tick('2026-12-07T15:59:00-03:00')).not.toHaveProperty('puxada_poll');
    expect(await tick('2026-12-07T16:00:00-03:00')).toHaveProperty('puxada_poll');
    await drain();
    const [first, second] = await q<{ iniciada_em: Date; atualizado_desde: Date; repetidos: number; criados: number }>(
      'select * from partner_puxada order by id');
    expect(second!.atualizado_desde.getTime()).toBe(first!.iniciada_em.getTime() - 600_000);
    expect(second).toMatchObject({ criados: 0, repetidos: 3 });
    expect(await q('select count(*)::int as n from partner_pedido_transicao')).toEqual([{ n: 4 }]);
  });

  it('a failing platform: the pull is retried by its job and recorded; a wrong token is a failure too', async () => {
    fake.failWith = 503;
    await delivery('2026-12-07T10:00:00-03:00');
    await tick('2026-12-07T10:00:00-03:00');
    await drain();
    let [p] = await q<{ status: string; erro: string; tentativas: number }>('select * from partner_puxada');
    expect(p).toMatchObject({ status: 'PENDENTE', tentativas: 1 });
    expect(p!.erro).toContain('503');
    await delivery('2026-12-07T15:59:00-03:00');
    expect(await tick('2026-12-07T16:00:00-03:00')).not.toHaveProperty('puxada_poll'); // its retry is still queued
    expect(await q('select count(*)::int as n from partner_puxada')).toEqual([{ n: 1 }]);

    fake.failWith = null;
    fake.token = 'outro-token';
    await db.pool.query(`update app.job set run_at = now() where kind = 'partner_puxar'`);
    await drain();
    [p] = await q('select * from partner_puxada');
    expect(p!.erro).toContain('401');

    fake.token = 'partner-api-token';
    await db.pool.query(`update app.job set run_at = now() where kind = 'partner_puxar'`);
    await drain();
    [p] = await q('select * from partner_puxada');
    expect(p).toMatchObject({ status: 'CONCLUIDA', tentativas: 3 });
    const st = (await app.inject({ url: '/api/partner/status', headers: bearer() })).json();
    expect(st.ultimoPoll).toMatchObject({ status: 'CONCLUIDA' });
  });
});

describe('two replicas', () => {
  it('two job runners, woken by the same NOTIFY, carry out each job once', async () => {
    await reset();
    const listeners: Listener[] = [];
    const runners: JobRunner[] = [];
    for (const name of ['replica-a', 'replica-b']) {
      const l = await createListener(db.url, app.log);
      const r = makeRunner(db.pool, partnerJobHandlers(app.ctx), app.log, name, 3);
      await r.start(l);
      listeners.push(l);
      runners.push(r);
    }
    try {
      fake.orders.set('Z-1', order('Z-1', 'received', new Date().toISOString()));
      await delivery('2026-12-07T08:00:00-03:00');
      // webhook events arrive through the intake function while both replicas listen
      for (let i = 0; i < 40; i++) {
        await db.pool.query('select partner_webhook_receber($1::bytea)',
          [Buffer.from(JSON.stringify({ event: 'order.created', time: '2026-11-20T10:00:00Z', resource: order(`Z-${i % 10}`, 'waiting_payment', `2026-11-20T10:00:${String(i).padStart(2, '0')}Z`) }))]);
      }
      await tick('2026-12-07T08:45:00-03:00'); // alert + contingency + poll, all at once
      await drainJobs(runners, db.pool);
      await flushErrtracker();

      expect(smtp.mails).toHaveLength(2);
      expect(parado()).toHaveLength(1);
      expect(logs.count('Contingência de pedidos LIGADA')).toBe(1);
      const jobs = await q<{ kind: string; status: string; attempts: number; locked_by: string | null }>(
        'select kind, status, attempts, locked_by from app.job');
      expect(jobs.every((j) => j.status === 'done' && j.attempts === 1)).toBe(true);
      expect(jobs.filter((j) => j.kind === 'partner_normalizar').length).toBeGreaterThanOrEqual(1);
      expect(await q(`select motivo, status, tentativas from partner_puxada order by motivo`)).toEqual([
        { motivo: 'contingencia', status: 'CONCLUIDA', tentativas: 1 }, { motivo: 'poll', status: 'CONCLUIDA', tentativas: 1 }]);
      expect(fake.requests).toHaveLength(2); // one page per pull, each asked once
      expect(await q(`select count(*)::int as n from partner_webhook where situacao = 'NORMALIZADO'`)).toEqual([{ n: 41 }]);
      expect(await q(`select count(*)::int as n from partner_pedido`)).toEqual([{ n: 10 }]);
      expect(await q(`select estado from partner_pedido where code = 'Z-1'`)).toEqual([{ estado: 'ENFILEIRADO' }]);
    } finally {
      for (const r of runners) await r.stop(1000);
      for (const l of listeners) await l.close();
    }
  });
});

describe('schedule', () => {
  it('pg_cron runs partner_tick(now()) every minute in the database it serves', async () => {
    const c = new pg.Client({ connectionString: urlFor(inject('cronDb')) });
    await c.connect();
    try {
      const { rows } = await c.query(`select schedule, command from cron.job where jobname = 'partner_tick'`);
      expect(rows).toEqual([{ schedule: '* * * * *', command: 'select public.partner_tick(now())' }]);
      // and the command runs there as is
      const r = await c.query('select public.partner_tick(now()) as r');
      expect(r.rows[0].r).toHaveProperty('silencio_desde');
    } finally {
      await c.end();
    }
  });
});
