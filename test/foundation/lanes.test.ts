// @lane unit
/**
 * Test lanes (test/harness/lanes.ts): every test file is in one of unit, db or service,
 * found from its imports; a run of unit files alone starts no database.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { projectRoot } from '../../src/paths.js';
import { laneOf, lanes, testFiles } from '../harness/lanes.js';

describe('test lanes', () => {
  it('puts every test file in exactly one lane, by what it uses', () => {
    const all = lanes(projectRoot);
    expect([...all.unit, ...all.db, ...all.service].sort()).toEqual(testFiles(projectRoot).sort());
    expect(laneOf(projectRoot, 'test/xlsx/cells.test.ts')).toBe('unit');
    expect(laneOf(projectRoot, 'test/xls-sql/merge.test.ts')).toBe('db');
    expect(laneOf(projectRoot, 'test/foundation/quickstart.test.ts')).toBe('service');
    expect(laneOf(projectRoot, 'test/deploy/dockerfile.test.ts')).toBe('service');
    expect(laneOf(projectRoot, 'test/foundation/lanes.test.ts')).toBe('unit');
    expect(laneOf(projectRoot, 'test/foundation/runtime.test.ts')).toBe('unit');
  });

  it('a unit file alone starts no database (an unreachable TEST_DATABASE_URL is never used)', async () => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/xlsx/cells.test.ts'], {
      cwd: projectRoot,
      env: { ...process.env, TEST_DATABASE_URL: 'postgres://ninguem@127.0.0.1:1/nada', TEST_DOCKER: '0', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const code = await new Promise((r) => child.on('exit', r));
    expect(out).toMatch(/Test Files\s+1 passed/);
    expect(code).toBe(0);
  }, 60_000);
});
