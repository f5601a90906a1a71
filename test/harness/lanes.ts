/**
 * Test lanes, found from the test files themselves (no list to keep):
 * - `unit`: needs no database (no cluster is started for it);
 * - `db`: uses the test cluster (imports test/harness/db or cluster, or inject()s its URLs,
 *   directly or through a helper under test/);
 * - `service`: boots the service or a process of it (startService, src/main.ts, the
 *   `npm start` bootstrap, the Dockerfile's CMD);
 * - `engine`: runs the real sync engine (imports test/harness/motor, directly or through a
 *   helper under test/); it runs only when SYNC_ENGINE_CMD names one (vitest.config.ts).
 * A first-line comment `// @lane unit|db|service|engine` overrides the inference.
 * vitest.config.ts makes one vitest project per lane; `npm test` runs all, and a folder
 * or file alone starts only what its lanes need (vitest runs a project's global setup,
 * the cluster, only when the project has files to run).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Lane = 'unit' | 'db' | 'service' | 'engine';

const SERVICE = /startService\(|scripts\/bootstrap\.mjs|src\/main\.ts|replayDockerfile\(/;
const DATABASE = /harness\/(db|cluster)(\.js)?['"]|inject\(['"](pgAdminUrl|templateDb|cronDb)['"]\)/;
const ENGINE = /harness\/motor(\.js)?['"]/;

export function testFiles(root: string, dir = 'test'): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir)).sort()) {
    const rel = `${dir}/${e}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...testFiles(root, rel));
    else if (e.endsWith('.test.ts')) out.push(rel);
  }
  return out;
}

/** The code of a file, without its comments (a comment naming src/main.ts is not a use). */
function code(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Whether the code of `file`, or of a helper under test/ it imports (transitively), matches `what`. */
function uses(root: string, file: string, what: RegExp, seen: Set<string>): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = code(root, file);
  if (what.test(text)) return true;
  for (const m of text.matchAll(/from\s+['"](\.\.?\/[^'"]+)['"]/g)) {
    const target = relative(root, resolve(root, dirname(file), m[1]!.replace(/\.js$/, '.ts')));
    if (target.startsWith('test/') && existsSync(join(root, target)) && uses(root, target, what, seen)) return true;
  }
  return false;
}

export function laneOf(root: string, file: string): Lane {
  const text = readFileSync(join(root, file), 'utf8');
  const declared = /^\s*\/\/\s*@lane\s+(unit|db|service|engine)\b/m.exec(text);
  if (declared) return declared[1] as Lane;
  if (uses(root, file, ENGINE, new Set())) return 'engine';
  if (SERVICE.test(code(root, file))) return 'service';
  return uses(root, file, DATABASE, new Set()) ? 'db' : 'unit';
}

export function lanes(root: string): Record<Lane, string[]> {
  const out: Record<Lane, string[]> = { unit: [], db: [], service: [], engine: [] };
  for (const f of testFiles(root)) out[laneOf(root, f)].push(f);
  return out;
}

/**
 * How many tests the files hold, read from their code: the calls `it(` and `test(` (the
 * engine lane's files write each test as one such call, no `.each`). What the one-line
 * notice of a run without the engine counts.
 */
export function countTests(root: string, files: string[]): number {
  return files.reduce((n, f) => n + [...code(root, f).matchAll(/(?<![\w.])(it|test)(\.only)?\(/g)].length, 0);
}

/**
 * Whether a run with these CLI filters (vitest's: a file is selected when its path contains
 * one of them; none selects every file) selects `file` (relative to root).
 */
export function selectedBy(root: string, file: string, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  const abs = join(root, file);
  return filters.some((f) => {
    const clean = f.replace(/^\.\//, '').replace(/\/$/, '');
    const full = resolve(root, f);
    return file.includes(clean) || abs === full || abs.startsWith(`${full}/`);
  });
}
