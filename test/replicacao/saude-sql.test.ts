/**
 * Replication health from psql (public.replicacao_saude) on real slots: a real logical
 * replication client (pg_recvlogical, the tests' sync engine) holds a prefixed slot active;
 * stopped, the slot goes inactive and its lag in bytes grows with every write; the pg_cron
 * job's observer (app.replicacao_slots_observar) says since when. Slots without the prefix,
 * and other databases' slots, are not listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startFakeSyncEngine, slotAtivo, waitUntil, type FakeSyncEngine } from '../harness/sync-engine.js';

let db: TestDatabase;
let engine: FakeSyncEngine;
let outroBanco: string;

interface Linha {
  slot_name: string; active: boolean; active_pid: number | null; confirmed_flush_lsn: string | null; current_lsn: string;
  lag_bytes: number | null; retained_bytes: number | null; write_lag_s: number | null; flush_lag_s: number | null; replay_lag_s: number | null;
  wal_status: string | null; inactive_since: Date | null; inactive_at_least: boolean | null;
}

async function saude(prefixo?: string): Promise<Linha[]> {
  const { rows } = await db.pool.query<Linha>(`
    select slot_name, active, active_pid, confirmed_flush_lsn::text, current_lsn::text, lag_bytes::float8, retained_bytes::float8,
           extract(epoch from write_lag)::float8 write_lag_s, extract(epoch from flush_lag)::float8 flush_lag_s,
           extract(epoch from replay_lag)::float8 replay_lag_s, wal_status, inactive_since, inactive_at_least
      from ${prefixo === undefined ? 'replicacao_saude()' : 'replicacao_saude($1)'}`, prefixo === undefined ? [] : [prefixo]);
  return rows;
}

/** Real writes: about 1 MB of WAL in a bi_* table (published, so the client receives them). */
async function escrever(): Promise<void> {
  await db.pool.query(`insert into bi_saude_carga select g, repeat(md5(g::text), 8) from (select coalesce(max(id), 0) n from bi_saude_carga) m, generate_series(m.n + 1, m.n + 4000) g`);
}

const observar = async () => (await db.pool.query<{ n: number }>('select app.replicacao_slots_observar() n')).rows[0]!.n;

beforeAll(async () => {
  db = await createTestDatabase();
  // pgoutput over the publication, as the real engine reads: its walsender measures the lag
  engine = startFakeSyncEngine(db.url, 'powersync_', { plugin: 'pgoutput' });
  await db.pool.query('create table bi_saude_carga (id int primary key, texto text)');
  outroBanco = `powersync_${db.name}_outro_banco`;
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await db?.pool.query(`select pg_drop_replication_slot(slot_name) from pg_replication_slots
                         where database = current_database() and not active`).catch(() => undefined);
  await adminQuery('select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1', [outroBanco]).catch(() => undefined);
  await db?.drop();
});

describe('replicacao_saude', () => {
  it('a slot held by a client: active with its pid, the confirmed position, lag >= 0; pg_stat_replication measures its time lag', async () => {
    const slot = await engine.start();
    const [s] = await saude();
    expect(s).toMatchObject({ slot_name: slot, active: true, wal_status: 'reserved', inactive_since: null, inactive_at_least: null });
    expect(s!.active_pid).toBeGreaterThan(0);
    expect(s!.confirmed_flush_lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(s!.lag_bytes).toBeGreaterThanOrEqual(0);
    expect(s!.retained_bytes).toBeGreaterThanOrEqual(0);
    // the walsender holding the slot is the client's: its lag is Postgres' own measure, null or >= 0
    const ws = await db.pool.query(`select count(*)::int n from pg_stat_replication where pid = $1`, [s!.active_pid]);
    expect(ws.rows[0].n).toBe(1);
    for (const k of ['write_lag_s', 'flush_lag_s', 'replay_lag_s'] as const) if (s![k] !== null) expect(s![k]).toBeGreaterThanOrEqual(0);
    // a write the client confirms (pg_recvlogical reports every second): Postgres measures the lag
    await escrever();
    let medido: Linha | undefined;
    await waitUntil(async () => { [medido] = await saude(); return medido!.write_lag_s !== null; }, 15_000, 'write_lag medido');
    expect(medido!.write_lag_s).toBeGreaterThanOrEqual(0);
    expect(medido!.write_lag_s).toBeLessThan(60);
    // and it catches up: the lag in bytes comes back below what one write made
    await waitUntil(async () => ((await saude())[0]!.lag_bytes ?? Infinity) < 100_000, 15_000, 'cliente em dia');
  }, 60_000);

  it('the client stopped: inactive, no pid, the lag in bytes grows with every write; inactive since the last minute it was seen active', async () => {
    if (!engine.running) await engine.start();
    const slot = engine.slots.at(-1)!;
    expect(await observar()).toBeGreaterThanOrEqual(1); // seen active
    const vistoAtivo = (await db.pool.query(`select ativo_visto_em from app.replicacao_slot_visto where slot = $1`, [slot])).rows[0].ativo_visto_em as Date;
    expect(vistoAtivo).toBeInstanceOf(Date);
    await engine.stop();
    await waitUntil(async () => !(await slotAtivo(db.url, slot)), 10_000, 'slot inativo');
    const [parado] = await saude();
    expect(parado).toMatchObject({ slot_name: slot, active: false, active_pid: null, write_lag_s: null, flush_lag_s: null, replay_lag_s: null });
    // the job has not looked since it stopped: the last time it saw it active
    expect(parado!.inactive_since).toEqual(vistoAtivo);
    expect(parado!.inactive_at_least).toBe(false);
    await escrever();
    const [depois1] = await saude();
    expect(depois1!.lag_bytes!).toBeGreaterThan(parado!.lag_bytes! + 500_000);
    expect(depois1!.confirmed_flush_lsn).toBe(parado!.confirmed_flush_lsn);
    expect(depois1!.retained_bytes!).toBeGreaterThanOrEqual(depois1!.lag_bytes!);
    await escrever();
    const [depois2] = await saude();
    expect(depois2!.lag_bytes!).toBeGreaterThan(depois1!.lag_bytes! + 500_000);
    // looked at again while inactive: still since the last time it was active
    await observar();
    expect((await saude())[0]!.inactive_since).toEqual(vistoAtivo);
    // back: active again, nothing inactive
    await engine.start();
    const [volta] = (await saude()).filter((s) => s.slot_name === engine.slots.at(-1));
    expect(volta).toMatchObject({ active: true, inactive_since: null });
  }, 60_000);

  it('a slot never seen active is inactive at least since the first look; without a recent look nobody can tell', async () => {
    const nunca = `powersync_${db.name}_sem_cliente`;
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [nunca]);
    try {
      expect((await saude()).find((s) => s.slot_name === nunca)).toMatchObject({ active: false, inactive_since: null, inactive_at_least: null });
      await observar();
      const { rows: [v] } = await db.pool.query(`select observado_desde from app.replicacao_slot_visto where slot = $1`, [nunca]);
      expect((await saude()).find((s) => s.slot_name === nunca)).toMatchObject({ active: false, inactive_since: v.observado_desde, inactive_at_least: true });
      // the pg_cron job stopped 10 minutes ago: its old look says nothing about now
      await db.pool.query(`update app.replicacao_slot_visto set visto_em = visto_em - interval '10 minutes',
        observado_desde = observado_desde - interval '1 hour' where slot = $1`, [nunca]);
      expect((await saude()).find((s) => s.slot_name === nunca)).toMatchObject({ inactive_since: null, inactive_at_least: null });
      // it comes back: the gap restarts the observation from this look
      await observar();
      const { rows: [w] } = await db.pool.query(`select observado_desde, visto_em, ativo_visto_em from app.replicacao_slot_visto where slot = $1`, [nunca]);
      expect(w.observado_desde).toEqual(w.visto_em);
      expect(w.ativo_visto_em).toBeNull();
    } finally {
      await db.pool.query('select pg_drop_replication_slot($1)', [nunca]);
    }
    // a dropped slot's row goes at the next look
    await observar();
    expect((await db.pool.query(`select count(*)::int n from app.replicacao_slot_visto where slot = $1`, [nunca])).rows[0].n).toBe(0);
  }, 60_000);

  it('lists only the prefixed slots of this database', async () => {
    const semPrefixo = `outro_${db.name}`;
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [semPrefixo]);
    // a prefixed slot of another database (the admin connection's)
    await adminQuery(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [outroBanco]);
    try {
      const nomes = (await saude()).map((s) => s.slot_name);
      expect(nomes).toEqual([...engine.slots].sort());
      expect(nomes.length).toBeGreaterThan(0);
      expect(nomes).not.toContain(semPrefixo);
      expect(nomes).not.toContain(outroBanco);
      expect(nomes.every((n) => n.startsWith('powersync_'))).toBe(true);
      // another prefix names the other slot; the observer looks at this database's slots only
      expect((await saude('outro_')).map((s) => s.slot_name)).toEqual([semPrefixo]);
      await observar();
      const vistos = (await db.pool.query<{ slot: string }>('select slot from app.replicacao_slot_visto')).rows.map((r) => r.slot);
      expect(vistos).toContain(semPrefixo);
      expect(vistos).not.toContain(outroBanco);
    } finally {
      await db.pool.query('select pg_drop_replication_slot($1)', [semPrefixo]);
      await adminQuery('select pg_drop_replication_slot($1)', [outroBanco]);
    }
  });

  it('the observer keeps what it knew across a gap of 5 minutes, and starts afresh after a longer one', async () => {
    const slot = `obs_${db.name}`.slice(0, 63);
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [slot]);
    const c = await db.pool.connect();
    try {
      await observar();
      // one transaction: now() is the same for the rewind and the look, so the gap is exact
      const olhar = async (lacuna: string) => {
        await c.query('begin');
        await c.query(`update app.replicacao_slot_visto set visto_em = now() - $2::interval,
                         observado_desde = now() - interval '1 hour', ativo_visto_em = now() - interval '30 minutes' where slot = $1`, [slot, lacuna]);
        await c.query('select app.replicacao_slots_observar()');
        const { rows: [r] } = await c.query<{ desde_hora: boolean; ativo: boolean }>(
          `select observado_desde = now() - interval '1 hour' desde_hora, ativo_visto_em is not null ativo from app.replicacao_slot_visto where slot = $1`, [slot]);
        await c.query('commit');
        return r;
      };
      // exactly 5 minutes: not a gap; what was known stays (the slot was active 30 minutes ago)
      expect(await olhar('5 minutes')).toEqual({ desde_hora: true, ativo: true });
      // 5 and a half minutes: observed anew from this look (inactive now, nothing known before)
      expect(await olhar('5 minutes 30 seconds')).toEqual({ desde_hora: false, ativo: false });
    } finally {
      c.release();
      await db.pool.query('select pg_drop_replication_slot($1)', [slot]);
    }
  });

  it('is described for a DBA (COMMENT ON) and callable from psql with its default prefix', async () => {
    const { rows } = await db.pool.query(`select obj_description('public.replicacao_saude(text)'::regprocedure, 'pg_proc') c`);
    expect(rows[0].c).toMatch(/lag_bytes/);
    expect(rows[0].c).toMatch(/select \* from replicacao_saude\(\)/);
  });
});
