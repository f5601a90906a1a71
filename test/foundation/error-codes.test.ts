// @lane unit
/**
 * The rule of docs/error-codes.md, held over db/functions: a raised code's three digits are an
 * HTTP status, every raised code has a row in the registry, and a HINT is a sentence for a
 * person (a string literal), never data computed at run time (that goes in the DETAIL).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const dir = join(root, 'db', 'functions');
const arquivos = readdirSync(dir).filter((f) => f.endsWith('.sql')).map((f) => ({ f, sql: readFileSync(join(dir, f), 'utf8') }));
const registro = readFileSync(join(root, 'docs', 'error-codes.md'), 'utf8');

/** The codes a text raises (`errcode = 'AA999'`). */
function codigos(sql: string): string[] {
  return [...sql.matchAll(/errcode\s*=\s*'([A-Z0-9]{5})'/g)].map((m) => m[1]!);
}

/** The HINTs whose value is not one string literal (a variable, a cast, a concatenation…). */
function hintsComDados(sql: string): string[] {
  const out: string[] = [];
  for (const m of sql.matchAll(/\bhint\s*=\s*/gi)) {
    const resto = sql.slice(m.index! + m[0].length);
    if (!/^'(?:[^']|'')*'\s*[,;]/.test(resto)) out.push(resto.slice(0, resto.search(/;|$/)).trim());
  }
  return out;
}

/** A code's digits are a status: an area's two letters, then a 4xx or 5xx that HTTP names. */
function digitosSaoStatus(code: string): boolean {
  const m = /^[A-Z]{2}([45]\d\d)$/.exec(code);
  return !!m && STATUS_CODES[Number(m[1])] !== undefined;
}

describe('error codes (docs/error-codes.md)', () => {
  it('every code raised in db/functions has an HTTP status for digits and a row in the registry', () => {
    const todos = new Set(arquivos.flatMap((a) => codigos(a.sql)));
    expect(todos.size).toBeGreaterThan(20);
    expect([...todos].filter((c) => !digitosSaoStatus(c))).toEqual([]);
    expect([...todos].filter((c) => !registro.includes(`\`${c}\``))).toEqual([]);
  });

  it('no HINT carries data: only a string literal for a person', () => {
    const erros = arquivos.flatMap((a) => hintsComDados(a.sql).map((h) => `${a.f}: hint = ${h}`));
    expect(erros).toEqual([]);
  });

  it('the checks can fail', () => {
    expect(digitosSaoStatus('XL409')).toBe(true);
    expect(digitosSaoStatus('XL428')).toBe(true);
    expect(digitosSaoStatus('XL499')).toBe(false);
    expect(digitosSaoStatus('XL4O9')).toBe(false);
    expect(codigos("using errcode = 'XL409', detail = 'x'")).toEqual(['XL409']);
    expect(hintsComDados("using errcode = 'XL409', detail = 'conflito', hint = v_conflitos::text;")).toEqual(['v_conflitos::text']);
    expect(hintsComDados("using hint = 'faça ''isso'' primeiro', errcode = 'XL409';")).toEqual([]);
    expect(hintsComDados("using errcode = 'XL424',\n  hint = 'o cadastro é criado pelo relatório mestre';")).toEqual([]);
  });
});
