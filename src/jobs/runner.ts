/**
 * Claim-once job runner. Every replica runs one: it claims due jobs of the kinds it has
 * handlers for (app.claim_jobs: FOR UPDATE SKIP LOCKED), woken by NOTIFY app_jobs, by a
 * slow poll, and by a re-query after any LISTEN reconnect. Heartbeats keep its claims;
 * a replica that dies silently loses them to app.sweep_jobs (every 10 s by each live replica, every minute by pg_cron, after
 * app.worker_timeout(): 20 s); at boot, previous processes of this host lose them at once
 * (forgetPreviousWorkers).
 * Shutdown stops claiming, lets running jobs finish within a grace period, then aborts
 * them and returns what is left to the queue (app.release_jobs).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Listener } from './listener.js';
import { withDbRetry } from '../db/unavailable.js';
import { alreadyReported, runOperation } from '../operation-context.js';

export interface Job {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  /** fencing token of this claim (app.job.epoch), passed back to complete_job / fail_job */
  epoch?: number;
}

export interface JobContext {
  signal: AbortSignal;
  workerId: string;
  log: FastifyBaseLogger;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface RunnerOptions {
  concurrency: number;
  pollIntervalMs: number;
  heartbeatMs?: number;
  workerId?: string;
}

export class JobRunner {
  readonly workerId: string;
  private running = new Map<number, { promise: Promise<void>; abort: AbortController }>();
  private stopping = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly handlers: Record<string, JobHandler>,
    private readonly log: FastifyBaseLogger,
    private readonly opts: RunnerOptions,
  ) {
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  get kinds(): string[] {
    return Object.keys(this.handlers);
  }

  get active(): number {
    return this.running.size;
  }

  async start(listener: Listener | null): Promise<void> {
    await this.heartbeat();
    if (listener) {
      await listener.on('app_jobs', (kind) => { if (this.handlers[kind]) this.wake(); });
      listener.onReconnect(() => this.wake());
    }
    this.timers.push(setInterval(() => this.wake(), this.opts.pollIntervalMs));
    this.timers.push(setInterval(() => { void this.heartbeat(); }, this.opts.heartbeatMs ?? 5_000));
    for (const t of this.timers) t.unref();
    this.wake();
  }

  private async heartbeat(): Promise<void> {
    try {
      await this.pool.query('select app.worker_heartbeat($1, $2, $3)', [this.workerId, hostname(), process.pid]);
    } catch (err) {
      this.log.warn({ err }, 'falha no heartbeat do worker');
    }
  }

  /** Asks for a claim round; coalesces concurrent wake-ups. */
  wake(): void {
    if (this.stopping) return;
    if (this.ticking) { this.again = true; return; }
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      if (this.again) { this.again = false; this.wake(); }
    });
  }

  /** Resolves when the current claim round (if any) is over; for tests. */
  async settled(): Promise<void> {
    while (this.ticking) await this.ticking;
    await Promise.all([...this.running.values()].map((r) => r.promise));
  }

  private async tick(): Promise<void> {
    while (!this.stopping) {
      const free = this.opts.concurrency - this.running.size;
      if (free <= 0 || this.kinds.length === 0) return;
      let jobs: Job[];
      try {
        const res = await this.pool.query<Job>(
          'select id, kind, payload, attempts, max_attempts, epoch from app.claim_jobs($1, $2, $3)',
          [this.workerId, this.kinds, free]);
        jobs = res.rows;
      } catch (err) {
        this.log.warn({ err }, 'falha ao reivindicar jobs');
        return;
      }
      if (jobs.length === 0) return;
      for (const job of jobs) this.execute(job);
    }
  }

  private execute(job: Job): void {
    const abort = new AbortController();
    const log = this.log.child({ jobId: job.id, kind: job.kind });
    // the job is one operation: a promise rejection nobody handled in its handler fails the
    // job (and aborts its handler) instead of the process (operation-context.ts)
    let failStray: (err: Error) => void = () => undefined;
    const stray = new Promise<never>((_, reject) => { failStray = reject; });
    stray.catch(() => undefined);
    const operation = {
      kind: 'job' as const,
      label: `job ${job.id} (${job.kind})`,
      fail(err: Error) { failStray(err); abort.abort(err); },
    };
    const promise = (async () => {
      try {
        await Promise.race([
          runOperation(operation, () => this.handlers[job.kind]!(job, { signal: abort.signal, workerId: this.workerId, log })),
          stray,
        ]);
        // the outcome is written even across a database restart: a job left 'running' by a
        // live worker would never be rescued
        await withDbRetry(() => this.pool.query('select app.complete_job($1, $2, $3)', [this.workerId, job.id, job.epoch ?? null]),
          { onRetry: () => log.warn('banco indisponível: nova tentativa de concluir o job') });
      } catch (err) {
        if (abort.signal.aborted && this.stopping) return; // released below, not a failure
        const status = await withDbRetry(() => this.pool.query<{ s: string | null }>('select app.fail_job($1, $2, $3, $4) as s',
          [this.workerId, job.id, err instanceof Error ? err.message : String(err), job.epoch ?? null]),
        { onRetry: () => log.warn('banco indisponível: nova tentativa de registrar a falha do job') }).then((r) => r.rows[0]?.s ?? null).catch(() => 'sem registro' as const);
        if (status === 'failed' && !alreadyReported(err)) log.error({ err, attempts: job.attempts }, 'job falhou definitivamente');
        else if (status === 'failed') log.warn({ err, attempts: job.attempts }, 'job falhou definitivamente (rejeição não tratada, já registrada)');
        else if (status === 'pending') log.warn({ err, attempts: job.attempts }, 'job falhou; nova tentativa agendada');
        else if (status === 'sem registro') log.error({ err }, 'job falhou e a falha não pôde ser registrada (banco indisponível)');
        else log.warn({ err, epoch: job.epoch }, 'job falhou, mas já não é deste worker (foi retomado depois que ele parou de responder): desfecho descartado');
      }
    })().finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, { promise, abort });
  }

  /** Graceful stop: no new claims; wait up to graceMs; abort the rest and release them. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    if (this.ticking) await this.ticking.catch(() => undefined);
    const all = Promise.all([...this.running.values()].map((r) => r.promise));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
    ]);
    if (timedOut) {
      for (const r of this.running.values()) r.abort.abort(new Error('encerrando'));
      await Promise.race([all, new Promise((r) => setTimeout(r, 2_000).unref())]);
    }
    try {
      const { rows } = await this.pool.query<{ n: number }>('select app.release_jobs($1) as n', [this.workerId]);
      if (rows[0]?.n) this.log.info({ released: rows[0].n }, 'jobs devolvidos à fila');
    } catch (err) {
      this.log.warn({ err }, 'falha ao devolver jobs à fila');
    }
  }
}
