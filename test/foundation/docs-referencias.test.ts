// @lane unit
/**
 * The docs name only what exists. Over README.md, db/README.md and docs/*.md:
 * - every repository path they name (a `src/…`, `db/…`, `docs/…`, `test/…`, `bench/…`,
 *   `scripts/…`, `templates/…`, `sync-engine/…`, `docker/…` path, a top-level file, a relative
 *   Markdown link) is a file or folder of the tree — checked by existence, nothing listed here,
 *   so a move of files shows up as the references it left behind;
 * - every `npm run <script>` is a script of package.json;
 * - every SQL function named as a call (`xls_merge(…)`, `app.enqueue(…)`: a schema-qualified
 *   name, or an area's name: xls_, partner_, replicacao_, erp_, configuracao_, destinatario_,
 *   catalogo_, sessao_, login_) is defined by a db/functions file, or named by a migration (a
 *   function a migration dropped, which dated lab notes may still name);
 * - every environment variable (an upper-case NAME_LIKE_THIS whose first word starts a variable
 *   the project reads, and not an upper-case constant of the code) is read by the service's config.ts, documented in docs/configuration.md,
 *   or read through process.env by a bench, script or test harness (BENCH_*, TEST_*).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const ler = (p: string) => readFileSync(join(root, p), 'utf8');

function arquivos(dir: string, filtro: (f: string) => boolean): string[] {
  const out: string[] = [];
  const andar = (d: string) => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = d ? `${d}/${e.name}` : e.name;
      if (e.isDirectory()) andar(p);
      else if (filtro(p)) out.push(p);
    }
  };
  if (existsSync(join(root, dir))) andar(dir);
  return out;
}

export const DOCS = ['README.md', 'db/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

const RAIZES = ['src', 'db', 'docs', 'test', 'bench', 'scripts', 'templates', 'sync-engine', 'docker'];
const AREAS = ['xls', 'partner', 'replicacao', 'erp', 'configuracao', 'destinatario', 'catalogo', 'sessao', 'login'];

/** A placeholder or a pattern, not a path: `<tipo>`, `*`, `{a,b}`, `…`, `$VAR`. */
const padrao = (p: string) => /[<>*{}…$]|\.\.\.|\[/.test(p);

/** The repository paths a doc names: in code spans, in prose, and its relative links. */
export function caminhos(doc: string, texto: string): string[] {
  const out = new Set<string>();
  const raiz = new RegExp(`(?<![\\w./-])((?:${RAIZES.join('|')})/[\\w./<>*{}…$,-]*[\\w/>*}])`, 'g');
  for (const m of texto.matchAll(raiz)) {
    let p = m[1]!.replace(/[.,]+$/, '');
    if (padrao(p) || /\{/.test(p)) continue;
    p = p.replace(/:\d+$/, '');
    out.add(p);
  }
  for (const m of texto.matchAll(/`((?:package\.json|package-lock\.json|Dockerfile|CHANGELOG\.md|README\.md|tsconfig[\w.]*\.json|vitest\.config\.ts))`/g)) out.add(m[1]!);
  // relative Markdown links: [text](file.md) or (img/x.png), anchors dropped
  for (const m of texto.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
    const alvo = m[1]!;
    if (/^[a-z]+:/.test(alvo) || padrao(alvo)) continue;
    out.add(relative(root, join(root, dirname(doc), alvo)).replace(/\\/g, '/'));
  }
  return [...out];
}

/** The scripts named as `npm run <script>`. */
export function scripts(texto: string): string[] {
  return [...new Set([...texto.matchAll(/\bnpm run ([\w:.-]+)/g)].map((m) => m[1]!))];
}

/** SQL functions named as calls: a schema-qualified name, or an area's name, before `(`. */
export function funcoes(texto: string): string[] {
  const out = new Set<string>();
  for (const m of texto.matchAll(/(?<![\w.$/-])(?:(app|public)\.)?([a-z][a-z0-9_]*)\s*\(/g)) {
    const [, esquema, nome] = m;
    if (esquema || (nome!.includes('_') && AREAS.includes(nome!.split('_')[0]!))) out.add(`${esquema ?? ''}${esquema ? '.' : ''}${nome}`);
  }
  return [...out];
}

/** Environment variables: upper-case names whose first word starts a variable the project reads. */
export function variaveis(texto: string, prefixos: Set<string>): string[] {
  const out = new Set<string>();
  for (const m of texto.matchAll(/(?<![\w.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(_\*)?(?![\w-])/g)) {
    if (prefixos.has(m[1]!.split('_')[0]!)) out.add(m[1]! + (m[2] ?? ''));
  }
  return [...out];
}

// what exists
const pacote = JSON.parse(ler('package.json')) as { scripts: Record<string, string> };
const arquivosDeFuncao = new Set(readdirSync(join(root, 'db', 'functions')).map((f) => f.replace(/\.sql$/, '')));
const migracoes = readdirSync(join(root, 'db', 'migrations')).map((f) => ler(`db/migrations/${f}`)).join('\n');
const config = arquivos('src', (f) => f.endsWith('/config.ts')).map(ler).join('\n');
const configuracaoMd = ler('docs/configuration.md');
const lidasPorProcessEnv = new Set(
  [...arquivos('bench', (f) => /\.(ts|mjs)$/.test(f)), ...arquivos('scripts', (f) => /\.(ts|mjs)$/.test(f)), ...arquivos('test', (f) => /\.(ts|mjs)$/.test(f)), ...arquivos('src', (f) => f.endsWith('.ts'))]
    .flatMap((f) => [...ler(f).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)].map((m) => m[1] ?? m[2]!)));
const conhecidas = new Set([
  ...config.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? [],
  ...configuracaoMd.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? [],
  ...lidasPorProcessEnv,
]);
const prefixos = new Set([...config.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)|\benv\.([A-Z][A-Z0-9_]*)|\b([A-Z][A-Z0-9]*)_[A-Z0-9_]+\b(?=['"`]?\s*[\],:)?])/g)]
  .map((m) => (m[1] ?? m[2] ?? m[3])!.split('_')[0]!)
  .concat([...lidasPorProcessEnv].map((v) => v.split('_')[0]!)));

/** A file or folder; a module named without its extension (`bench/ingest`) is its .ts. */
export function existeCaminho(p: string): boolean {
  const c = join(root, p.replace(/\/$/, ''));
  return existsSync(c) || existsSync(`${c}.ts`);
}
export function existeFuncao(f: string): boolean {
  const [esquema, nome] = f.includes('.') ? f.split('.') as [string, string] : [undefined, f];
  if (esquema ? arquivosDeFuncao.has(`${esquema}.${nome}`) : arquivosDeFuncao.has(`public.${nome}`) || arquivosDeFuncao.has(`app.${nome}`)) return true;
  return new RegExp(`\\b${esquema ? `${esquema}\\.` : ''}${nome}\\s*\\(`).test(migracoes);
}
/** Upper-case constants of the code (`export const MAX_ROW_ERRORS`): names, not variables. */
const constantes = new Set(arquivos('src', (f) => f.endsWith('.ts'))
  .flatMap((f) => [...ler(f).matchAll(/\bconst ([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!)));

export function existeVariavel(v: string): boolean {
  if (constantes.has(v)) return true;
  if (v.endsWith('_*')) {
    const prefixo = v.slice(0, -1);
    return [...conhecidas].some((c) => c.startsWith(prefixo));
  }
  return conhecidas.has(v);
}

describe('the docs name only what exists', () => {
  const textos = DOCS.map((d) => ({ d, t: ler(d) }));

  it('reads every doc', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'db/README.md', 'docs/pipeline.md', 'docs/medicoes.md']));
    expect(statSync(join(root, 'docs')).isDirectory()).toBe(true);
  });

  it('every repository path they name exists', () => {
    const faltam = textos.flatMap(({ d, t }) => caminhos(d, t).filter((p) => !existeCaminho(p)).map((p) => `${d}: ${p}`));
    expect(faltam).toEqual([]);
  });

  it('every `npm run` script they name is in package.json', () => {
    const faltam = textos.flatMap(({ d, t }) => scripts(t).filter((s) => !(s in pacote.scripts)).map((s) => `${d}: npm run ${s}`));
    expect(faltam).toEqual([]);
  });

  it('every SQL function they name is defined by a db/functions file (or named by a migration)', () => {
    const faltam = textos.flatMap(({ d, t }) => funcoes(t).filter((f) => !existeFuncao(f)).map((f) => `${d}: ${f}()`));
    expect(faltam).toEqual([]);
  });

  it('every environment variable they name is read by config.ts, documented, or read by a bench, script or harness', () => {
    const faltam = textos.flatMap(({ d, t }) => variaveis(t, prefixos).filter((v) => !existeVariavel(v)).map((v) => `${d}: ${v}`));
    expect(faltam).toEqual([]);
  });

  it("db/README.md's claim holds: no db/functions file carries a revoke (a migration and default privileges do)", () => {
    expect(ler('db/README.md')).toMatch(/no file\s+carries a `revoke`/);
    const comRevoke = [...arquivosDeFuncao].filter((f) => /^\s*revoke\b/im.test(ler(`db/functions/${f}.sql`)));
    expect(comRevoke).toEqual([]);
  });

  it('the checks can fail: a bogus path, script, function and variable are caught', () => {
    const bogus = 'See `src/nao/existe.ts`, docs/nada.md, [x](nada.md), run `npm run nao-existe`, call\n'
      + '`select xls_nao_existe(1)` or `app.nao_existe()`, and set `PARTNER_NAO_EXISTE=1`.';
    expect(caminhos('docs/x.md', bogus).filter((p) => !existeCaminho(p))).toEqual(['src/nao/existe.ts', 'docs/nada.md']);
    expect(scripts(bogus).filter((s) => !(s in pacote.scripts))).toEqual(['nao-existe']);
    expect(funcoes(bogus).filter((f) => !existeFuncao(f))).toEqual(['xls_nao_existe', 'app.nao_existe']);
    expect(variaveis(bogus, prefixos).filter((v) => !existeVariavel(v))).toEqual(['PARTNER_NAO_EXISTE']);
    // and what exists passes
    expect(existeCaminho('bench/nao-existe')).toBe(false);
    expect(existeCaminho('db/functions/public.xls_merge.sql') && existeCaminho('bench/ingest') && existeFuncao('xls_merge') && existeFuncao('app.enqueue')
      && existeVariavel('DATABASE_URL') && existeVariavel('OIDC_*') && 'db:generate' in pacote.scripts).toBe(true);
  });
});
