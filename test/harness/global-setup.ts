/**
 * Vitest global setup: one database server per run, one migrated template database built
 * once, cloned by every test file (test/harness/db.ts). The pg_cron database is migrated
 * too, so the schedules can be tested where pg_cron lives.
 */
import type { TestProject } from 'vitest/node';
import { startTestCluster, prepareDatabases, CRON_DB, TEMPLATE_DB, type TestCluster } from './cluster.js';

let cluster: TestCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  cluster = await startTestCluster();
  await prepareDatabases(cluster);
  project.provide('pgAdminUrl', cluster.adminUrl);
  project.provide('templateDb', TEMPLATE_DB);
  project.provide('cronDb', CRON_DB);
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
    cronDb: string;
  }
}
