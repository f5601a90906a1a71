/** The spreadsheet pipeline of one test file: app + job runner (+ object store, bot, tracker). */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { buildApp } from '../../src/app.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/handlers.js';
import { createObjectStore, type ObjectStore } from '../../src/integrations/objstore.js';
import { startEmbeddedObjectStore, type EmbeddedObjectStore } from '../../src/embedded/objstore.js';
import type { TestDatabase } from './db.js';
import { testEnv, API_TOKEN } from './service.js';

export const silentLog = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;

export async function startS3(): Promise<EmbeddedObjectStore> {
  const dir = mkdtempSync(join(tmpdir(), 'bi-s3-'));
  chmodSync(dir, 0o755);
  return startEmbeddedObjectStore({ directory: dir, bucket: 'bi-teste' });
}

export interface Pipeline {
  app: FastifyInstance;
  ctx: AppContext;
  runners: JobRunner[];
  /** waits until no spreadsheet or bot job is pending or running */
  drain(timeoutMs?: number): Promise<void>;
  upload(filename: string, bytes: Buffer, contentType?: string): Promise<import('light-my-request').Response>;
  close(): Promise<void>;
}

export async function startPipeline(db: TestDatabase, opts: {
  env?: Record<string, string | undefined>;
  s3?: EmbeddedObjectStore | null;
  objstore?: ObjectStore | null;
  replicas?: number;
  concurrency?: number;
  autostart?: boolean;
} = {}): Promise<Pipeline> {
  const s3env = opts.s3 ? {
    S3_FILE_STORAGE: 'PSQL_OBJSTORE', S3_ENDPOINT: opts.s3.endpoint, S3_BUCKET: opts.s3.bucket,
    S3_ACCESS_KEY_ID: opts.s3.accessKeyId, S3_SECRET_ACCESS_KEY: opts.s3.secretAccessKey,
  } : {};
  const { config } = loadConfig(testEnv(db, { ...s3env, ...opts.env }));
  const objstore = opts.objstore !== undefined ? opts.objstore
    : config.storage.objstore ? createObjectStore(config.storage.objstore) : null;
  const ctx: AppContext = { config, pool: db.pool, version: 'test', commit: null, objstore };
  const app = await buildApp(ctx);
  await app.ready();
  const runners = Array.from({ length: opts.replicas ?? 1 }, (_, i) =>
    new JobRunner(db.pool, jobHandlers(ctx), app.log, { concurrency: opts.concurrency ?? 2, pollIntervalMs: 50, workerId: `replica-${i}-${Math.random().toString(36).slice(2, 8)}` }));
  if (opts.autostart !== false) for (const r of runners) await r.start(null);
  return {
    app, ctx, runners,
    async drain(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { rows } = await db.pool.query(`select count(*)::int n from app.job where status in ('pending', 'running')
          and kind in ('xls_processar', 'bot_mensagem') and run_at <= now() + interval '1 second'`);
        const busy = await db.pool.query(`select count(*)::int n from xls_processamento where status in ('PENDENTE', 'PROCESSANDO')`);
        if (rows[0].n === 0 && busy.rows[0].n === 0) return;
        if (Date.now() > deadline) throw new Error(`fila não esvaziou: ${rows[0].n} jobs, ${busy.rows[0].n} processamentos em andamento`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    upload(filename, bytes, contentType = 'application/zip') {
      const boundary = '----bi' + Math.random().toString(16).slice(2);
      const payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="arquivo"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`),
        bytes,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return app.inject({ method: 'POST', url: '/api/xls/processar', payload,
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    },
    async close() {
      for (const r of runners) await r.stop(2000);
      await app.close();
      objstore?.destroy();
    },
  };
}
