import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

describe('TypeScript', () => {
  it('the whole project type-checks (tsc --noEmit)', async () => {
    const res = await promisify(execFile)(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: projectRoot })
      .then(() => ({ ok: true, out: '' }), (e: { stdout: string }) => ({ ok: false, out: e.stdout }));
    expect(res.out).toBe('');
    expect(res.ok).toBe(true);
  }, 120_000);
});
