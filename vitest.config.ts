import { defineConfig } from 'vitest/config';
import { lanes } from './test/harness/lanes.js';
import { MotorAusente } from './test/harness/motor-ausente.js';

// Lanes (test/harness/lanes.ts): `unit` starts nothing; `db`, `service` and `engine` share one
// throwaway cluster (test/harness/global-setup.ts), started only when one of their files
// is selected. `npm test` runs every lane; `npm test -- test/xlsx` starts no database.
// `engine` runs the real sync engine (test/harness/motor.ts): only when SYNC_ENGINE_CMD names
// its command; without it the lane's project is left out (nothing skipped) and the run says
// in one line how many end-to-end tests did not run.
const root = import.meta.dirname;
const byLane = lanes(root);
const globalSetup = ['test/harness/global-setup.ts'];
const motor = Boolean(process.env.SYNC_ENGINE_CMD?.trim());

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: motor ? ['default'] : ['default', new MotorAusente(root, byLane.engine)],
    projects: [
      { extends: true, test: { name: 'unit', include: byLane.unit } },
      { extends: true, test: { name: 'db', include: byLane.db, globalSetup } },
      { extends: true, test: { name: 'service', include: byLane.service, globalSetup } },
      ...(motor ? [{
        extends: true as const,
        test: {
          name: 'engine', include: byLane.engine, globalSetup,
          // an engine per file (a process of ~200 MB and a replication slot): one file at a time
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 180_000, hookTimeout: 180_000,
        },
      }] : []),
    ],
  },
});
