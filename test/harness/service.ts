/** Builds service environments and apps for tests. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import type { TestDatabase } from './db.js';

export const API_TOKEN = 'test-api-token-0123456789';

export function testEnv(db: Pick<TestDatabase, 'url'>, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    BI_COMERCIAL_XLS_API_TOKEN: API_TOKEN,
    S3_FILE_STORAGE: 'PSQL',
    APP_LOGS_DIR: mkdtempSync(join(tmpdir(), 'bi-test-logs-')),
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    GIT_COMMIT: 'testcommit',
    // test databases are clones: pg_cron serves the cluster's bi_cron database only
    PG_CRON_OBRIGATORIO: 'false',
    // small chunks, so that the pipeline tests' files are merged in several chunks
    XLS_MERGE_CHUNK_LINHAS: '64',
    ...extra,
  };
}

/** An app on a test database, without listening: use app.inject. */
export async function testApp(db: TestDatabase, extra: Record<string, string | undefined> = {},
  ctxOverrides: Partial<AppContext> = {}): Promise<FastifyInstance> {
  const { config } = loadConfig(testEnv(db, extra));
  const ctx: AppContext = { config, pool: db.pool, version: '0.0.0-test', commit: config.commit, objstore: null, ...ctxOverrides };
  const app = await buildApp(ctx);
  await app.ready();
  return app;
}

export const bearer = (token = API_TOKEN) => ({ authorization: `Bearer ${token}` });
