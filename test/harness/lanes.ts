/**
 * Test lanes, found from the test files themselves (no list to keep):
 * - `unit`: needs no database (no cluster is started for it);
 * - `db`: uses the test cluster (imports test/harness/db or cluster, or inject()s its URLs,
 *   directly or through a helper under test/);
 * - `service`: boots the service or a process of it (startService, src/main.ts, the
 *   `npm start` bootstrap, the Dockerfile's CMD).
 * A first-line comment `// @lane unit|db|service` overrides the inference.
 * vitest.config.ts makes one vitest project per lane; `npm test` runs all, and a folder
 * or file alone starts only what its lanes need (vitest runs a project's global setup,
 * the cluster, only when the project has files to run).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type Lane = 'unit' | 'db' | 'service';

const SERVICE = /startService\(|scripts\/bootstrap\.mjs|src\/main\.ts|replayDockerfile\(/;
const DATABASE = /harness\/(db|cluster)(\.js)?['"]|inject\(['"](pgAdminUrl|templateDb|cronDb)['"]\)/;

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

function needsDatabase(root: string, file: string, seen: Set<string>): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = code(root, file);
  if (DATABASE.test(text)) return true;
  for (const m of text.matchAll(/from\s+['"](\.\.?\/[^'"]+)['"]/g)) {
    const target = relative(root, resolve(root, dirname(file), m[1]!.replace(/\.js$/, '.ts')));
    if (target.startsWith('test/') && existsSync(join(root, target)) && needsDatabase(root, target, seen)) return true;
  }
  return false;
}

export function laneOf(root: string, file: string): Lane {
  const text = readFileSync(join(root, file), 'utf8');
  const declared = /^\s*\/\/\s*@lane\s+(unit|db|service)\b/m.exec(text);
  if (declared) return declared[1] as Lane;
  if (SERVICE.test(code(root, file))) return 'service';
  return needsDatabase(root, file, new Set()) ? 'db' : 'unit';
}

export function lanes(root: string): Record<Lane, string[]> {
  const out: Record<Lane, string[]> = { unit: [], db: [], service: [] };
  for (const f of testFiles(root)) out[laneOf(root, f)].push(f);
  return out;
}
