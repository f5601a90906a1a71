/** The sync engine's configuration, parsed by the engine's own parser against the migrated schema. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { analisar, SYNC_RULES_PATH } from './sync-config.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('sync-engine/sync-rules.yaml', () => {
  it('every table and column it names exists in the migrated schema (engine parser, no error or warning)', async () => {
    const a = await analisar(db.pool);
    expect(a.errors).toEqual([]);
    expect(a.queries.length).toBeGreaterThan(5);
    for (const q of a.queries) {
      expect(q.schema).toBe('public');
      expect(q.table, q.sql).toMatch(/^bi_/);
      expect(q.columns, q.sql).toContain('id');
    }
  });

  it('every bi_* table of the schema is in a bucket, and nothing else is', async () => {
    const a = await analisar(db.pool);
    const nomeadas = new Set(a.queries.map((q) => q.table));
    expect(a.biTables.filter((t) => !nomeadas.has(t)), 'tabelas bi_* fora da configuração do motor').toEqual([]);
    expect([...nomeadas].filter((t) => !t.startsWith('bi_'))).toEqual([]);
  });

  it('bi_configuracao is alone at priority 0; bi_titulo only where atual', async () => {
    const a = await analisar(db.pool);
    const conf = a.queries.filter((q) => q.table === 'bi_configuracao');
    expect(conf).toHaveLength(1);
    expect(a.priorities[conf[0]!.bucket]).toBe(0);
    expect(a.queries.filter((q) => q.bucket === conf[0]!.bucket).map((q) => q.table)).toEqual(['bi_configuracao']);
    const outros = Object.entries(a.priorities).filter(([b]) => b !== conf[0]!.bucket);
    for (const [, p] of outros) expect(p === undefined || p > 0).toBe(true);
    const titulo = a.queries.filter((q) => q.table === 'bi_titulo');
    expect(titulo).toHaveLength(1);
    expect(titulo[0]!.sql).toMatch(/\bWHERE\s+atual\s*=\s*true\s*$/i);
  });

  it('a migration renaming a column a bucket reads makes the check fail', async () => {
    const c = await db.pool.connect();
    try {
      await c.query('begin');
      await c.query('alter table bi_vendedor rename column nome to nome_vendedor');
      // analisar reads the schema through this transaction's connection
      const a = await analisar({ query: c.query.bind(c) } as never);
      expect(a.errors.map((e) => e.message)).toContain('Column not found: nome');
      await c.query('alter table bi_configuracao rename to bi_config');
      const b = await analisar({ query: c.query.bind(c) } as never);
      expect(b.errors.map((e) => e.message)).toContain('Table public.bi_configuracao not found');
      expect(b.biTables).toContain('bi_config');
    } finally {
      await c.query('rollback');
      c.release();
    }
  });

  it('a column missing from a WHERE clause is caught too', async () => {
    const yaml = readFileSync(SYNC_RULES_PATH, 'utf8').replace('FROM bi_vendedor', 'FROM bi_vendedor WHERE inexistente = 1');
    const a = await analisar(db.pool, yaml);
    expect(a.errors.map((e) => e.message)).toContain('Column not found: inexistente');
  });
});
