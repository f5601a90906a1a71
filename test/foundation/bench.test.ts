/**
 * The benchmarks cannot rot: every bench/*.ts is a benchmark (a `@bench-tiny` run) or a
 * helper, every benchmark is in docs/benchmarks.md, and each one is run here through its
 * documented entry point (`npm run bench -- <name>`, scripts/bootstrap.mjs) at its tiny size:
 * it must start what it needs, finish with exit 0 on the project's Node 24 and print its
 * figures. No timing is asserted (bench/ is for figures, tests for behaviour).
 */
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
// @ts-expect-error plain ES module of the bootstrap, without types
import { benchFiles } from '../../scripts/bench-names.mjs';

interface BenchFile { name: string; helper: boolean; tiny?: { env: Record<string, string>; args: string[] }; prints: string[] }
const files = (benchFiles as () => BenchFile[])();
const benches = files.filter((b) => b.tiny);

function bootstrap(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/bootstrap.mjs', ...args], {
      cwd: projectRoot,
      // nothing of the test run's own database settings (TEST_DATABASE_URL would hand a
      // bench the harness's server): a bench starts what it needs
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', TEST_DOCKER: process.env.TEST_DOCKER ?? '',
        // the engine, where there is one (bench/celular needs it; without it, it says so in one line)
        SYNC_ENGINE_CMD: process.env.SYNC_ENGINE_CMD ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** Runs at most `n` of the given tasks at a time. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

describe('benchmarks', () => {
  it('every bench/*.ts is a benchmark with a tiny run and an expected output, or a helper', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect({ file: f.name, marked: f.helper !== Boolean(f.tiny) }).toEqual({ file: f.name, marked: true });
      if (f.tiny) expect({ file: f.name, prints: f.prints.length > 0 }).toEqual({ file: f.name, prints: true });
    }
    expect(benches.map((b) => b.name)).toEqual(expect.arrayContaining(['ingest', 'xls-merge', 'webhook', 'erp-sync', 'upload-large', 'xlsx-read', 'telas-lista', 'chunk-overhead', 'alteracoes']));
  });

  it('docs/benchmarks.md lists every benchmark with its command', () => {
    const doc = readFileSync(join(projectRoot, 'docs', 'benchmarks.md'), 'utf8');
    for (const b of benches) expect(doc).toContain(`npm run bench -- ${b.name}`);
  });

  it('npm run bench without a known name exits 2 and lists the benchmarks', async () => {
    const none = await bootstrap(['bench']);
    expect(none.code).toBe(2);
    expect(none.out).toContain(`benchmarks (docs/benchmarks.md): ${benches.map((b) => b.name).join(', ')}`);
    const helper = await bootstrap(['bench', 'lib']);
    expect(helper.code).toBe(2);
    expect(helper.out).toContain("unknown benchmark 'lib'");
  });

  // one at a time: nothing here is timed, but with two or five at once on the loaded 2-core
  // machine the ingest's upload got a 503 from its embedded object store (twice in four runs)
  const slot = limiter(1);
  describe.concurrent('each benchmark at its tiny size', () => {
    beforeAll(() => {
      // the compiled service the benches start (bench/lib.ts), built once for all of them
      execFileSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: projectRoot, stdio: 'pipe' });
    }, 120_000);

    for (const b of benches) {
      it(`npm run bench -- ${b.name} ${b.tiny!.args.join(' ')}`, async ({ expect }) => {
        const r = await slot(() => bootstrap(['bench', b.name, ...b.tiny!.args], { ...b.tiny!.env, BENCH_DIST_PRONTO: '1' }));
        expect(r.code, r.out.slice(-3000)).toBe(0);
        expect(r.out).toMatch(new RegExp(`\\[bootstrap\\] bench ${b.name} on Node 24\\.`));
        for (const p of b.prints) expect(r.out).toContain(p);
        expect(r.out).not.toMatch(/\bNaN\b/);
      }, 600_000);
    }
  });
});
