import { defineConfig } from 'vitest/config';
import { lanes } from './test/harness/lanes.js';

// Lanes (test/harness/lanes.ts): `unit` starts nothing; `db` and `service` share one
// throwaway cluster (test/harness/global-setup.ts), started only when one of their files
// is selected. `npm test` runs every lane; `npm test -- test/xlsx` starts no database.
const byLane = lanes(import.meta.dirname);
const globalSetup = ['test/harness/global-setup.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: byLane.unit } },
      { extends: true, test: { name: 'db', include: byLane.db, globalSetup } },
      { extends: true, test: { name: 'service', include: byLane.service, globalSetup } },
    ],
  },
});
