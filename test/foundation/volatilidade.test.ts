/**
 * Every SQL function states its volatility in its file, and the catalog agrees.
 *
 * pg_proc always has a volatility (VOLATILE when the text says nothing), so the catalog alone
 * cannot tell "chosen" from "forgotten": the rule is read from the files' text. Each function's
 * header (from `create … function` to `AS $`) names exactly one of IMMUTABLE, STABLE, VOLATILE,
 * and it is the one pg_proc holds. A procedure cannot carry one (PostgreSQL refuses it): its
 * header names none. Two sanity checks over the bodies catch the wrong choices the database does
 * not refuse: a STABLE or IMMUTABLE function calls no VOLATILE function (ours or the catalog's:
 * nextval, clock_timestamp, set_config…); an IMMUTABLE one reads no table of public/app and
 * calls nothing STABLE (now(), current_setting, a STABLE function of ours).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { listRepeatables } from '../../src/db/repeatable.js';

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

const NOMES = { i: 'IMMUTABLE', s: 'STABLE', v: 'VOLATILE' } as const;

/** The volatilities a file's CREATE header declares (the words at the start of a header line). */
function volatilidadesDeclaradas(sql: string): string[] {
  const cab = /\bcreate\s+(?:or\s+replace\s+)?(?:function|procedure)\b[\s\S]*?\bAS\s+\$/i.exec(sql)?.[0] ?? '';
  return [...cab.matchAll(/^\s*(IMMUTABLE|STABLE|VOLATILE)\b/gim)].map((m) => m[1]!.toUpperCase());
}

/** Calls of `nome(` in a body, qualified with `esquema.` or unqualified (not another schema's). */
function chama(corpo: string, esquema: string, nome: string): boolean {
  const re = new RegExp(`(?:^|[^\\w.])(?:(\\w+)\\.)?${nome}\\s*\\(`, 'g');
  for (const m of corpo.matchAll(re)) if (m[1] === undefined || m[1] === esquema) return true;
  return false;
}

/** A body without its comments and string literals (a message may say "now(" or "from app.x"). */
function semTexto(corpo: string): string {
  return corpo.replace(/--[^\n]*/g, '').replace(/'(?:[^']|'')*'/g, "''");
}

interface Funcao { esquema: string; nome: string; sig: string; kind: string; vol: 'i' | 's' | 'v'; corpo: string }

async function funcoes(): Promise<Funcao[]> {
  const { rows } = await client.query<Funcao>(`
    select n.nspname esquema, p.proname nome, p.oid::regprocedure::text sig, p.prokind kind,
           p.provolatile vol, p.prosrc corpo
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname in ('public', 'app') and p.prokind in ('f', 'p')
       and not exists (select from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`);
  return rows;
}

describe('volatility, declared', () => {
  it('every function declares exactly one volatility in its file, the one the catalog holds; no procedure declares one', async () => {
    const arquivos = new Map(listRepeatables().map((f) => [f.arquivo, f.sql]));
    const fs = await funcoes();
    expect(fs.length).toBeGreaterThan(100);
    const erros: string[] = [];
    for (const f of fs) {
      const sql = arquivos.get(`functions/${f.esquema}.${f.nome}.sql`);
      if (sql === undefined) { erros.push(`${f.sig}: sem arquivo`); continue; }
      const decl = volatilidadesDeclaradas(sql);
      if (f.kind === 'p') {
        if (decl.length) erros.push(`${f.sig}: uma procedure não declara volatilidade`);
      } else if (decl.length !== 1) {
        erros.push(`${f.sig}: declare IMMUTABLE, STABLE ou VOLATILE no cabeçalho (achei ${decl.length})`);
      } else if (decl[0] !== NOMES[f.vol]) {
        erros.push(`${f.sig}: o arquivo diz ${decl[0]}, o catálogo ${NOMES[f.vol]}`);
      }
    }
    expect(erros).toEqual([]);
  });

  it('the scan itself can fail: a header without one, or with two, is seen', () => {
    const cab = (v: string) => `create or replace function app.x()\n returns int\n language sql\n${v} set search_path to pg_catalog\nAS $function$ select 1 $function$;\n-- STABLE\n`;
    expect(volatilidadesDeclaradas(cab(''))).toEqual([]);
    expect(volatilidadesDeclaradas(cab(' IMMUTABLE PARALLEL SAFE\n'))).toEqual(['IMMUTABLE']);
    expect(volatilidadesDeclaradas(cab(' STABLE\n VOLATILE\n'))).toEqual(['STABLE', 'VOLATILE']);
  });
});

describe('volatility, sound', () => {
  it('a STABLE or IMMUTABLE function calls no VOLATILE function; an IMMUTABLE one reads no table and calls nothing STABLE', async () => {
    const fs = await funcoes();
    const { rows: cat } = await client.query<{ nome: string; vol: string }>(`
      select distinct p.proname nome, p.provolatile vol from pg_proc p
       where p.pronamespace = 'pg_catalog'::regnamespace and p.prokind = 'f' and p.provolatile in ('s', 'v')
         -- format, jsonb_build_object…: STABLE only because an argument of any type may print
         -- by a setting (a timestamptz by TimeZone); the clock is checked on its own below
         and not (p.provolatile = 's' and exists (select from pg_proc o where o.proname = p.proname
                   and o.pronamespace = p.pronamespace and o.provariadic = '"any"'::regtype))
         and not exists (select from pg_proc o where o.proname = p.proname and o.pronamespace = p.pronamespace
                          and o.provolatile = 'i')`);
    const { rows: tabelas } = await client.query<{ esquema: string; nome: string }>(`
      select n.nspname esquema, c.relname nome from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname in ('public', 'app') and c.relkind in ('r', 'v', 'm', 'p')`);
    const volateis = [
      ...fs.filter((f) => f.vol === 'v').map((f) => ({ esquema: f.esquema, nome: f.nome })),
      ...cat.filter((c) => c.vol === 'v').map((c) => ({ esquema: 'pg_catalog', nome: c.nome })),
    ];
    const estaveis = [
      ...fs.filter((f) => f.vol === 's').map((f) => ({ esquema: f.esquema, nome: f.nome })),
      ...cat.filter((c) => c.vol === 's').map((c) => ({ esquema: 'pg_catalog', nome: c.nome })),
    ];
    // to_char of a number with the fixed separators ',' and '.' (never G/D/L) reads no locale
    const permitidas: Record<string, string[]> = { 'app.xls_brl(numeric)': ['to_char'] };
    const erros: string[] = [];
    for (const f of fs.filter((x) => x.vol !== 'v')) {
      const corpo = semTexto(f.corpo);
      const ok = permitidas[f.sig] ?? [];
      for (const v of volateis) if (chama(corpo, v.esquema, v.nome)) erros.push(`${f.sig} (${NOMES[f.vol]}) chama ${v.esquema}.${v.nome}, VOLATILE`);
      if (f.vol !== 'i') continue;
      for (const s of estaveis) if (!ok.includes(s.nome) && chama(corpo, s.esquema, s.nome)) erros.push(`${f.sig} (IMMUTABLE) chama ${s.esquema}.${s.nome}, STABLE`);
      if (/\b(now|current_date|current_timestamp|localtimestamp|current_time|localtime)\b/i.test(corpo)) erros.push(`${f.sig} (IMMUTABLE) lê o relógio`);
      for (const t of tabelas) {
        if (new RegExp(`\\b(from|join|update|into)\\s+(${t.esquema}\\.)?${t.nome}\\b`, 'i').test(corpo)) erros.push(`${f.sig} (IMMUTABLE) lê ${t.esquema}.${t.nome}`);
      }
    }
    expect(erros).toEqual([]);
  });

  it('the body checks can fail: a VOLATILE call, a clock, a table are seen', () => {
    expect(chama(semTexto("select nextval('s')"), 'pg_catalog', 'nextval')).toBe(true);
    expect(chama(semTexto("select app.enqueue('k', '{}')"), 'app', 'enqueue')).toBe(true);
    expect(chama(semTexto("select other.enqueue('k')"), 'app', 'enqueue')).toBe(false);
    expect(chama(semTexto("raise exception 'chame nextval(x)'"), 'pg_catalog', 'nextval')).toBe(false);
    expect(chama(semTexto('-- now()\nselect 1'), 'pg_catalog', 'now')).toBe(false);
  });
});
