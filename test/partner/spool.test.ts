/**
 * The webhook's local spool: a delivery the database does not take within the budget is
 * appended durably and answered 200, then replayed in arrival order, once, through the same
 * SQL function; a torn record is reported and skipped; a full spool refuses with 503.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { logCapture, type LogCapture } from '../harness/partner.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { appHabilitado, sessao, HTML } from '../web/helpers.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPool } from '../../src/db/pool.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';
import { encodeRecord, readSegment, type SpoolRecord } from '../../src/pedidos/spool.js';

const SECRET = 'segredo-spool';
let db: TestDatabase;
let receiver: ErrtrackerReceiver;
let deadPool: pg.Pool;

beforeAll(async () => {
  receiver = await startErrtrackerReceiver();
  initErrtracker({ dsn: receiver.dsn, release: '0.0.0-test', environment: 'test', commit: null });
  db = await createTestDatabase();
  deadPool = createPool('postgres://postgres@127.0.0.1:1/nada', 2);
});
afterAll(async () => {
  await deadPool?.end();
  await db?.drop();
  await receiver?.close();
});
beforeEach(async () => {
  await db.pool.query('truncate partner_webhook, partner_pedido cascade');
});

async function appOn(pool: pg.Pool, env: Record<string, string>, logs?: LogCapture): Promise<FastifyInstance> {
  const { config } = loadConfig(testEnv(db, { PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'info', ...env }));
  const app = await buildApp({ config, pool, version: '0.0.0-test', commit: null, objstore: null }, logs ? { logStream: logs.stream } : { logger: false });
  await app.ready();
  return app;
}

const post = (app: FastifyInstance, payload: string | Buffer, headers: Record<string, string> = {}) => app.inject({
  method: 'POST', url: '/webhook/partner', payload, headers: { 'x-partner-secret': SECRET, 'content-type': 'application/json', ...headers },
});

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const segmentos = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.spool')).sort();

describe('database down: the spool answers 200, the replay stores each event once', () => {
  it('spooled durably in arrival order, shown by status and console, replayed byte for byte with the arrival instant; the tracker hears start and end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-'));
    const env = { PARTNER_WEBHOOK_SPOOL_DIR: dir, PARTNER_WEBHOOK_ORCAMENTO_MS: '1000' };
    const downLogs = logCapture();
    const down = await appOn(deadPool, env, downLogs);
    const corpos = [Buffer.from('{"event":"order.created","seq":1}'), Buffer.from([0, 0xff, 0x80, 0x7b]), Buffer.from('{"seq":3,"marca":"REPLAY-BLOQUEADO"}')];
    const answers: Array<{ status: number; id: string }> = [];
    try {
      for (const c of corpos) {
        const r = await post(down, c, { 'user-agent': 'plataforma/2' });
        answers.push({ status: r.statusCode, id: r.json().id });
      }
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      // the first tried the database (and retried within its budget); the next ones went straight to the spool
      const msgs = downLogs.lines.map((l) => l.msg);
      const primeiro = msgs.indexOf('request completed');
      expect(msgs.slice(0, primeiro)).toContain('falha ao gravar o webhook do parceiro; tentando de novo');
      expect(msgs.slice(primeiro)).not.toContain('falha ao gravar o webhook do parceiro; tentando de novo');
      const st = down.ctx.partnerIntake!.estado();
      expect(st).toMatchObject({ registros: 3, ativo: true, bancoIndisponivel: true });
      // the status needs the database; while it is down its 503 problem says what the spool holds
      const fora = await down.inject({ url: '/api/partner/status', headers: bearer() });
      expect(fora.statusCode).toBe(503);
      expect(fora.json()).toMatchObject({
        status: 503, detail: expect.stringMatching(/spool local desta réplica \([^)]+\): 3 evento\(s\), o mais antigo recebido em 20\d\d-/),
        spool: { registros: 3, ativo: true, bancoIndisponivel: true },
      });
      expect(st.bytes).toBeGreaterThan(corpos.reduce((n, c) => n + c.length, 0));
      // on disk: checksummed records, in order, with the ids answered
      const lidos: SpoolRecord[] = [];
      for (const seg of segmentos(dir)) {
        for await (const it of readSegment(join(dir, seg))) if (it.tipo === 'registro') lidos.push(it.registro);
      }
      expect(lidos.map((r) => r.id)).toEqual(answers.map((a) => a.id));
      expect(lidos.map((r) => Buffer.compare(r.corpo, corpos[lidos.indexOf(r)]!))).toEqual([0, 0, 0]);
      expect(lidos[0]!.userAgent).toBe('plataforma/2');
      await flushErrtracker();
      await receiver.waitFor((e) => e.level === 'warning' && /^Webhook do parceiro: banco indisponível, eventos gravados no spool local desde/.test(e.message ?? ''));
    } finally {
      await down.close();
    }

    // the database is back, but one record cannot be stored yet: the replay waits, the status shows depth and age
    await db.pool.query(`
      create or replace function public.tg_t_recusa() returns trigger language plpgsql as $$
      begin if position('REPLAY-BLOQUEADO'::bytea in new.corpo) > 0 then raise exception 'recusado pelo teste'; end if; return new; end $$;
      create trigger _000_t_recusa before insert on public.partner_webhook for each row execute function public.tg_t_recusa();`);
    const up = await appHabilitado(db, { ...env, PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'fatal' });
    try {
      const s = await until(async () => (await up.inject({ url: '/api/partner/status', headers: bearer() })).json(),
        (j) => j.spool?.bancoIndisponivel === true, 'o reenvio deveria falhar');
      expect(s.spool).toMatchObject({ habilitado: true, ativo: true, registros: 3, limiteBytes: 1024 * 1024 * 1024 });
      expect(s.spool.idadeSegundos).toBeGreaterThanOrEqual(0);
      expect(Date.parse(s.spool.maisAntigoEm)).toBeLessThanOrEqual(Date.now());
      expect(Date.now() - Date.parse(s.spool.maisAntigoEm)).toBeLessThan(60_000);
      const ses = await sessao(db);
      const page = await up.inject({ url: '/pedidos', headers: { ...HTML, cookie: ses.cookie } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toMatch(/Spool local do webhook nesta réplica \([^)]+\): 3 evento\(s\) aguardando o banco/);
      // while the replay is behind, a new delivery goes to the spool too (after the older ones)
      const quarto = await post(up, '{"seq":4}');
      expect(quarto.statusCode).toBe(200);
      expect(up.ctx.partnerIntake!.estado().registros).toBe(4);
      expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(0);

      await db.pool.query('drop trigger _000_t_recusa on public.partner_webhook; drop function public.tg_t_recusa()');
      const rows = await until(async () => (await db.pool.query<{ id: string; corpo: Buffer; recebido_em: Date; user_agent: string | null }>(
        'select id, corpo, recebido_em, user_agent from partner_webhook order by recebido_em')).rows, (r) => r.length === 4, 'reenvio');
      expect(rows.map((r) => r.id)).toEqual([...answers.map((a) => a.id), quarto.json().id]);
      expect(rows.slice(0, 3).map((r, i) => Buffer.compare(r.corpo, corpos[i]!))).toEqual([0, 0, 0]);
      expect(rows[0]!.user_agent).toBe('plataforma/2');
      // recebido_em is the arrival, not the replay
      expect(Date.now() - rows[0]!.recebido_em.getTime()).toBeGreaterThan(500);
      const vazio = await until(async () => (await up.inject({ url: '/api/partner/status', headers: bearer() })).json().spool,
        (sp) => sp.registros === 0 && !sp.ativo, 'spool vazio');
      expect(vazio).toMatchObject({ registros: 0, bytes: 0, maisAntigoEm: null, idadeSegundos: null, bancoIndisponivel: false });
      expect(segmentos(dir)).toEqual([]);
      await flushErrtracker();
      await receiver.waitFor((e) => e.level === 'warning' && /^Webhook do parceiro: spool local esvaziado, 4 evento\(s\)/.test(e.message ?? ''));
      // the next delivery goes to the database directly
      const quinto = await post(up, '{"seq":5}');
      expect(quinto.statusCode).toBe(200);
      expect((await db.pool.query('select count(*)::int n from partner_webhook where id = $1', [quinto.json().id])).rows[0].n).toBe(1);
      expect(up.ctx.partnerIntake!.estado().registros).toBe(0);
    } finally {
      await up.close();
    }
  });

  it('a replay repeated after a crash between the insert and the removal stores nothing twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-'));
    const recs: SpoolRecord[] = [1, 2, 3].map((i) => ({
      id: randomUUID(), recebidoEm: `2026-11-20T10:00:0${i}.000001Z`, contentType: 'application/json', ip: '10.0.0.9', userAgent: null, corpo: Buffer.from(`{"n":${i}}`),
    }));
    const file = join(dir, '000000000001.spool');
    writeFileSync(file, Buffer.concat(recs.map(encodeRecord)));
    const copia = readFileSync(file);
    const app1 = await appOn(db.pool, { PARTNER_WEBHOOK_SPOOL_DIR: dir });
    await until(async () => app1.ctx.partnerIntake!.estado().registros, (n) => n === 0, 'primeiro reenvio');
    await app1.close();
    // as if the process died after the commit and before the segment was removed
    writeFileSync(file, copia);
    const app2 = await appOn(db.pool, { PARTNER_WEBHOOK_SPOOL_DIR: dir });
    try {
      await until(async () => segmentos(dir).length, (n) => n === 0, 'segundo reenvio');
      const { rows } = await db.pool.query<{ id: string; recebido_em: Date; ip: string }>('select id, recebido_em, ip from partner_webhook order by recebido_em');
      expect(rows.map((r) => r.id)).toEqual(recs.map((r) => r.id));
      expect(rows.map((r) => r.recebido_em.toISOString())).toEqual(['2026-11-20T10:00:01.000Z', '2026-11-20T10:00:02.000Z', '2026-11-20T10:00:03.000Z']);
      expect(rows[0]!.ip).toBe('10.0.0.9');
    } finally {
      await app2.close();
    }
  });
});

describe('damage and limits', () => {
  it('a torn last record is detected and reported (log ERROR and the tracker), the rest replayed, the segment kept for inspection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-'));
    const rec = (i: number): SpoolRecord => ({ id: randomUUID(), recebidoEm: new Date(Date.now() - 10_000 + i).toISOString(), contentType: null, ip: null, userAgent: null, corpo: Buffer.from(`{"rasgado":${i}}`) });
    const [r1, r2, r3, r4, r5] = [1, 2, 3, 4, 5].map(rec);
    const r3buf = encodeRecord(r3!);
    writeFileSync(join(dir, '000000000001.spool'), Buffer.concat([encodeRecord(r1!), encodeRecord(r2!), r3buf.subarray(0, r3buf.length - 5)]));
    // a later segment, and one record in the middle of it with a flipped byte
    const r5buf = encodeRecord(r5!);
    r5buf.writeUInt8(r5buf.readUInt8(r5buf.length - 2) ^ 0xff, r5buf.length - 2);
    writeFileSync(join(dir, '000000000002.spool'), Buffer.concat([encodeRecord(r4!), r5buf, encodeRecord({ ...rec(6), corpo: Buffer.from('{"depois":1}') })]));
    const logs = logCapture();
    const app = await appOn(db.pool, { PARTNER_WEBHOOK_SPOOL_DIR: dir }, logs);
    try {
      const rows = await until(async () => (await db.pool.query<{ c: string }>(`select convert_from(corpo, 'UTF8') c from partner_webhook order by recebido_em`)).rows.map((r) => r.c),
        (r) => r.length === 4 && segmentos(dir).length === 0, 'reenvio com dano');
      expect(rows).toEqual(['{"rasgado":1}', '{"rasgado":2}', '{"rasgado":4}', '{"depois":1}']);
      const erros = logs.lines.filter((l) => l.level === 50).map((l) => l.msg);
      expect(erros).toEqual([
        expect.stringMatching(/^spool do webhook do parceiro: registro danificado em 000000000001\.spool \(offset \d+, \d+ bytes: registro incompleto no fim do arquivo/),
        expect.stringMatching(/^spool do webhook do parceiro: registro danificado em 000000000002\.spool \(offset \d+, \d+ bytes: CRC-32 não confere\)/),
      ]);
      expect(readdirSync(dir).sort()).toEqual(['000000000001.spool.corrompido', '000000000002.spool.corrompido']);
      await flushErrtracker();
      await receiver.waitFor((e) => e.level === 'error' && /registro danificado em 000000000001\.spool/.test(e.message ?? ''));
      expect(app.ctx.partnerIntake!.estado().registros).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('a spool directory that cannot be created refuses the start with the variable named', async () => {
    const arquivo = join(mkdtempSync(join(tmpdir(), 'spool-')), 'um-arquivo');
    writeFileSync(arquivo, 'não é diretório');
    const { config } = loadConfig(testEnv(db, { PARTNER_WEBHOOK_SPOOL_DIR: join(arquivo, 'spool') }));
    const app = await buildApp({ config, pool: db.pool, version: '0.0.0-test', commit: null, objstore: null }, { logger: false });
    await expect(app.ready()).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(/spool do webhook do parceiro inacessível em .*PARTNER_WEBHOOK_SPOOL_DIR/) });
    await app.close().catch(() => undefined);
  });

  it('spool full: 503 problem naming the limit, an ERROR log, nothing torn; what was spooled stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-'));
    const logs = logCapture();
    const app = await appOn(deadPool, { PARTNER_WEBHOOK_SPOOL_DIR: dir, PARTNER_WEBHOOK_ORCAMENTO_MS: '100', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '1000' }, logs);
    try {
      const ok = await post(app, '{"pequeno":true}');
      expect(ok.statusCode).toBe(200);
      const cheio = await post(app, JSON.stringify({ grande: 'x'.repeat(2000) }));
      expect(cheio.statusCode).toBe(503);
      expect(cheio.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(cheio.headers['retry-after']).toBe('60');
      expect(cheio.json()).toMatchObject({ status: 503, detail: expect.stringMatching(/spool local está cheio \(PARTNER_WEBHOOK_SPOOL_MAX_BYTES\)/) });
      expect(logs.lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([expect.stringMatching(/NÃO gravado: banco indisponível e spool local cheio: \d+ de 1000 bytes/)]);
      const st = app.ctx.partnerIntake!.estado();
      expect(st).toMatchObject({ registros: 1, limiteBytes: 1000 });
      const lidos = [];
      for await (const it of readSegment(join(dir, segmentos(dir)[0]!))) lidos.push(it.tipo);
      expect(lidos).toEqual(['registro']);
      expect(existsSync(join(dir, segmentos(dir)[0]!))).toBe(true);
    } finally {
      await app.close();
    }
  });
});
