/**
 * Mutation runner of db/functions files (`npm run mutacao -- db/functions/<file>.sql`): applies
 * one mutant at a time (scripts/mutacao/sql-mutantes.ts) to the function, runs the test files
 * that call it, and reports each mutant killed, survived, timed out or invalid.
 *
 * One database server for the whole run (test/harness/cluster.ts: a throwaway embedded
 * cluster, or TEST_DATABASE_URL's), its template and pg_cron databases migrated once. A mutant
 * is applied to those two databases only — never written to the file — with
 * check_function_bodies on (one that does not compile is invalid, no test run); vitest then runs
 * the chosen test files on that server with TEST_TEMPLATE_KEEP=1: its global setup migrates the
 * template in place, which leaves the mutant there (app.repeatable_file still records the
 * file's own text, unchanged on disk), and every test file clones that template. The original
 * text is applied back after each mutant. One worker, `--bail=1`: the first failing test kills
 * the mutant. A test that migrates a fresh database of its own sees the file, not the mutant.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../../src/paths.js';
import { CRON_DB, TEMPLATE_DB, prepareDatabases, startTestCluster, type TestCluster } from '../../test/harness/cluster.js';
import { aplicar, corpo, limitar, mutantes, type Mutante, type Regra } from './sql-mutantes.js';

export type Resultado = 'killed' | 'survived' | 'timeout' | 'invalid' | 'not-run';

export interface OpcoesSql {
  /** at most this many mutants per function file (spread over the file); 0 = all */
  max: number;
  /** stop starting mutants after this many minutes (the rest are `not-run`) */
  tempoMin: number;
  /** test files to run instead of the ones found by name */
  testes?: string[];
  /** test files whose path matches are left out of the found ones */
  excluir?: RegExp;
  regras?: Regra[];
}

export interface RelatorioArquivo {
  arquivo: string;
  funcao: string;
  testes: string[];
  gerados: number;
  mutantes: Array<Mutante & { resultado: Resultado; teste?: string; segundos?: number }>;
  erro?: string;
}

const log = (msg: string) => process.stderr.write(`[mutacao] ${msg}\n`);

/** `schema.name` of a function file (`db/functions/app.xls_merge_fim.sql` → `app.xls_merge_fim`). */
export function funcaoDoArquivo(arquivo: string): string {
  return basename(arquivo).replace(/\.sql$/, '');
}

function arquivosTs(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(projectRoot, dir)).sort()) {
    const rel = `${dir}/${e}`;
    if (statSync(join(projectRoot, rel)).isDirectory()) out.push(...arquivosTs(rel));
    else if (e.endsWith('.ts')) out.push(rel);
  }
  return out;
}

const semComentarios = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
const menciona = (text: string, nome: string) => new RegExp(`\\b${nome.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text);

/**
 * The test files that call a function: every test/**\/*.test.ts naming it (its name without
 * schema, as a word), or importing a helper of test/ that names it. When none does, the same
 * for the functions of db/functions that call it, then their callers (three levels at most).
 */
export function testesDaFuncao(funcao: string, root = projectRoot): { testes: string[]; via: string[] } {
  const todos = arquivosTs('test').map((f) => ({ f, text: semComentarios(readFileSync(join(root, f), 'utf8')) }));
  const funcoes = readdirSync(join(root, 'db', 'functions')).filter((f) => f.endsWith('.sql'))
    .map((f) => ({ nome: f.replace(/\.sql$/, ''), text: readFileSync(join(root, 'db', 'functions', f), 'utf8') }));
  let nomes = [funcao];
  const vistos = new Set(nomes);
  for (let nivel = 0; nivel < 4 && nomes.length > 0; nivel++) {
    const curtos = nomes.map((n) => n.split('.').pop()!);
    const diretos = new Set(todos.filter((t) => curtos.some((n) => menciona(t.text, n))).map((t) => t.f));
    // test files importing a helper that names it (transitively through helpers)
    let mudou = true;
    while (mudou) {
      mudou = false;
      for (const t of todos) {
        if (diretos.has(t.f)) continue;
        for (const m of t.text.matchAll(/from\s+['"](\.\.?\/[^'"]+)['"]/g)) {
          const alvo = relative(root, resolve(root, dirname(t.f), m[1]!.replace(/\.js$/, '.ts')));
          if (diretos.has(alvo) && !alvo.endsWith('.test.ts')) { diretos.add(t.f); mudou = true; break; }
        }
      }
    }
    const testes = [...diretos].filter((f) => f.endsWith('.test.ts')).sort();
    if (testes.length > 0) return { testes, via: nomes };
    nomes = funcoes.filter((f) => !vistos.has(f.nome) && curtos.some((n) => menciona(corpoOuTudo(f.text), n))).map((f) => f.nome);
    for (const n of nomes) vistos.add(n);
  }
  return { testes: [], via: [] };
}

function corpoOuTudo(sql: string): string {
  const c = corpo(sql);
  return c ? sql.slice(c.inicio, c.fim) : sql;
}

interface Execucao { ok: boolean; timeout: boolean; segundos: number; teste?: string; saida: string }

/** vitest on `testes`, on the kept server, one worker, stopping at the first failure. */
function rodarVitest(cluster: TestCluster, testes: string[], timeoutMs: number): Promise<Execucao> {
  const bin = join(projectRoot, 'node_modules', '.bin');
  const node = existsSync(join(bin, 'node')) ? join(bin, 'node') : process.execPath;
  const args = [join(projectRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...testes,
    '--bail=1', '--no-file-parallelism', '--maxWorkers=1', '--minWorkers=1', '--reporter=dot'];
  const inicio = Date.now();
  return new Promise((done) => {
    const child = spawn(node, args, {
      cwd: projectRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, TEST_DATABASE_URL: cluster.adminUrl,
        TEST_TEMPLATE_KEEP: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let saida = '';
    const guardar = (b: Buffer) => { saida = (saida + b.toString()).slice(-20_000); };
    child.stdout.on('data', guardar);
    child.stderr.on('data', guardar);
    let timeout = false;
    const timer = setTimeout(() => { timeout = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const falhou = /(?:FAIL|×)\s+(?:\|\w+\|\s+)?(test\/\S+\.test\.ts)(?:\s+>\s+([^\n]*))?/.exec(saida);
      done({ ok: code === 0 && !timeout, timeout, segundos: (Date.now() - inicio) / 1000,
        teste: falhou ? `${falhou[1]}${falhou[2] ? ` > ${falhou[2].trim()}` : ''}` : undefined, saida });
    });
  });
}

/**
 * Applies a function file's text to the template and the pg_cron database, each in its own
 * transaction (check_function_bodies on when `checar`); the error message when it fails.
 */
async function aplicarNoServidor(cluster: TestCluster, sql: string, checar: boolean): Promise<string | null> {
  for (const db of [TEMPLATE_DB, CRON_DB]) {
    const c = new pg.Client({ connectionString: cluster.urlFor(db) });
    await c.connect();
    try {
      await c.query('begin');
      await c.query(`set local check_function_bodies = ${checar ? 'on' : 'off'}`);
      await c.query(sql);
      await c.query('commit');
    } catch (err) {
      await c.query('rollback').catch(() => undefined);
      return (err as Error).message;
    } finally {
      await c.end();
    }
  }
  return null;
}

/** Runs every file on one server (stopped at the end, Ctrl-C included). */
export async function rodarSql(arquivos: string[], opts: OpcoesSql): Promise<RelatorioArquivo[]> {
  const relatorios: RelatorioArquivo[] = [];
  const fimGeral = Date.now() + opts.tempoMin * 60_000;
  let cluster: TestCluster | null = null;
  const sinal = (s: NodeJS.Signals) => {
    log(`${s}: stopping`);
    void (cluster?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', sinal);
  process.once('SIGTERM', sinal);
  try {
    log('starting the database server and migrating the template (once)…');
    cluster = await startTestCluster();
    await prepareDatabases(cluster);
    for (const arquivo of arquivos) {
      const original = readFileSync(join(projectRoot, arquivo), 'utf8');
      const funcao = funcaoDoArquivo(arquivo);
      const todos = mutantes(original).filter((m) => !opts.regras || opts.regras.includes(m.regra));
      const escolhidos = limitar(todos, opts.max);
      const achados = opts.testes ? { testes: opts.testes, via: [] } : testesDaFuncao(funcao);
      const testes = achados.testes.filter((t) => !opts.excluir?.test(t));
      const rel: RelatorioArquivo = { arquivo, funcao, testes, gerados: todos.length, mutantes: [] };
      relatorios.push(rel);
      log(`${funcao}: ${todos.length} mutants${escolhidos.length < todos.length ? `, running ${escolhidos.length} (--max)` : ''}; `
        + `tests: ${testes.join(' ') || '(none)'}${achados.via.length && achados.via[0] !== funcao ? ` (through ${achados.via.join(', ')})` : ''}`);
      if (testes.length === 0) {
        rel.erro = 'no test file names this function or a function that calls it (give them with --testes)';
        log(rel.erro);
        continue;
      }
      if (Date.now() > fimGeral) {
        rel.mutantes = escolhidos.map((m) => ({ ...m, resultado: 'not-run' }));
        continue;
      }
      // baseline: the tests pass on the unchanged function (and the template has it)
      const base = await rodarVitest(cluster, testes, 20 * 60_000);
      if (!base.ok) {
        rel.erro = `the tests fail without any mutant: ${base.teste ?? ''}\n${base.saida.slice(-3000)}`;
        log(rel.erro);
        continue;
      }
      const timeoutMs = Math.max(120_000, base.segundos * 5000);
      log(`baseline ${base.segundos.toFixed(0)} s; timeout per mutant ${(timeoutMs / 1000).toFixed(0)} s`);
      for (const m of escolhidos) {
        if (Date.now() > fimGeral) { rel.mutantes.push({ ...m, resultado: 'not-run' }); continue; }
        const sql = aplicar(original, m);
        const descricao = `#${m.id} line ${m.linha} ${m.regra}: '${m.original.replace(/\s+/g, ' ').slice(0, 60)}' → '${m.substituto}'`;
        const erro = await aplicarNoServidor(cluster, sql, true);
        if (erro) {
          rel.mutantes.push({ ...m, resultado: 'invalid' });
          log(`${descricao}: invalid (${erro.split('\n')[0]})`);
          continue;
        }
        let r: Execucao;
        try {
          r = await rodarVitest(cluster, testes, timeoutMs);
        } finally {
          const volta = await aplicarNoServidor(cluster, original, false);
          if (volta) throw new Error(`could not apply ${arquivo} back: ${volta}`);
        }
        const resultado: Resultado = r.timeout ? 'timeout' : r.ok ? 'survived' : 'killed';
        rel.mutantes.push({ ...m, resultado, teste: r.teste, segundos: Math.round(r.segundos) });
        log(`${descricao}: ${resultado.toUpperCase()}${r.teste ? ` by ${r.teste}` : ''} (${r.segundos.toFixed(0)} s)`);
      }
    }
  } finally {
    process.off('SIGINT', sinal);
    process.off('SIGTERM', sinal);
    await cluster?.stop();
  }
  return relatorios;
}

export interface Placar { mutantes: number; killed: number; survived: number; timeout: number; invalid: number; naoRodados: number; score: number | null }

/** Killed and timed-out mutants over those that ran and compiled. */
export function placar(rels: readonly RelatorioArquivo[]): Placar {
  const ms = rels.flatMap((r) => r.mutantes);
  const n = (x: Resultado) => ms.filter((m) => m.resultado === x).length;
  const killed = n('killed');
  const timeout = n('timeout');
  const survived = n('survived');
  const validos = killed + timeout + survived;
  return { mutantes: ms.length, killed, survived, timeout, invalid: n('invalid'), naoRodados: n('not-run'),
    score: validos ? Math.round((1000 * (killed + timeout)) / validos) / 10 : null };
}

/** The text report, and the JSON one under .data/mutacao/ (its path returned). */
export function relatar(rels: readonly RelatorioArquivo[]): { texto: string; json: string } {
  const linhas: string[] = [];
  for (const r of rels) {
    const p = placar([r]);
    linhas.push(`${r.funcao} (${r.arquivo}): ${r.gerados} mutants generated, ${p.mutantes} chosen — killed ${p.killed}, timeout ${p.timeout}, `
      + `survived ${p.survived}, invalid ${p.invalid}, not run ${p.naoRodados}; score ${p.score ?? '—'} %`);
    if (r.erro) linhas.push(`  ! ${r.erro.split('\n')[0]}`);
    for (const m of r.mutantes.filter((x) => x.resultado === 'survived')) {
      linhas.push(`  survived #${m.id} line ${m.linha} ${m.regra}: '${m.original.replace(/\s+/g, ' ').slice(0, 80)}' → '${m.substituto}'`);
    }
  }
  const t = placar(rels);
  linhas.push(`total: ${t.mutantes} mutants — killed ${t.killed}, timeout ${t.timeout}, survived ${t.survived}, invalid ${t.invalid}, `
    + `not run ${t.naoRodados}; mutation score ${t.score ?? '—'} %`);
  const dir = join(projectRoot, '.data', 'mutacao');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `sql-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(json, JSON.stringify({ placar: t, arquivos: rels }, null, 2));
  return { texto: linhas.join('\n'), json: relative(projectRoot, json) };
}

