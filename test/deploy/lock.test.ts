// @lane unit
/**
 * package-lock.json is complete for every platform: `npm ci` accepts package.json +
 * package-lock.json alone (what the Dockerfile copies); `npm run lock:refresh` rebuilds it
 * (scripts/lock-refresh.mjs). The full `npm ci` of the image is in dockerfile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
// @ts-expect-error plain JavaScript (scripts run before node_modules exists)
import { checkLock, completeLock, platformOf } from '../../scripts/lock-refresh.mjs';

type Lock = { packages: Record<string, Record<string, unknown>> };
const complete = completeLock as (lock: Lock) => string[];

describe('package-lock.json', () => {
  it('npm ci --dry-run accepts the manifest and the lock alone', () => {
    expect(() => (checkLock as (dir: string) => void)(projectRoot)).not.toThrow();
  }, 120_000);

  it('names every optional build of every platform', () => {
    const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as Lock;
    expect(complete(lock)).toEqual([]);
    expect(lock.packages['node_modules/@dbmate/darwin-arm64']).toMatchObject({ os: ['darwin'], cpu: ['arm64'], optional: true });
  });

  it('completes a lock that lacks other platforms, with os/cpu/libc from the name', () => {
    expect(platformOf('@rollup/rollup-linux-arm-musleabihf')).toEqual({ os: ['linux'], cpu: ['arm'], libc: ['musl'] });
    expect(platformOf('@rollup/rollup-win32-x64-msvc')).toEqual({ os: ['win32'], cpu: ['x64'] });
    expect(platformOf('left-pad')).toBeNull();
    const lock: Lock = { packages: {
      '': { name: 'x' },
      'node_modules/dbmate': { version: '2.36.0', optionalDependencies: { '@dbmate/linux-x64': '2.36.0', '@dbmate/darwin-arm64': '2.36.0' } },
      'node_modules/@dbmate/linux-x64': { version: '2.36.0', optional: true, os: ['linux'], cpu: ['x64'] },
    } };
    expect(complete(lock)).toEqual(['node_modules/@dbmate/darwin-arm64']);
    expect(lock.packages['node_modules/@dbmate/darwin-arm64']).toEqual({ version: '2.36.0', optional: true, os: ['darwin'], cpu: ['arm64'] });
    lock.packages['node_modules/dbmate']!.optionalDependencies = { '@x/mystery': '^1.0.0' };
    expect(() => complete(lock)).toThrow(/not a per-platform build/);
  });
});
