/** The one connection pool of the process. */
import pg from 'pg';

// numeric and bigint come back as strings by default; counts (bigint) are safe as numbers here.
pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;

export function createPool(databaseUrl: string, max = 10, applicationName = 'bi-comercial'): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, application_name: applicationName });
  // an idle client losing its connection must not crash the process
  pool.on('error', () => undefined);
  // nor a checked-out one (a merge's transaction, a COPY) when the server restarts: the pool
  // listens only while a client is idle, and an 'error' nobody listens to ends the process.
  // The query in flight still fails with the error, and the caller handles it.
  pool.on('connect', (client) => { client.on('error', () => undefined); });
  return pool;
}
