import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { copyRows, copyText } from '../../src/db/copy.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('COPY writer', () => {
  it('escapes COPY text specials and nulls', () => {
    expect(copyText(null)).toBe('\\N');
    expect(copyText('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(copyText('\\N')).toBe('\\\\N');
  });

  it('streams many rows, values arriving intact', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('create temp table stg (linha int, texto text, valor numeric, dia date) on commit drop');
      async function* gen() {
        yield ['1', 'tab\there', '-1234.56', '2026-11-15'] as const;
        yield ['2', null, null, null] as const;
        yield ['3', 'barra \\ e "aspas" e quebra\nlinha', '0.1', '1904-01-01'] as const;
        for (let i = 4; i <= 20_000; i += 1) yield [String(i), `linha ${i}`, String(i / 100), '2026-01-31'] as const;
      }
      const n = await copyRows(client, 'stg', ['linha', 'texto', 'valor', 'dia'], gen());
      expect(n).toBe(20_000);
      const { rows } = await client.query(`select linha, texto, valor::text, dia::text from stg where linha <= 3 order by linha`);
      expect(rows).toEqual([
        { linha: 1, texto: 'tab\there', valor: '-1234.56', dia: '2026-11-15' },
        { linha: 2, texto: null, valor: null, dia: null },
        { linha: 3, texto: 'barra \\ e "aspas" e quebra\nlinha', valor: '0.1', dia: '1904-01-01' },
      ]);
      expect((await client.query('select count(*)::int n from stg')).rows[0].n).toBe(20_000);
      await client.query('commit');
    } finally {
      client.release();
    }
  });

  it('a bad value aborts the COPY with the database error', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('create temp table stg2 (valor numeric) on commit drop');
      async function* gen() { yield ['abc'] as const; }
      await expect(copyRows(client, 'stg2', ['valor'], gen())).rejects.toMatchObject({ code: '22P02' });
      await client.query('rollback');
    } finally {
      client.release();
    }
  });
});
