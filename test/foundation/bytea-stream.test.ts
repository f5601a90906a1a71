/** One bytea value in and out by COPY binary, streamed: byte for byte, across many chunks; null and empty. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { copyByteaFromFile, copyByteaOut } from '../../src/db/bytea-stream.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

async function collect(it: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(c);
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

describe('bytea by COPY binary', () => {
  it('a 5 MB value goes in from a file and comes back out identical, in many chunks', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 7);
    const path = join(mkdtempSync(join(tmpdir(), 'bi-bytea-')), 'v');
    writeFileSync(path, data);
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('create temp table t (b bytea) on commit drop');
      await copyByteaFromFile(client, 't', path, data.length);
      const { rows } = await client.query('select octet_length(b)::int n, md5(b) m from t');
      expect(rows).toEqual([{ n: data.length, m: (await import('node:crypto')).createHash('md5').update(data).digest('hex') }]);
      const out = await collect(copyByteaOut(client, 'select b from t'));
      expect(Buffer.compare(out.bytes, data)).toBe(0);
      expect(out.chunks).toBeGreaterThan(1);
      await client.query('commit');
    } finally {
      client.release();
    }
  });

  it('a size that does not match the file is refused; null, empty and no row come out empty', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'bi-bytea-')), 'v');
    writeFileSync(path, Buffer.from('abc'));
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('create temp table t (b bytea) on commit drop');
      await expect(copyByteaFromFile(client, 't', path, 4)).rejects.toThrow(/3 bytes, não 4/);
      await client.query('rollback');
      expect((await collect(copyByteaOut(client, 'select null::bytea'))).bytes.length).toBe(0);
      expect((await collect(copyByteaOut(client, `select ''::bytea`))).bytes.length).toBe(0);
      expect((await collect(copyByteaOut(client, 'select null::bytea where false'))).bytes.length).toBe(0);
      expect((await collect(copyByteaOut(client, `select '\\x00ff10'::bytea`))).bytes).toEqual(Buffer.from([0, 255, 16]));
    } finally {
      client.release();
    }
  });
});
