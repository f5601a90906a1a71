/**
 * Where the PostgreSQL 15 binaries are (postgres, pg_dump, pg_recvlogical): PG_BINDIR, or
 * Debian's /usr/lib/postgresql/<version>/bin, newest first after 15.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function findPgBinDir(): string {
  const override = process.env.PG_BINDIR;
  if (override) return override;
  const candidates = ['/usr/lib/postgresql/15/bin'];
  if (existsSync('/usr/lib/postgresql')) {
    for (const v of readdirSync('/usr/lib/postgresql').sort().reverse()) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  const found = candidates.find((d) => existsSync(join(d, 'postgres')));
  if (!found) throw new Error('PostgreSQL 15 não encontrado: instale o pacote Debian postgresql-15');
  return found;
}
