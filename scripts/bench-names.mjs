// The benchmarks of bench/ (plain Node, no dependencies: the bootstrap imports it).
// A benchmark is a bench/<name>.ts file with a `// @bench-tiny <args>` line: the arguments
// (and NAME=value environment) of its smallest run, which test/foundation/bench.test.ts
// runs so that no benchmark rots; each `// @bench-prints <text>` line names a text its output must
// contain. Files marked `// @bench-helper` are imported by the benchmarks, not run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench');

/** Every bench/*.ts file: its name, and its tiny run (null for a helper; undefined when unmarked). */
export function benchFiles(dir = benchDir) {
  return readdirSync(dir).filter((f) => f.endsWith('.ts')).sort().map((f) => {
    const text = readFileSync(join(dir, f), 'utf8');
    const tiny = /^\s*\/\/\s*@bench-tiny\b(.*)$/m.exec(text);
    const prints = [...text.matchAll(/^\s*\/\/\s*@bench-prints\s+(.+)$/gm)].map((m) => m[1].trim());
    const helper = /^\s*\/\/\s*@bench-helper\b/m.test(text);
    const words = tiny ? tiny[1].trim().split(/\s+/).filter(Boolean) : [];
    return {
      name: f.slice(0, -3),
      helper,
      tiny: tiny ? {
        env: Object.fromEntries(words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)])),
        args: words.filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w)),
      } : undefined,
      prints,
    };
  });
}

/** The names `npm run bench -- <name>` accepts. */
export function benchNames(dir = benchDir) {
  return benchFiles(dir).filter((b) => b.tiny).map((b) => b.name);
}
