/** docs/configuration.md documents every environment variable the code reads. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Variables read through config.ts' helpers or process.env / env.X in src/. */
export function variablesRead(): Set<string> {
  const found = new Set<string>();
  const patterns = [
    /\b(?:str|int|bool|withLegacy|httpUrl)\(env, '([A-Z][A-Z0-9_]+)'/g,
    /\bwithLegacy\(env, '[A-Z0-9_]+', \[([^\]]*)\]/g,
    /\bprocess\.env\.([A-Z][A-Z0-9_]+)/g,
    /\bprocess\.env\['([A-Z][A-Z0-9_]+)'\]/g,
    /\benv\.([A-Z][A-Z0-9_]+)/g,
  ];
  for (const f of files('src')) {
    const text = readFileSync(f, 'utf8');
    for (const re of patterns) {
      for (const m of text.matchAll(re)) {
        for (const name of m[1]!.matchAll(/[A-Z][A-Z0-9_]+/g)) found.add(name[0]);
      }
    }
  }
  found.delete('PATH'); // the system's, passed through to child processes
  return found;
}

describe('docs/configuration.md', () => {
  it('names every variable the code reads', () => {
    const doc = readFileSync('docs/configuration.md', 'utf8');
    const read = variablesRead();
    expect(read.has('TRUST_PROXY')).toBe(true); // the scan itself works
    expect(read.size).toBeGreaterThan(40);
    const missing = [...read].filter((v) => !doc.includes(`\`${v}\``)).sort();
    expect(missing).toEqual([]);
  });
});
