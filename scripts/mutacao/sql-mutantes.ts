/**
 * The mutants of one db/functions file: small changes to the function's body, one at a time,
 * that a test of the function should notice (`npm run mutacao`, scripts/mutacao.ts).
 *
 * Only the body between `AS $tag$` and the closing `$tag$` is changed, and only its code:
 * comments and string literals are left alone (so the SQL that a function builds as text with
 * format() is not mutated), except the number inside a typed literal (`time '08:00'`,
 * `interval '20 seconds'`). The rules:
 *
 * - `comparison`: `<` → `<=` and `>=`, `<=` → `<` and `>`, `>` → `>=` and `<=`, `>=` → `>` and
 *   `<`, `=` → `<>` (not the `=` of an UPDATE's `set a = …, b = …`), `<>` / `!=` → `=`;
 * - `logical`: `and` ↔ `or` (not the `and` of `between`);
 * - `negation`: a `not` dropped;
 * - `constant`: a number n → n + 1 and n - 1 (n ≥ 1), also inside a typed literal;
 * - `arithmetic`: `+` ↔ `-`, `*` ↔ `/` between two operands;
 * - `condition`: the condition of a `where`, `if`, `elsif` or `when` (not a simple CASE's) replaced by `true` up to its first
 *   top-level `and`/`or`, and every further `and …` conjunct dropped.
 *
 * A mutant that does not parse is left to the runner, which checks each one on the database
 * before running tests (check_function_bodies on) and counts it as invalid.
 */

export type Regra = 'comparison' | 'logical' | 'negation' | 'constant' | 'arithmetic' | 'condition';
export const REGRAS: readonly Regra[] = ['comparison', 'logical', 'negation', 'constant', 'arithmetic', 'condition'];

export interface Mutante {
  /** 1-based, in the order of the file */
  id: number;
  regra: Regra;
  /** 1-based line of the change in the file */
  linha: number;
  /** [inicio, fim) offsets in the file's text, replaced by `substituto` */
  inicio: number;
  fim: number;
  original: string;
  substituto: string;
}

type Tipo = 'ws' | 'comment' | 'string' | 'qident' | 'number' | 'word' | 'op' | 'punct';
interface Token { tipo: Tipo; texto: string; inicio: number; fim: number }

const OPERADORES = [':=', '::', '..', '=>', '<=', '>=', '<>', '!=', '||', '->>', '->', '#>>', '#>', '@>', '<@', '?|', '?&', '&&', '**'];
const CHARS_OPERADOR = '+-*/<>=~!@#%^&|`?:';

/** The tokens of `sql` between `desde` and `ate` (offsets kept relative to the whole text). */
export function tokenizar(sql: string, desde = 0, ate = sql.length): Token[] {
  const out: Token[] = [];
  let i = desde;
  const push = (tipo: Tipo, fim: number) => { out.push({ tipo, texto: sql.slice(i, fim), inicio: i, fim }); i = fim; };
  while (i < ate) {
    const c = sql[i]!;
    const resto = sql.slice(i, Math.min(ate, i + 4));
    if (/\s/.test(c)) {
      let j = i;
      while (j < ate && /\s/.test(sql[j]!)) j++;
      push('ws', j);
    } else if (resto.startsWith('--')) {
      const j = sql.indexOf('\n', i);
      push('comment', j < 0 || j > ate ? ate : j);
    } else if (resto.startsWith('/*')) {
      let depth = 0;
      let j = i;
      while (j < ate) {
        if (sql.startsWith('/*', j)) { depth++; j += 2; } else if (sql.startsWith('*/', j)) { depth--; j += 2; if (depth === 0) break; } else j++;
      }
      push('comment', j);
    } else if (c === '\'' || ((c === 'E' || c === 'e') && sql[i + 1] === '\'')) {
      const escapes = c !== '\'';
      let j = escapes ? i + 2 : i + 1;
      while (j < ate) {
        if (escapes && sql[j] === '\\') { j += 2; continue; }
        if (sql[j] === '\'') {
          if (sql[j + 1] === '\'') { j += 2; continue; }
          j++;
          break;
        }
        j++;
      }
      push('string', j);
    } else if (c === '$' && /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(sql.slice(i, ate))) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, ate))![0];
      const fimTag = sql.indexOf(tag, i + tag.length);
      push('string', fimTag < 0 || fimTag + tag.length > ate ? ate : fimTag + tag.length);
    } else if (c === '"') {
      let j = i + 1;
      while (j < ate && !(sql[j] === '"' && sql[j + 1] !== '"')) j += sql[j] === '"' ? 2 : 1;
      push('qident', Math.min(ate, j + 1));
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? '') && sql[i - 1] !== '.')) {
      const m = /^[0-9]*(\.[0-9]+|\.(?!\.))?([eE][-+]?[0-9]+)?/.exec(sql.slice(i, ate))!;
      push('number', i + Math.max(1, m[0].length));
    } else if (/[A-Za-z_\u00C0-\uFFFF]/.test(c)) {
      const m = /^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_$\u00C0-\uFFFF]*/.exec(sql.slice(i, ate))!;
      push('word', i + m[0].length);
    } else if (CHARS_OPERADOR.includes(c) || c === '.') {
      const op = OPERADORES.find((o) => sql.startsWith(o, i) && i + o.length <= ate);
      push(op ? 'op' : c === '.' ? 'punct' : 'op', i + (op?.length ?? 1));
    } else {
      push('punct', i + 1);
    }
  }
  return out;
}

/** The [inicio, fim) of the function body: the text between `AS $tag$` and the closing `$tag$`. */
export function corpo(sql: string): { inicio: number; fim: number } | null {
  const m = /\bAS\s+(\$[A-Za-z_]*\$)/i.exec(sql);
  if (!m) return null;
  const inicio = m.index + m[0].length;
  const fim = sql.indexOf(m[1]!, inicio);
  return fim < 0 ? null : { inicio, fim };
}

const COMPARACAO: Record<string, string[]> = {
  '<': ['<=', '>='], '<=': ['<', '>'], '>': ['>=', '<='], '>=': ['>', '<'], '=': ['<>'], '<>': ['='], '!=': ['='],
};
const ARITMETICA: Record<string, string> = { '+': '-', '-': '+', '*': '/', '/': '*' };
/** Words that end a condition at its own depth. */
const FIM_CONDICAO = new Set(['then', 'loop', 'order', 'group', 'limit', 'offset', 'returning', 'union', 'except', 'intersect',
  'for', 'window', 'having', 'into', 'on', 'do', 'else', 'end', 'when', 'using', 'and', 'or', 'elsif']);
const INICIO_CONDICAO = new Set(['where', 'if', 'elsif', 'when']);
const LITERAL_TIPADO = new Set(['interval', 'time', 'date', 'timestamp', 'timestamptz']);

function trocarCaixa(original: string, novo: string): string {
  return original === original.toUpperCase() && /[A-Z]/.test(original) ? novo.toUpperCase() : novo;
}

/** Every mutant of a function file, in file order. */
export function mutantes(sql: string): Mutante[] {
  const c = corpo(sql);
  if (!c) return [];
  const todos = tokenizar(sql, c.inicio, c.fim);
  const tk = todos.filter((t) => t.tipo !== 'ws' && t.tipo !== 'comment');
  const palavra = (t: Token | undefined) => (t?.tipo === 'word' ? t.texto.toLowerCase() : undefined);
  const out: Omit<Mutante, 'id' | 'linha'>[] = [];
  const add = (regra: Regra, inicio: number, fim: number, substituto: string) =>
    out.push({ regra, inicio, fim, original: sql.slice(inicio, fim), substituto });

  // the `and` of each `between` (same depth, the first one after it)
  const andDeBetween = new Set<number>();
  {
    const pendentes: number[] = [];
    let depth = 0;
    tk.forEach((t, k) => {
      if (t.texto === '(') depth++;
      else if (t.texto === ')') depth--;
      else if (palavra(t) === 'between') pendentes.push(depth);
      else if (palavra(t) === 'and' && pendentes.at(-1) === depth) { pendentes.pop(); andDeBetween.add(k); }
    });
  }

  // the `when`s of a simple CASE (`case x when 'A' then`): a value, not a condition
  const whenDeValor = new Set<number>();
  {
    const simples: boolean[] = [];
    tk.forEach((t, k) => {
      const w = palavra(t);
      if (w === 'case' && palavra(tk[k - 1]) !== 'end') simples.push(palavra(tk[k + 1]) !== 'when');
      else if (w === 'end' && !['if', 'loop'].includes(palavra(tk[k + 1]) ?? '')) simples.pop();
      else if (w === 'when' && simples.at(-1)) whenDeValor.add(k);
    });
  }
  // the `=`s of an UPDATE's `set a = …, b = …` (assignments, not comparisons): at the SET's
  // depth, up to its `where`, `from`, `returning` or `;`
  const atribuicoes = new Set<number>();
  {
    let depth = 0;
    let emSet: number | null = null;
    tk.forEach((t, k) => {
      const w = palavra(t);
      if (t.texto === '(') depth++;
      else if (t.texto === ')') { depth--; if (emSet !== null && depth < emSet) emSet = null; }
      else if (w === 'set') emSet = depth;
      else if (emSet === depth && (t.texto === ';' || ['where', 'from', 'returning'].includes(w ?? ''))) emSet = null;
      else if (emSet === depth && t.texto === '=') atribuicoes.add(k);
    });
  }
  const atribuicao = (k: number) => atribuicoes.has(k);

  /** index just past the condition that starts at token k (exclusive), at depth 0 relative to it */
  const fimCondicao = (k: number): number => {
    let depth = 0;
    let between = 0;
    let j = k;
    for (; j < tk.length; j++) {
      const t = tk[j]!;
      const w = palavra(t);
      if (t.texto === '(' || w === 'case') { depth++; continue; }
      if (t.texto === ')' || (w === 'end' && depth > 0)) {
        if (depth === 0) break;
        depth--;
        continue;
      }
      if (depth > 0) continue;
      if (w === 'between') between++;
      if (w === 'and' && between > 0) { between--; continue; }
      if (t.texto === ';' || t.texto === ',' || (w && FIM_CONDICAO.has(w) && j > k)) break;
    }
    return j;
  };

  const operando = (t: Token | undefined) => !!t && (t.tipo === 'number' || t.tipo === 'string' || t.tipo === 'qident' || t.texto === ')'
    || (t.tipo === 'word' && !['select', 'distinct', 'all', 'and', 'or', 'not', 'then', 'else', 'when', 'return', 'in', 'is', 'as', 'by'].includes(t.texto.toLowerCase())));

  tk.forEach((t, k) => {
    const w = palavra(t);
    if (t.tipo === 'op' && COMPARACAO[t.texto] && !(t.texto === '=' && atribuicao(k))) {
      for (const s of COMPARACAO[t.texto]!) add('comparison', t.inicio, t.fim, s);
    } else if (t.tipo === 'op' && t.texto === '=') {
      // the assignment of `set col =`: no mutant
    } else if (t.tipo === 'op' && ARITMETICA[t.texto] && operando(tk[k - 1]) && operando(tk[k + 1]) && tk[k + 1]!.texto !== ')') {
      add('arithmetic', t.inicio, t.fim, ARITMETICA[t.texto]!);
    } else if ((w === 'and' && !andDeBetween.has(k)) || w === 'or') {
      add('logical', t.inicio, t.fim, trocarCaixa(t.texto, w === 'and' ? 'or' : 'and'));
    } else if (w === 'not') {
      const seguinte = tk[k + 1];
      if (seguinte) add('negation', t.inicio, seguinte.inicio, '');
    } else if (t.tipo === 'number') {
      const n = Number(t.texto);
      if (Number.isFinite(n)) {
        add('constant', t.inicio, t.fim, String(n + 1));
        if (n >= 1) add('constant', t.inicio, t.fim, String(n - 1));
      }
    } else if (t.tipo === 'string' && LITERAL_TIPADO.has(palavra(tk[k - 1]) ?? '')) {
      const m = /[0-9]+/.exec(t.texto);
      if (m) {
        const n = Number(m[0]);
        const inicio = t.inicio + m.index;
        const fim = inicio + m[0].length;
        const largura = (v: number) => String(v).padStart(m[0].length, '0');
        add('constant', inicio, fim, largura(n + 1));
        if (n >= 1) add('constant', inicio, fim, largura(n - 1));
      }
    }
    // conditions: the first conjunct of a where/if/elsif/when → true; a further `and …` dropped
    if (w && INICIO_CONDICAO.has(w) && tk[k + 1] && !whenDeValor.has(k)) {
      const fim = fimCondicao(k + 1);
      if (fim > k + 1 && !(fim === k + 2 && palavra(tk[k + 1]) === 'true')) add('condition', tk[k + 1]!.inicio, tk[fim - 1]!.fim, 'true');
    } else if (w === 'and' && !andDeBetween.has(k) && tk[k + 1]) {
      const fim = fimCondicao(k + 1);
      const antes = todos.findLast((x) => x.fim <= t.inicio);
      if (fim > k + 1) add('condition', antes?.tipo === 'ws' ? antes.inicio : t.inicio, tk[fim - 1]!.fim, '');
    }
  });

  out.sort((a, b) => a.inicio - b.inicio || a.fim - b.fim);
  const linhaDe = (offset: number) => sql.slice(0, offset).split('\n').length;
  return out.map((m, i) => ({ id: i + 1, linha: linhaDe(m.inicio), ...m }));
}

/** The file's text with mutant `m` applied. */
export function aplicar(sql: string, m: Mutante): string {
  return sql.slice(0, m.inicio) + m.substituto + sql.slice(m.fim);
}

/** At most `max` mutants, spread evenly over the file (every rule and part of it keeps a share). */
export function limitar(lista: readonly Mutante[], max: number): Mutante[] {
  if (!(max > 0) || lista.length <= max) return [...lista];
  const out: Mutante[] = [];
  for (let i = 0; i < max; i++) out.push(lista[Math.floor((i * lista.length) / max)]!);
  return out;
}
