/**
 * `npm run celular:esquema`: regenerates src/celular/esquema.ts, the phones' client schema
 * (the file the mobile team copies), from sync-engine/sync-rules.yaml and a freshly migrated
 * throwaway database, with the engine's own generator (test/celular/esquema.ts). Run it after
 * a migration that touches a bi_* table or a change of the sync configuration; CI fails when
 * the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../src/paths.js';
import { startTestCluster, prepareDatabases, TEMPLATE_DB } from '../test/harness/cluster.js';
import { ESQUEMA_PATH, gerarEsquema } from '../test/celular/esquema.js';

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  try {
    await prepareDatabases(cluster);
    const client = new pg.Client({ connectionString: cluster.urlFor(TEMPLATE_DB) });
    await client.connect();
    try {
      writeFileSync(ESQUEMA_PATH, await gerarEsquema(client));
    } finally {
      await client.end();
    }
    process.stderr.write(`${relative(projectRoot, ESQUEMA_PATH)} regenerado\n`);
  } finally {
    await cluster.stop();
  }
  process.exit(0);
}
main().catch((err: unknown) => {
  process.stderr.write(`celular:esquema falhou: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
