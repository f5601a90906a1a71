/**
 * Vitest global setup of the `db`, `service` and `engine` lanes: one database server per run, one
 * migrated template database built once, cloned by every test file (test/harness/db.ts).
 * The pg_cron database is migrated too, so the schedules can be tested where pg_cron
 * lives. Every such lane runs this setup (vitest runs it per project, and only for a project
 * with files to run); they share one cluster through the main process's globalThis,
 * stopped when the last of them tears down.
 */
import type { TestProject } from 'vitest/node';
import { startTestCluster, prepareDatabases, CRON_DB, TEMPLATE_DB, type TestCluster } from './cluster.js';

interface Shared { cluster: Promise<TestCluster>; users: number }
const KEY = Symbol.for('bi-comercial.test-cluster');
const g = globalThis as unknown as Record<symbol, Shared | undefined>;

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  g[KEY] ??= {
    users: 0,
    cluster: (async () => {
      const c = await startTestCluster();
      await prepareDatabases(c);
      return c;
    })(),
  };
  const shared = g[KEY];
  shared.users += 1;
  const cluster = await shared.cluster;
  project.provide('pgAdminUrl', cluster.adminUrl);
  project.provide('templateDb', TEMPLATE_DB);
  project.provide('cronDb', CRON_DB);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) {
      g[KEY] = undefined;
      await cluster.stop();
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
    cronDb: string;
  }
}
