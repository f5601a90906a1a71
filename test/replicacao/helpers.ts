/** A service (app + job runner) for the reset tests, and small helpers around the reset API. */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Writable } from 'node:stream';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { buildApp } from '../../src/app.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/handlers.js';
import type { TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';

export const SEGREDO = 'confirma-nuke-0123456789';
export const RESET_URL = '/api/transporte/admin/resetar-replicator';
export const LISTA_URL = '/api/comercial/admin/nuke-replication';

export interface Servico {
  app: FastifyInstance;
  ctx: AppContext;
  runner: JobRunner | null;
  close(): Promise<void>;
}

export async function startServico(db: Pick<TestDatabase, 'url'>, pool: pg.Pool, env: Record<string, string | undefined>,
  opts: { runner?: boolean; logStream?: Writable } = {}): Promise<Servico> {
  const { config } = loadConfig(testEnv(db, { REPLICATOR_CONFIRM_SECRET: SEGREDO, REPLICATOR_POLL_MS: '100', ...env }));
  const ctx: AppContext = { config, pool, version: 'test', commit: null, objstore: null };
  const app = await buildApp(ctx, opts.logStream ? { logStream: opts.logStream } : undefined);
  await app.ready();
  let runner: JobRunner | null = null;
  if (opts.runner !== false) {
    runner = new JobRunner(pool, jobHandlers(ctx), app.log, { concurrency: 2, pollIntervalMs: 50, workerId: `replica-${Math.random().toString(36).slice(2, 8)}` });
    await runner.start(null);
  }
  return {
    app, ctx, runner,
    async close() {
      await runner?.stop(5_000);
      await app.close();
    },
  };
}

/** body null: an empty body (the body is optional) */
export function iniciar(app: FastifyInstance, body: unknown = { motivo: 'teste' }, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST', url: RESET_URL,
    headers: { ...bearer(), 'x-confirm-nuke': SEGREDO, 'content-type': 'application/json', ...headers },
    payload: body === null ? '' : JSON.stringify(body),
  });
}

export interface Detalhe {
  id: string; status: string; stepAtual: string | null; stepFalho: string | null; erroMensagem: string | null;
  motivo: string | null; estrategia: string | null; reinicioManual: boolean; slotsRemovidos: string[]; slotNovo: string | null;
  ultimoNuke: string | null; iniciadoEm: string; finalizadoEm: string | null;
  passos: Array<{ step: string; ordem: number; status: string; mensagem: string | null; iniciadoEm: string; finalizadoEm: string | null }>;
  instrucoes: string | null;
}

export async function detalhe(app: FastifyInstance, id: string): Promise<Detalhe> {
  const res = await app.inject({ method: 'GET', url: `${RESET_URL}/${id}`, headers: bearer() });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Detalhe;
}

export async function aguardar(app: FastifyInstance, id: string, pred: (d: Detalhe) => boolean, timeoutMs = 60_000): Promise<Detalhe> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detalhe(app, id);
    if (pred(d)) return d;
    if (Date.now() > deadline) throw new Error(`reset ${id} não chegou ao estado esperado: ${JSON.stringify(d, null, 1)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const terminou = (d: Detalhe) => d.status !== 'EM_ANDAMENTO';

export async function ultimoNuke(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ valor: string }>(`select valor from bi_configuracao where chave = 'ultimo_nuke'`);
  return rows[0]!.valor;
}

/** Ends whatever reset is still EM_ANDAMENTO and its job (between tests). */
export async function limpar(pool: pg.Pool): Promise<void> {
  await pool.query(`update app.job set status = 'done' where kind = 'replicacao_resetar' and status in ('pending', 'running')`);
  await pool.query(`select replicacao_falhar(id, 'limpeza do teste') from xls_resetar_replicator where status = 'EM_ANDAMENTO'`);
}
