/**
 * The sync engine's document store, dropped by the reset step DROP_DOCSTORE: a MongoDB
 * database (`dropDatabase`) or a Postgres storage schema (`drop schema … cascade`), as
 * REPLICATOR_DOCSTORE_URL says. Nothing else is touched.
 */
import pg from 'pg';
import { MongoClient } from 'mongodb';
import type { DocstoreAlvo } from '../config.js';

export async function dropDocstore(alvo: DocstoreAlvo, timeoutMs: number): Promise<string> {
  if (alvo.kind === 'postgres') {
    const c = new pg.Client({ connectionString: alvo.url, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs,
      application_name: 'bi-comercial-replicacao' });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: number }>('select count(*)::int n from pg_namespace where nspname = $1', [alvo.schema]);
      await c.query(`drop schema if exists ${pg.escapeIdentifier(alvo.schema)} cascade`);
      return rows[0]!.n > 0 ? `schema ${alvo.schema} removido` : `schema ${alvo.schema} não existia`;
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  const client = new MongoClient(alvo.url, {
    serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs,
  });
  try {
    await client.connect();
    await client.db(alvo.database).dropDatabase();
    return `banco MongoDB ${alvo.database} removido`;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Where the docstore is, without credentials (for messages). */
export function descreverDocstore(alvo: DocstoreAlvo): string {
  const u = new URL(alvo.url);
  const onde = `${u.hostname}${u.port ? `:${u.port}` : ''}`;
  return alvo.kind === 'postgres' ? `Postgres ${onde}${u.pathname}, schema ${alvo.schema}` : `MongoDB ${onde}, banco ${alvo.database}`;
}
