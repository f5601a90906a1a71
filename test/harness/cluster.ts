/**
 * The throwaway database server of a test run (or of a generation script): an embedded
 * Postgres 15 with pg_cron in a temporary directory, unless TEST_DATABASE_URL names a
 * server (a superuser connection to a server with pg_cron preloaded and wal_level=logical).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { projectRoot } from '../../src/paths.js';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.js';
import { migrate } from '../../src/db/migrate.js';

export const TEMPLATE_DB = 'bi_template';
export const CRON_DB = 'bi_cron';

export interface TestCluster {
  adminUrl: string;
  /** the server's log, when the cluster is embedded */
  logFile?: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** True when a Docker engine answers (not just the client); TEST_DOCKER=0 forces the embedded cluster. */
export function dockerEngineAnswers(): boolean {
  if (process.env.TEST_DOCKER === '0') return false;
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/** Postgres 15 + pg_cron in a container built from docker/postgres.Dockerfile. */
async function startContainerCluster(): Promise<TestCluster> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const image = await GenericContainer.fromDockerfile(projectRoot, 'docker/postgres.Dockerfile').build('bi-comercial-test-postgres', { deleteOnExit: false });
  const container = await image
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withCommand(['postgres', '-c', 'shared_preload_libraries=pg_cron', '-c', `cron.database_name=${CRON_DB}`,
      '-c', 'wal_level=logical', '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'timezone=America/Sao_Paulo'])
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const adminUrl = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  return { adminUrl, urlFor: (d) => withDatabase(adminUrl, d), stop: async () => { await container.stop(); } };
}

/**
 * `settings` (a bench's profile: more preloaded libraries, …) need a server of our own: with
 * them the cluster is always embedded, never TEST_DATABASE_URL's nor a container.
 */
export async function startTestCluster(opts: { settings?: Record<string, string> } = {}): Promise<TestCluster> {
  const external = process.env.TEST_DATABASE_URL;
  if (!opts.settings) {
    if (external) {
      return { adminUrl: external, urlFor: (d) => withDatabase(external, d), stop: async () => undefined };
    }
    if (dockerEngineAnswers()) return startContainerCluster();
  }
  const dir = mkdtempSync(join(tmpdir(), 'bi-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: dir, cronDatabase: CRON_DB, durable: false, settings: opts.settings });
  return {
    adminUrl: server.url('postgres'),
    logFile: server.logFile,
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

async function databaseExists(adminUrl: string, database: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return (await c.query('select 1 from pg_database where datname = $1', [database])).rowCount === 1;
  } finally {
    await c.end();
  }
}

/**
 * Builds the migrated template (cloned per test file) and the pg_cron database. With
 * TEST_TEMPLATE_KEEP=1 (set by the mutation runner, scripts/mutacao/sql-runner.ts, on the
 * server it keeps for all its runs) databases that exist are migrated in place instead: only
 * the db/functions and db/views files whose text changed since are applied again (by hash), so
 * a run sees the function file as it is on disk now, without rebuilding the template.
 */
export async function prepareDatabases(cluster: TestCluster): Promise<void> {
  if (process.env.TEST_TEMPLATE_KEEP === '1'
    && await databaseExists(cluster.adminUrl, TEMPLATE_DB) && await databaseExists(cluster.adminUrl, CRON_DB)) {
    await migrate(cluster.urlFor(TEMPLATE_DB));
    await migrate(cluster.urlFor(CRON_DB));
    return;
  }
  await recreateDatabase(cluster.adminUrl, TEMPLATE_DB);
  await migrate(cluster.urlFor(TEMPLATE_DB));
  await recreateDatabase(cluster.adminUrl, CRON_DB);
  await migrate(cluster.urlFor(CRON_DB));
}
