/**
 * The layering of src/ (README "Layout", docs/glossary.md "Folders of src/"), held over the
 * imports themselves (every `import`/`export … from`, `import type`, `import()` and
 * `declare module` of every file of src/):
 *
 * - composition (`main.ts`, `app.ts`, `handlers.ts`, `embedded/start.ts`) may import anything;
 * - an area (`erp/`, `pedidos/`, `planilhas/`, `replicacao/`, `configuracao/`, `celular/`) imports its own
 *   files and the kernels, never another area (what two areas need goes down into a kernel)
 *   and never the composition;
 * - a kernel (everything else: `web/`, `jobs/`, `db/`, `integrations/`, `xlsx/`, `embedded/`
 *   and the files at the root of src/) never imports an area nor the composition; `db/`
 *   and `xlsx/` (the reader library) import only themselves and the files at the root of src/;
 * - no import circle, at any layer.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

export const AREAS = ['erp', 'pedidos', 'planilhas', 'replicacao', 'configuracao', 'celular'] as const;
const COMPOSITION = new Set(['main.ts', 'app.ts', 'handlers.ts', 'embedded/start.ts']);

type Layer = { kind: 'composition' } | { kind: 'area'; area: string } | { kind: 'kernel'; kernel: string };

/** The layer of a file, by its path under src/ (e.g. `planilhas/processar.ts`). */
export function layerOf(file: string): Layer {
  if (COMPOSITION.has(file)) return { kind: 'composition' };
  const top = file.includes('/') ? file.slice(0, file.indexOf('/')) : '';
  if ((AREAS as readonly string[]).includes(top)) return { kind: 'area', area: top };
  return { kind: 'kernel', kernel: top === '' ? 'root' : top };
}

/** What is wrong with one import `from` -> `to` (paths under src/), or null. */
export function againstLayering(from: string, to: string): string | null {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a.kind === 'composition') return null;
  if (b.kind === 'composition') return `${from} imports the composition (${to})`;
  if (a.kind === 'kernel' && b.kind === 'area') return `kernel ${from} imports area ${b.area} (${to})`;
  if (a.kind === 'area' && b.kind === 'area' && a.area !== b.area) return `area ${a.area} imports area ${b.area} (${from} -> ${to})`;
  if (a.kind === 'kernel' && a.kernel === 'db' && b.kind === 'kernel' && b.kernel !== 'db' && b.kernel !== 'root') return `db/ imports ${to} (${from})`;
  if (a.kind === 'kernel' && a.kernel === 'xlsx' && !(b.kind === 'kernel' && (b.kernel === 'xlsx' || b.kernel === 'root'))) return `the reader library imports ${to} (${from})`;
  return null;
}

/** Every circle of a graph (its strongly connected components of more than one file, or a self-import). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index); low.set(v, index); index += 1;
    stack.push(v); on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) { if (e !== 'zapatos') out.push(...sourceFiles(p)); }
    else if (/\.(ts|mts|mjs)$/.test(e)) out.push(p);
  }
  return out;
}

/**
 * The modules a file names: `import … from`, `export … from`, `import '…'`, `import('…')` (a
 * value or a type) and `declare module '…'` (an augmentation depends on its module too).
 */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?(?:\*\s+as\s+[\w$]+|\*|\{[^}]*\}|[\w$]+)\s+from\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bdeclare\s+module\s+['"]([^'"]+)['"]/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

/** The import graph of src/ (paths under src/); an import that names no file is an error. */
export function importGraph(): { graph: Map<string, string[]>; unresolved: string[] } {
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const abs of sourceFiles(SRC)) {
    const file = relative(SRC, abs);
    const text = readFileSync(abs, 'utf8');
    const specs = importsOf(text);
    const targets = new Set<string>();
    for (const spec of specs) {
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(abs), spec);
      const found = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`].find((p) => existsSync(p) && statSync(p).isFile());
      if (!found) { unresolved.push(`${file}: ${spec}`); continue; }
      const to = relative(SRC, found);
      if (to.startsWith('..')) continue; // outside src/ (package.json): not part of the layering
      targets.add(to);
    }
    graph.set(file, [...targets].sort());
  }
  return { graph, unresolved };
}

describe('the layering of src/', () => {
  const { graph, unresolved } = importGraph();

  it('reads the whole tree (every area, every kernel, the composition) and resolves every import', () => {
    const tops = new Set([...graph.keys()].map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : f)));
    for (const t of [...AREAS, 'web', 'jobs', 'db', 'xlsx', 'integrations', 'embedded', 'app.ts', 'main.ts', 'handlers.ts']) expect(tops).toContain(t);
    expect([...graph.values()].flat().length).toBeGreaterThan(300);
    expect(unresolved).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no import against the layering (area -> kernel -> db; no kernel imports an area; no area imports another)', () => {
    const wrong: string[] = [];
    for (const [from, tos] of graph) for (const to of tos) { const w = againstLayering(from, to); if (w) wrong.push(w); }
    expect(wrong).toEqual([]);
  });

  it('has each area in its own folder: a handler, a route and a screen of every area', () => {
    const files = [...graph.keys()];
    for (const area of AREAS) expect(files.filter((f) => f.startsWith(`${area}/`)).length, area).toBeGreaterThan(2);
    expect(graph.get('handlers.ts')).toEqual(expect.arrayContaining(['pedidos/jobs.ts', 'planilhas/processar.ts', 'replicacao/jobs.ts']));
  });
});

describe('the checks themselves can fail', () => {
  it('reads every form of import', () => {
    const text = [
      "import a from './a.js';", "import type { B } from './b.js';", "import { c,\n  d } from './c.js';", "import e, { f } from './e.js';",
      "import * as g from './g.js';", "export { h } from './h.js';", "export * from './i.js';", "import './j.js';",
      "const k = await import('./k.js');", "let l: import('./l.js').L;", "declare module './m.js' {}",
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['./a.js', './b.js', './c.js', './e.js', './g.js', './h.js', './i.js', './j.js', './k.js', './l.js', './m.js']);
  });

  it('finds a circle, a self-import, and no circle in a chain', () => {
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(circles(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });

  it('refuses a kernel importing an area, an area importing another, anything importing the composition', () => {
    expect(againstLayering('web/problem.ts', 'planilhas/db.ts')).toMatch(/kernel .* imports area planilhas/);
    expect(againstLayering('jobs/runner.ts', 'pedidos/jobs.ts')).toMatch(/kernel/);
    expect(againstLayering('context.ts', 'pedidos/intake.ts')).toMatch(/kernel context.ts imports area pedidos/);
    expect(againstLayering('pedidos/destinatarios.ts', 'configuracao/telas.ts')).toMatch(/area pedidos imports area configuracao/);
    expect(againstLayering('planilhas/processar.ts', 'handlers.ts')).toMatch(/composition/);
    expect(againstLayering('web/api.ts', 'app.ts')).toMatch(/composition/);
    expect(againstLayering('db/pool.ts', 'jobs/listener.ts')).toMatch(/db\//);
    expect(againstLayering('xlsx/zip.ts', 'web/render.ts')).toMatch(/reader library/);
  });

  it('lets an area use its own files and the kernels, and the composition use anything', () => {
    expect(againstLayering('planilhas/processar.ts', 'planilhas/db.ts')).toBeNull();
    expect(againstLayering('planilhas/processar.ts', 'jobs/runner.ts')).toBeNull();
    expect(againstLayering('pedidos/telas.ts', 'web/render.ts')).toBeNull();
    expect(againstLayering('web/problem.ts', 'web/render.ts')).toBeNull();
    expect(againstLayering('app.ts', 'pedidos/webhook.ts')).toBeNull();
    expect(againstLayering('embedded/start.ts', 'main.ts')).toBeNull();
  });
});
