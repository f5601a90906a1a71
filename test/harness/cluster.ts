/**
 * The throwaway database server of a test run (or of a generation script): an embedded
 * Postgres 15 with pg_cron in a temporary directory, unless TEST_DATABASE_URL names a
 * server (a superuser connection to a server with pg_cron preloaded and wal_level=logical).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { migrate } from '../../src/db/migrate.js';

export const TEMPLATE_DB = 'bi_template';
export const CRON_DB = 'bi_cron';

export interface TestCluster {
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function startTestCluster(): Promise<TestCluster> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    return { adminUrl: external, urlFor: (d) => withDatabase(external, d), stop: async () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'bi-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: dir, cronDatabase: CRON_DB, durable: false });
  return {
    adminUrl: server.url('postgres'),
    urlFor: (d) => server.url(d),
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function recreateDatabase(adminUrl: string, database: string, template?: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`drop database if exists ${pg.escapeIdentifier(database)} with (force)`);
    await c.query(`create database ${pg.escapeIdentifier(database)}${template ? ` template ${pg.escapeIdentifier(template)}` : ''}`);
  } finally {
    await c.end();
  }
}

/** Builds the migrated template (cloned per test file) and the pg_cron database. */
export async function prepareDatabases(cluster: TestCluster): Promise<void> {
  await recreateDatabase(cluster.adminUrl, TEMPLATE_DB);
  await migrate(cluster.urlFor(TEMPLATE_DB));
  await recreateDatabase(cluster.adminUrl, CRON_DB);
  await migrate(cluster.urlFor(CRON_DB));
}
