/**
 * `npm run db:generate`: after adding a migration or changing a reader, regenerates the
 * committed artefacts: db/views/app.xls_staging_coluna.sql from the readers (first: the
 * database below applies it), then from a freshly migrated throwaway database db/schema.sql
 * (dbmate dump) and the zapatos types in src/db/zapatos/. CI fails when any is stale.
 */
import { join } from 'node:path';
import { generateArtifacts } from '../test/harness/artifacts.js';
import { projectRoot } from '../src/paths.js';
import { startTestCluster, prepareDatabases, TEMPLATE_DB } from '../test/harness/cluster.js';
import { writeStagingView } from './staging-view.js';

// zapatos leaves an idle pooled connection open; the throwaway server's shutdown then
// terminates it (57P01), which must not crash the script after the files are written.
process.on('uncaughtException', (err: Error & { code?: string }) => {
  if (err.code === '57P01') return;
  throw err;
});

async function mainGen() {
writeStagingView();
const cluster = await startTestCluster();
try {
  await prepareDatabases(cluster);
  await generateArtifacts(cluster.urlFor(TEMPLATE_DB), join(projectRoot, 'db', 'schema.sql'), join(projectRoot, 'src', 'db'));
  process.stderr.write('db/schema.sql e src/db/zapatos/ regenerados\n');
} finally {
  await cluster.stop();
}
process.exit(0);
}
void mainGen();
