/**
 * How a worker thread of this folder is started: the compiled JavaScript as is; the
 * TypeScript sources (tests, tsx) through tsx's ESM loader, registered inside the worker.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `nome`: the module's name without extension, beside this file (e.g. 'parse-worker'). */
export function workerEntry(nome: string): { script: string | URL; eval: boolean } {
  const self = import.meta.url;
  if (!/\.ts$/.test(new URL(self).pathname)) return { script: new URL(`./${nome}.js`, self), eval: false };
  // tsx's ESM entry (its `import` export), found from its package.json
  const pkg = createRequire(self).resolve('tsx/package.json');
  const tsx = pathToFileURL(join(dirname(pkg), 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL(`./${nome}.ts`, self).href;
  return { script: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, eval: true };
}
