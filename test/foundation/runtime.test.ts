/**
 * Node 24 everywhere: the tests run on the Node 24 binary of the devDependency `node`
 * (scripts/bootstrap.mjs), whatever Node the machine has; package.json says so.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  engines: { node: string }; devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('runs the tests on Node 24 or later', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('package.json requires Node 24 and ships it as a devDependency', () => {
    expect(pkg.engines.node).toBe('>=24');
    expect(pkg.devDependencies.node).toMatch(/^\^24\./);
    expect(pkg.devDependencies['@types/node']).toMatch(/^\^24\./);
  });

  it('the Dockerfile runs on Node 24', () => {
    const froms = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8').match(/^FROM\s+\S+/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const f of froms) expect(f).toMatch(/node:24/);
  });
});
