/**
 * `npm run mutacao -- <file or folder> …`: mutation testing on demand (docs/mutacao.md).
 *
 * - db/functions/*.sql: our own runner (scripts/mutacao/sql-runner.ts), one mutant at a time,
 *   the test files that call the function;
 * - TypeScript files: Stryker with its vitest runner (stryker.config.mjs), mutating only the
 *   given files and running only the tests related to them (vitest's `related`).
 *
 * Options (SQL): --max <n> mutants per function file (default 40, spread over the file; 0 =
 * all), --tempo <minutes> for the whole run (default 60), --testes <file,…> instead of the
 * ones found, --excluir <regex> of test paths, --regras <rule,…>, --listar (print the mutants,
 * run nothing). Exit 0 when it ran (survivors are a report, not a failure), 2 on bad usage.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/paths.js';
import { limitar, mutantes, REGRAS, type Regra } from './mutacao/sql-mutantes.js';
import { relatar, rodarSql, testesDaFuncao, funcaoDoArquivo } from './mutacao/sql-runner.js';

const USO = `Usage: npm run mutacao -- <file or folder>… [--max n] [--tempo min] [--testes a,b] [--excluir regex] [--regras r,…] [--listar]
  db/functions/*.sql: our runner (one mutant at a time, the tests that call the function)
  src/**/*.ts: Stryker (vitest runner), only the given files and their related tests
  rules: ${REGRAS.join(', ')}`;

function sair(msg: string): never {
  process.stderr.write(`${msg}\n${USO}\n`);
  process.exit(2);
}

function expandir(alvo: string): string[] {
  const abs = resolve(process.cwd(), alvo);
  if (!existsSync(abs)) sair(`not found: ${alvo}`);
  const rel = relative(projectRoot, abs);
  if (rel.startsWith('..')) sair(`outside the project: ${alvo}`);
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs).sort().flatMap((e) => expandir(join(abs, e)));
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    max: { type: 'string', default: '40' },
    tempo: { type: 'string', default: '60' },
    testes: { type: 'string' },
    excluir: { type: 'string' },
    regras: { type: 'string' },
    listar: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) { process.stdout.write(`${USO}\n`); process.exit(0); }
if (positionals.length === 0) sair('give a file or folder');

const arquivos = positionals.flatMap(expandir);
const sql = arquivos.filter((f) => f.startsWith('db/functions/') && f.endsWith('.sql'));
const ts = arquivos.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts') && !f.startsWith('test/'));
const outros = arquivos.filter((f) => !sql.includes(f) && !ts.includes(f));
if (sql.length + ts.length === 0) sair(`nothing to mutate in ${positionals.join(' ')} (db/functions/*.sql or TypeScript outside test/)`);
if (outros.length > 0 && positionals.some((p) => !statSync(resolve(process.cwd(), p)).isDirectory())) {
  sair(`cannot mutate ${outros.join(', ')}`);
}
const max = Number(values.max);
const tempoMin = Number(values.tempo);
if (!Number.isInteger(max) || max < 0) sair('--max: a whole number (0 = all)');
if (!(tempoMin > 0)) sair('--tempo: minutes, more than 0');
const regras = values.regras?.split(',').map((r) => r.trim()) as Regra[] | undefined;
if (regras?.some((r) => !REGRAS.includes(r))) sair(`--regras: one of ${REGRAS.join(', ')}`);

if (values.listar) {
  for (const f of sql) {
    const todos = mutantes(readFileSync(join(projectRoot, f), 'utf8')).filter((m) => !regras || regras.includes(m.regra));
    const escolhidos = new Set(limitar(todos, max).map((m) => m.id));
    const { testes } = testesDaFuncao(funcaoDoArquivo(f));
    process.stdout.write(`${f}: ${todos.length} mutants, ${escolhidos.size} chosen; tests: ${testes.join(' ') || '(none)'}\n`);
    for (const m of todos) {
      process.stdout.write(`  ${escolhidos.has(m.id) ? '*' : ' '} #${m.id} line ${m.linha} ${m.regra}: '${m.original.replace(/\s+/g, ' ').slice(0, 70)}' → '${m.substituto}'\n`);
    }
  }
  for (const f of ts) process.stdout.write(`${f}: Stryker\n`);
  process.exit(0);
}

if (sql.length > 0) {
  const rels = await rodarSql(sql, {
    max, tempoMin,
    testes: values.testes?.split(',').map((t) => t.trim()).filter(Boolean),
    excluir: values.excluir ? new RegExp(values.excluir) : undefined,
    regras,
  });
  const { texto, json } = relatar(rels);
  process.stdout.write(`${texto}\n(report: ${json})\n`);
}

if (ts.length > 0) {
  const bin = join(projectRoot, 'node_modules', '.bin');
  const r = spawnSync(join(bin, 'stryker'), ['run', 'stryker.config.mjs', '--mutate', ts.join(',')], {
    cwd: projectRoot, stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
