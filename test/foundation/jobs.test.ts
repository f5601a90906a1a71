import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { createPool } from '../../src/db/pool.js';
import { JobRunner, type Job } from '../../src/jobs/runner.js';
import { createListener } from '../../src/jobs/listener.js';
import { enqueueJob } from '../../src/jobs/enqueue.js';
import { handleStrayRejection } from '../../src/operation-context.js';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query('create table exec_log (job_id bigint, worker text)');
});
afterAll(async () => { await db?.drop(); });

async function until(pred: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error('condição não atingida a tempo');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('job queue', () => {
  it('two workers on separate connections run each job exactly once', async () => {
    const N = 300;
    await db.pool.query(`select app.enqueue('corrida', jsonb_build_object('n', g)) from generate_series(1, $1) g`, [N]);
    const pools = [createPool(db.url, 5), createPool(db.url, 5)];
    const handler = (pool: typeof pools[0]) => async (job: Job, ctx: { workerId: string }) => {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      await pool.query('insert into exec_log values ($1, $2)', [job.id, ctx.workerId]);
    };
    const runners = pools.map((p, i) => new JobRunner(p, { corrida: handler(p) }, log, { concurrency: 4, pollIntervalMs: 200, workerId: `w${i}` }));
    await Promise.all(runners.map((r) => r.start(null)));
    await until(async () => (await db.pool.query(`select count(*)::int n from app.job where kind = 'corrida' and status = 'done'`)).rows[0].n === N);
    await Promise.all(runners.map((r) => r.stop(1000)));
    await Promise.all(pools.map((p) => p.end()));
    const { rows } = await db.pool.query(`select count(*)::int total, count(distinct job_id)::int distintos,
      count(*) filter (where worker = 'w0')::int w0, count(*) filter (where worker = 'w1')::int w1 from exec_log`);
    expect(rows[0].total).toBe(N);
    expect(rows[0].distintos).toBe(N);
    expect(rows[0].w0).toBeGreaterThan(0);
    expect(rows[0].w1).toBeGreaterThan(0);
  });

  it('a failure the database could not record (an outage) is recorded once it answers: the job does not stay running for ever', async () => {
    const id = await enqueueJob(db.pool, 'queda', {}, { uniqueKey: 'q1' });
    // the database refuses the worker's first two attempts to record the failure
    let recusas = 2;
    const flaky = {
      query: (...args: Parameters<typeof db.pool.query>) => {
        if (String(args[0]).includes('app.fail_job') && recusas-- > 0) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
        return (db.pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    } as unknown as typeof db.pool;
    const runner = new JobRunner(flaky, { queda: async () => { throw new Error('conexão perdida no meio do job'); } }, log,
      { concurrency: 1, pollIntervalMs: 100, workerId: 'w-queda' });
    await runner.start(null);
    try {
      await until(async () => (await db.pool.query(`select status from app.job where id = $1`, [id])).rows[0].status === 'pending');
      expect(recusas).toBe(-1); // refused twice, then recorded
      const { rows: [j] } = await db.pool.query(`select locked_by, last_error from app.job where id = $1`, [id]);
      expect(j).toEqual({ locked_by: null, last_error: 'conexão perdida no meio do job' });
      // so the coalescing key is free for the next enqueue once the job is done or failed
    } finally {
      await runner.stop(100);
      await db.pool.query(`delete from app.job where id = $1`, [id]);
    }
  });

  it('a unique key admits one pending job at a time', async () => {
    const a = await enqueueJob(db.pool, 'unico', {}, { uniqueKey: 'k1' });
    const b = await enqueueJob(db.pool, 'unico', {}, { uniqueKey: 'k1' });
    expect(a).not.toBeNull();
    expect(b).toBeNull();
  });

  it('a failing job is retried with backoff, then marked failed', async () => {
    const id = await enqueueJob(db.pool, 'falha', {}, { maxAttempts: 2 });
    const claim = async () => (await db.pool.query(`select * from app.claim_jobs('wf', array['falha'], 1)`)).rows;
    expect((await claim()).map((j) => j.id)).toEqual([id]);
    expect((await db.pool.query(`select app.fail_job('wf', $1, 'boom') s`, [id])).rows[0].s).toBe('pending');
    expect(await claim()).toEqual([]); // not due yet (backoff)
    await db.pool.query(`update app.job set run_at = now() where id = $1`, [id]);
    expect((await claim()).length).toBe(1);
    expect((await db.pool.query(`select app.fail_job('wf', $1, 'boom de novo') s`, [id])).rows[0].s).toBe('failed');
    const { rows } = await db.pool.query('select status, attempts, last_error from app.job where id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'failed', attempts: 2, last_error: 'boom de novo' });
  });

  it('the sweep returns jobs of a dead worker to the queue and keeps those of a live one', async () => {
    await db.pool.query(`select app.worker_heartbeat('vivo', 'h', 1), app.worker_heartbeat('morto', 'h', 2)`);
    await db.pool.query(`update app.worker set heartbeat_at = now() - interval '10 minutes' where id = 'morto'`);
    const vivo = await enqueueJob(db.pool, 'varredura');
    const morto = await enqueueJob(db.pool, 'varredura');
    await db.pool.query(`update app.job set status = 'running', locked_by = case id when $1 then 'vivo' else 'morto' end where id in ($1, $2)`, [vivo, morto]);
    expect((await db.pool.query('select app.sweep_jobs() n')).rows[0].n).toBe(1);
    const { rows } = await db.pool.query('select id, status, locked_by from app.job where id in ($1, $2) order by id', [vivo, morto]);
    expect(rows).toEqual([{ id: vivo, status: 'running', locked_by: 'vivo' }, { id: morto, status: 'pending', locked_by: null }]);
  });

  it('graceful shutdown lets a quick job finish and returns a stuck one to the queue', async () => {
    const quick = await enqueueJob(db.pool, 'rapido');
    const stuck = await enqueueJob(db.pool, 'preso');
    const runner = new JobRunner(db.pool, {
      rapido: async () => { await new Promise((r) => setTimeout(r, 50)); },
      preso: (_job, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('abortado')))),
    }, log, { concurrency: 2, pollIntervalMs: 60_000, workerId: 'encerrando' });
    await runner.start(null);
    await until(async () => runner.active === 2);
    await runner.stop(300);
    const { rows } = await db.pool.query('select id, status, attempts, locked_by from app.job where id in ($1, $2) order by id', [quick, stuck]);
    expect(rows).toEqual([
      { id: quick, status: 'done', attempts: 1, locked_by: null },
      { id: stuck, status: 'pending', attempts: 0, locked_by: null },
    ]);
  });

  it('a promise rejection nobody handled inside a job fails that job (aborting its handler), not the process', async () => {
    // the process-level listener (installRejectionNet) calls handleStrayRejection in the async
    // context of the rejected promise; vitest keeps its own listener, so the test calls it
    // from inside the handler's context, where Node would
    const logged: Array<{ obj: object; msg: string }> = [];
    const id = await enqueueJob(db.pool, 'rejeicao_solta', {}, { maxAttempts: 1 });
    let abortado = false;
    const runner = new JobRunner(db.pool, {
      rejeicao_solta: (_job, ctx) => new Promise<void>(() => {
        ctx.signal.addEventListener('abort', () => { abortado = true; });
        setTimeout(() => handleStrayRejection(new Error('solta'), { error: (obj, msg) => logged.push({ obj, msg }) }), 20);
      }),
    }, log, { concurrency: 1, pollIntervalMs: 60_000, workerId: 'rejeicao' });
    await runner.start(null);
    await until(async () => (await db.pool.query('select status from app.job where id = $1', [id])).rows[0].status === 'failed');
    await runner.stop(300);
    expect(abortado).toBe(true);
    expect((await db.pool.query('select last_error from app.job where id = $1', [id])).rows[0].last_error).toBe('solta');
    expect(logged).toHaveLength(1);
    expect(logged[0]!.msg).toBe(`rejeição de promise não tratada em job ${id} (rejeicao_solta): a operação falhou; o processo continua`);
    // outside any operation it is logged and nothing else
    handleStrayRejection('texto', { error: (obj, msg) => logged.push({ obj, msg }) });
    expect(logged[1]!.msg).toBe('rejeição de promise não tratada fora de uma requisição ou job; o processo continua');
  });
});

describe('the queue\'s SQL: who is woken, which claim is closed', () => {
  it('app.enqueue wakes the workers (NOTIFY app_jobs) for a job due now only: not for a later one, nor for a unique key already queued', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const avisos: string[] = [];
    c.on('notification', (n) => { if (n.channel === 'app_jobs') avisos.push(String(n.payload)); });
    await c.query('listen app_jobs');
    try {
      const ja = (await db.pool.query(`select app.enqueue('acordar_ja', '{}', now(), 'k-acordar') id`)).rows[0].id;
      expect(ja).not.toBeNull();
      await until(async () => avisos.includes('acordar_ja'));
      // a job for later, then the same unique key again: no wake-up
      expect((await db.pool.query(`select app.enqueue('acordar_depois', '{}', now() + interval '1 hour') id`)).rows[0].id).not.toBeNull();
      expect((await db.pool.query(`select app.enqueue('acordar_ja', '{}', now(), 'k-acordar') id`)).rows[0].id).toBeNull();
      await db.pool.query(`select app.enqueue('marcador', '{}')`);
      await until(async () => avisos.includes('marcador'));
      expect(avisos).toEqual(['acordar_ja', 'marcador']);
      // a run_at in the past is due now: it wakes them
      await db.pool.query(`select app.enqueue('atrasado', '{}', now() - interval '1 minute')`);
      await until(async () => avisos.includes('atrasado'));
    } finally {
      await c.end();
      await db.pool.query(`update app.job set status = 'done' where kind in ('acordar_ja', 'acordar_depois', 'marcador', 'atrasado')`);
    }
  });

  it('app.complete_job closes the claim it names only: not another job of the worker, not a job waiting, not another worker\'s', async () => {
    const ids = (await db.pool.query<{ id: string }>(`select app.enqueue('fechar_' || g, '{}') id from generate_series(1, 3) g`)).rows.map((r) => Number(r.id));
    const [a, b, c] = ids as [number, number, number];
    await db.pool.query(`update app.job set status = 'running', locked_by = 'w-fechar', locked_at = now() where id = any($1)`, [[a, b]]);
    await db.pool.query(`update app.job set status = 'running', locked_by = 'w-outro', locked_at = now() where id = $1`, [c]);
    const status = async () => Object.fromEntries((await db.pool.query<{ id: string; status: string }>(
      'select id, status from app.job where id = any($1)', [ids])).rows.map((r) => [Number(r.id), r.status]));
    expect((await db.pool.query('select app.complete_job($1, $2) ok', ['w-fechar', a])).rows[0].ok).toBe(true);
    expect(await status()).toEqual({ [a]: 'done', [b]: 'running', [c]: 'running' });
    // another worker's claim, and a job no longer running, are not closed
    expect((await db.pool.query('select app.complete_job($1, $2) ok', ['w-fechar', c])).rows[0].ok).toBe(false);
    await db.pool.query(`update app.job set status = 'pending', locked_by = 'w-fechar' where id = $1`, [b]);
    expect((await db.pool.query('select app.complete_job($1, $2) ok', ['w-fechar', b])).rows[0].ok).toBe(false);
    expect(await status()).toEqual({ [a]: 'done', [b]: 'pending', [c]: 'running' });
    await db.pool.query(`update app.job set status = 'done' where id = any($1)`, [ids]);
  });
});

describe('LISTEN connection', () => {
  it('reconnects after the backend is killed, re-queries, and receives notifications again', async () => {
    const listener = await createListener(db.url, log, { paranoidCheckingMs: 200 });
    const received: string[] = [];
    let requeried = 0;
    await listener.on('app_jobs', (kind) => received.push(kind));
    listener.onReconnect(() => { requeried += 1; });

    await db.pool.query(`select pg_notify('app_jobs', 'antes')`);
    await until(async () => received.includes('antes'));

    const killed = await db.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and application_name = 'bi-comercial-listen'`);
    expect(killed.rowCount).toBe(1);
    await until(async () => requeried === 1 && listener.connected);
    expect(listener.reconnects).toBe(1);

    await db.pool.query(`select pg_notify('app_jobs', 'depois')`);
    await until(async () => received.includes('depois'));
    await listener.close();
  });

  it('a job enqueued while the listener was down runs after the reconnect, without waiting for the poll', async () => {
    const listener = await createListener(db.url, log, { paranoidCheckingMs: 200 });
    const done: number[] = [];
    const runner = new JobRunner(db.pool, { perdido: async (job) => { done.push(job.id); } }, log,
      { concurrency: 1, pollIntervalMs: 3_600_000, workerId: 'reconecta' });
    await runner.start(listener);
    await db.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and application_name = 'bi-comercial-listen'`);
    // inserted without NOTIFY: only a re-query can find it
    const { rows } = await db.pool.query(`insert into app.job (kind) values ('perdido') returning id`);
    await until(async () => done.includes(rows[0].id));
    await runner.stop(1000);
    await listener.close();
  });
});
