/**
 * Group commit of the webhook intake: concurrent deliveries stored by one multi-row insert
 * (partner_webhook_receber_lote), each answered 200 only after the commit of its flush.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testApp } from '../harness/service.js';
import { event, order } from '../harness/partner.js';
import { waitUntilBlocked } from '../harness/wait.js';

const SECRET = 'segredo-lote';
let db: TestDatabase;

beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });
beforeEach(async () => {
  await db.pool.query('truncate partner_webhook, partner_pedido cascade');
  await db.pool.query('delete from app.job');
});

const post = (app: FastifyInstance, payload: string | Buffer) => app.inject({
  method: 'POST', url: '/webhook/partner', payload, headers: { 'x-partner-secret': SECRET, 'content-type': 'application/json' },
});

/** Counts the rows of every INSERT statement on partner_webhook (a statement trigger). */
async function countInserts(): Promise<void> {
  await db.pool.query(`
    create table if not exists public.t_flush (id serial, n integer, bytes bigint);
    create or replace function public.tg_t_flush() returns trigger language plpgsql as $$
    begin insert into public.t_flush (n, bytes) select count(*), sum(octet_length(corpo)) from novos; return null; end $$;
    drop trigger if exists _000_t_flush on public.partner_webhook;
    create trigger _000_t_flush after insert on public.partner_webhook referencing new table as novos
      for each statement execute function public.tg_t_flush();
    truncate public.t_flush;`);
}
async function dropCountInserts(): Promise<void> {
  await db.pool.query('drop trigger if exists _000_t_flush on public.partner_webhook; drop function if exists public.tg_t_flush() cascade; drop table if exists public.t_flush');
}

describe('partner_webhook_receber_lote (SQL)', () => {
  it('stores in the arrays\' order, byte for byte, skips an id already stored, enqueues the normalisation once', async () => {
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'];
    const corpos = [Buffer.from('{"a":1}'), Buffer.from([0, 0xff, 0xfe, 0x22]), Buffer.alloc(0)];
    const r1 = await db.pool.query(`select id, inserido from partner_webhook_receber_lote($1::uuid[], $2::bytea[], $3::text[], null, $4::text[],
      array['2026-11-20T10:00:00.000001Z', null, null]::timestamptz[])`, [ids, corpos, ['application/json', null, 'x'.repeat(300)], [null, 'ua', null]]);
    expect(r1.rows).toEqual(ids.map((id) => ({ id, inserido: true })));
    const { rows } = await db.pool.query(`select id, corpo, content_type, user_agent, recebido_em from partner_webhook order by recebido_em`);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => Buffer.compare(r.corpo, corpos[ids.indexOf(r.id)]!))).toEqual([0, 0, 0]);
    expect(rows[0].recebido_em.toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(rows[2].content_type).toHaveLength(200);
    expect(rows[1].user_agent).toBe('ua');
    expect((await db.pool.query(`select count(*)::int n from app.job where kind = 'partner_normalizar'`)).rows[0].n).toBe(1);

    // a replay of the same ids (and one new) stores only the new one
    const novo = '00000000-0000-4000-8000-000000000004';
    const r2 = await db.pool.query(`select id, inserido from partner_webhook_receber_lote($1::uuid[], $2::bytea[])`,
      [[ids[1], novo, ids[1]], [Buffer.from('outro'), Buffer.from('{}'), Buffer.from('x')]]);
    expect(r2.rows).toEqual([{ id: ids[1], inserido: false }, { id: novo, inserido: true }, { id: ids[1], inserido: false }]);
    expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(4);
    expect(Buffer.compare((await db.pool.query('select corpo from partner_webhook where id = $1', [ids[1]])).rows[0].corpo, corpos[1]!)).toBe(0);
  });

  it('PW400 when the arrays differ in length or an id is null; an empty batch stores nothing', async () => {
    await expect(db.pool.query(`select * from partner_webhook_receber_lote(array[gen_random_uuid()], array['a'::bytea, 'b'::bytea])`)).rejects.toMatchObject({ code: 'PW400' });
    await expect(db.pool.query(`select * from partner_webhook_receber_lote(array[gen_random_uuid()], array['a'::bytea], array['x', 'y'])`)).rejects.toMatchObject({ code: 'PW400' });
    await expect(db.pool.query(`select * from partner_webhook_receber_lote(array[null::uuid], array['a'::bytea])`)).rejects.toMatchObject({ code: 'PW400' });
    expect((await db.pool.query(`select * from partner_webhook_receber_lote('{}'::uuid[], '{}'::bytea[])`)).rows).toEqual([]);
    expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(0);
  });

  it('partner_webhook_receber_lote_juntos: the bodies given one after the other are cut back byte for byte by their lengths; PW400 when the lengths do not match', async () => {
    const ids = ['00000000-0000-4000-8000-000000000011', '00000000-0000-4000-8000-000000000012', '00000000-0000-4000-8000-000000000013'];
    const corpos = [Buffer.from([0, 0xff, 0x5c, 0x22]), Buffer.alloc(0), Buffer.from('{"b":"ç"}')];
    const r = await db.pool.query(`select id, inserido from partner_webhook_receber_lote_juntos($1::uuid[], $2::bytea, $3::integer[], $4::text[])`,
      [ids, Buffer.concat(corpos), corpos.map((c) => c.length), ['application/octet-stream', null, 'application/json']]);
    expect(r.rows).toEqual(ids.map((id) => ({ id, inserido: true })));
    const { rows } = await db.pool.query(`select id, corpo, content_type from partner_webhook order by recebido_em`);
    expect(rows.map((x) => x.id)).toEqual(ids);
    expect(rows.map((x, i) => x.corpo.equals(corpos[i]!))).toEqual([true, true, true]);
    expect(rows.map((x) => x.content_type)).toEqual(['application/octet-stream', null, 'application/json']);

    const outro = ['00000000-0000-4000-8000-000000000014', '00000000-0000-4000-8000-000000000015'];
    const q = `select * from partner_webhook_receber_lote_juntos($1::uuid[], $2::bytea, $3::integer[])`;
    await expect(db.pool.query(q, [outro, Buffer.from('abc'), [3]])).rejects.toMatchObject({ code: 'PW400' }); // one length for two ids
    await expect(db.pool.query(q, [outro, Buffer.from('abc'), [1, 1]])).rejects.toMatchObject({ code: 'PW400' }); // 2 bytes of lengths, 3 given
    await expect(db.pool.query(q, [outro, Buffer.from('abc'), [4, -1]])).rejects.toMatchObject({ code: 'PW400' });
    await expect(db.pool.query(q, [outro, Buffer.from('abc'), [3, null]])).rejects.toMatchObject({ code: 'PW400' });
    expect((await db.pool.query(q, [[], Buffer.alloc(0), []])).rows).toEqual([]);
    expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(3);
  });

  it('partner_webhook_receber (one delivery, for DBAs) goes through the same insert', async () => {
    const { rows: [r] } = await db.pool.query(`select partner_webhook_receber('{"x":1}'::bytea, 'application/json', '10.0.0.1', 'psql') as id`);
    const { rows: [w] } = await db.pool.query('select convert_from(corpo, \'UTF8\') c, ip, situacao from partner_webhook where id = $1', [r.id]);
    expect(w).toEqual({ c: '{"x":1}', ip: '10.0.0.1', situacao: 'PENDENTE' });
  });
});

describe('POST /webhook/partner: group commit', () => {
  // 2 ms: a timer after the first delivery; 0 (the default): the deliveries read in one turn of the event loop
  it.each(['2', '0'])('concurrent deliveries share multi-row inserts (at most PARTNER_WEBHOOK_LOTE_MAX each), every one stored exactly as sent (PARTNER_WEBHOOK_LOTE_ESPERA_MS=%s)', async (espera) => {
    const app = await testApp(db, { PARTNER_WEBHOOK_SECRET: SECRET, PARTNER_WEBHOOK_LOTE_MAX: '16', PARTNER_WEBHOOK_LOTE_ESPERA_MS: espera,
      PARTNER_WEBHOOK_ORCAMENTO_MS: '60000', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0' });
    await countInserts();
    try {
      const bodies = Array.from({ length: 40 }, (_, i) => JSON.stringify(event(order(`GC-${i}`, 'waiting_payment', '2026-11-20T10:00:00Z'))) + ' '.repeat(i));
      const res = await Promise.all(bodies.map((b) => post(app, b)));
      expect(res.map((r) => r.statusCode)).toEqual(bodies.map(() => 200));
      const ids = res.map((r) => r.json().id as string);
      expect(new Set(ids).size).toBe(40);
      const { rows } = await db.pool.query<{ id: string; c: string }>(`select id, convert_from(corpo, 'UTF8') c from partner_webhook`);
      expect(new Map(rows.map((r) => [r.id, r.c]))).toEqual(new Map(ids.map((id, i) => [id, bodies[i]!])));
      const flushes = (await db.pool.query<{ n: number }>('select n from public.t_flush order by id')).rows.map((r) => r.n);
      expect(flushes.reduce((a, b) => a + b, 0)).toBe(40);
      expect(Math.max(...flushes)).toBeLessThanOrEqual(16);
      expect(flushes.length).toBeLessThanOrEqual(6); // 40 deliveries in at most a handful of statements, not 40
      expect(Math.max(...flushes)).toBeGreaterThan(1);
    } finally {
      await dropCountInserts();
      await app.close();
    }
  });

  it('the id given at intake is a UUIDv7: a later delivery\'s id sorts after an earlier one\'s, so the primary key grows at its right edge', async () => {
    const app = await testApp(db, { PARTNER_WEBHOOK_SECRET: SECRET, PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0' });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await post(app, JSON.stringify(event(order(`V7-${i}`, 'waiting_payment', '2026-11-20T10:00:00Z'))));
        expect(r.statusCode).toBe(200);
        ids.push(r.json().id as string);
        await new Promise((res) => setTimeout(res, 3)); // another millisecond: v7 orders by time, not within one
      }
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([...ids].sort()).toEqual(ids);
      // the time in the id's first 48 bits is the arrival's, to the millisecond (the row's recebido_em is the database's clock)
      const { rows } = await db.pool.query<{ id: string; ms: string }>(`select id::text, (extract(epoch from recebido_em) * 1000)::bigint::text as ms from partner_webhook`);
      for (const r of rows) expect(Math.abs(parseInt(r.id.replace(/-/g, '').slice(0, 12), 16) - Number(r.ms))).toBeLessThan(5_000);
      expect((await db.pool.query<{ id: string }>('select id::text from partner_webhook order by id')).rows.map((r) => r.id)).toEqual(ids);
    } finally {
      await app.close();
    }
  });

  it('a flush carries at most 8 MiB of bodies (at least one delivery): large bodies go in separate inserts, small ones still together', async () => {
    // a long budget and no spool: on a loaded machine a large body must not end in the spool instead
    const app = await testApp(db, { PARTNER_WEBHOOK_SECRET: SECRET, PARTNER_WEBHOOK_LOTE_EM_VOO: '1',
      PARTNER_WEBHOOK_ORCAMENTO_MS: '60000', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0' });
    await countInserts();
    const trava = await db.pool.connect();
    try {
      // the one flush in flight waits on a table lock, so the next deliveries pile up
      await trava.query('begin; lock table public.partner_webhook in share row exclusive mode');
      const primeiro = post(app, '{"primeiro":true}');
      await waitUntilBlocked(db.pool, { queryLike: 'partner_webhook_receber_lote' });
      const mb = (n: number) => 'x'.repeat(n * 1024 * 1024);
      const bodies = [mb(5), 'p1', mb(5), mb(9), 'p2'].map((pad, i) => JSON.stringify({ i, pad }));
      const res = Promise.all(bodies.map((b) => post(app, b)));
      await until(() => app.ctx.partnerIntake!.emEspera === 5, 'cinco à espera');
      await trava.query('commit');
      expect((await primeiro).statusCode).toBe(200);
      expect((await res).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      const flushes = (await db.pool.query<{ n: number; bytes: string }>('select n, bytes from public.t_flush order by id')).rows.map((f) => ({ n: f.n, mb: Math.floor(Number(f.bytes) / (1024 * 1024)) }));
      // the first alone; then five deliveries in four inserts, none of several over 8 MiB
      expect(flushes[0]).toEqual({ n: 1, mb: 0 });
      const resto = flushes.slice(1);
      expect(resto.reduce((a, f) => a + f.n, 0)).toBe(5);
      expect(resto.filter((f) => f.n > 1 && f.mb >= 8)).toEqual([]);
      expect(resto.length).toBeLessThan(5);
      expect(resto.length).toBeGreaterThanOrEqual(3);
    } finally {
      await trava.query('rollback').catch(() => undefined);
      trava.release();
      await dropCountInserts();
      await app.close();
    }
  });

  it('never answers 200 before the commit: a flush whose connection is killed before it commits is retried, then answered, stored once', async () => {
    // the first insert sleeps (a sequence: not rolled back by the kill); the test kills that backend mid-statement
    await db.pool.query(`
      create sequence if not exists public.t_dorme;
      create or replace function public.tg_t_dorme() returns trigger language plpgsql as $$
      begin if nextval('public.t_dorme') = 1 then perform pg_sleep(30); end if; return null; end $$;
      create trigger _000_t_dorme after insert on public.partner_webhook for each statement execute function public.tg_t_dorme();`);
    const app = await testApp(db, { PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'fatal', PARTNER_WEBHOOK_ORCAMENTO_MS: '10000', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0', PARTNER_WEBHOOK_LOTE_ESPERA_MS: '50' });
    try {
      const answers: Array<{ at: number; status: number; id: string }> = [];
      const sends = ['{"k":"A"}', '{"k":"B"}'].map((b) => post(app, b).then((r) => { answers.push({ at: Date.now(), status: r.statusCode, id: r.json().id }); }));
      const pid = await waitForSleeper();
      // flushed, not committed: nobody has been answered yet
      expect(answers).toEqual([]);
      expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(0);
      const killedAt = Date.now();
      expect((await db.pool.query('select pg_terminate_backend($1) ok', [pid])).rows[0].ok).toBe(true);
      await Promise.all(sends);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.every((a) => a.at >= killedAt)).toBe(true);
      const { rows } = await db.pool.query<{ id: string; c: string }>(`select id, convert_from(corpo, 'UTF8') c from partner_webhook order by c`);
      expect(rows.map((r) => r.c)).toEqual(['{"k":"A"}', '{"k":"B"}']);
      expect(rows.map((r) => r.id).sort()).toEqual(answers.map((a) => a.id).sort());
      expect((await db.pool.query(`select last_value::int v from public.t_dorme`)).rows[0].v).toBeGreaterThanOrEqual(2);
    } finally {
      await app.close();
      await db.pool.query('drop trigger _000_t_dorme on public.partner_webhook; drop function public.tg_t_dorme(); drop sequence public.t_dorme');
    }
  });

  it('never answers 200 for an event not committed: every flush killed until the budget ends -> 503, nothing stored (spool off)', async () => {
    await db.pool.query(`
      create or replace function public.tg_t_dorme() returns trigger language plpgsql as $$
      begin perform pg_sleep(30); return null; end $$;
      create trigger _000_t_dorme after insert on public.partner_webhook for each statement execute function public.tg_t_dorme();`);
    const app = await testApp(db, { PARTNER_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'fatal', PARTNER_WEBHOOK_ORCAMENTO_MS: '1500', PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0' });
    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        const { rows } = await db.pool.query<{ ok: boolean }>(`select pg_terminate_backend(pid) ok from pg_stat_activity
          where wait_event = 'PgSleep' and query like '%partner_webhook_receber_lote%' and pid <> pg_backend_pid()`);
        kills += rows.filter((r) => r.ok).length;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const res = await post(app, '{"k":"nunca"}');
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(kills).toBeGreaterThanOrEqual(2); // the first attempt and at least one retry were flushed and killed
      expect((await db.pool.query('select count(*)::int n from partner_webhook')).rows[0].n).toBe(0);
    } finally {
      killing = false;
      await killer;
      await app.close();
      await db.pool.query('drop trigger _000_t_dorme on public.partner_webhook; drop function public.tg_t_dorme()');
    }
  });
});

async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`não aconteceu: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function waitForSleeper(): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.pool.query<{ pid: number }>(`select pid from pg_stat_activity
      where wait_event = 'PgSleep' and query like '%partner_webhook_receber_lote%' and pid <> pg_backend_pid()`);
    if (rows[0]) return rows[0].pid;
    if (Date.now() > deadline) throw new Error('nenhum flush dormindo no gatilho');
    await new Promise((r) => setTimeout(r, 20));
  }
}
