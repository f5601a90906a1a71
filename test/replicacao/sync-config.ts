/**
 * Checks the sync engine's configuration (sync-engine/sync-rules.yaml) against a live
 * schema with the engine's own parser (@powersync/service-sync-rules): every table and
 * column it names must exist, and every bi_* table must be in a bucket.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { SqlSyncRules, StaticSchema } from '@powersync/service-sync-rules';
import { projectRoot } from '../../src/paths.js';

export const SYNC_RULES_PATH = join(projectRoot, 'sync-engine', 'sync-rules.yaml');

export interface DataQuery { bucket: string; table: string; schema: string; columns: string[]; sql: string }

export interface Analise {
  errors: Array<{ message: string; type: string }>;
  queries: DataQuery[];
  priorities: Record<string, number | undefined>;
  biTables: string[];
}

export async function analisar(pool: pg.Pool, yaml = readFileSync(SYNC_RULES_PATH, 'utf8')): Promise<Analise> {
  const { rows } = await pool.query<{ table_name: string; column_name: string; udt_name: string }>(
    `select c.table_name, c.column_name, c.udt_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`);
  const tables = new Map<string, Array<{ name: string; pg_type: string }>>();
  for (const r of rows) {
    if (!tables.has(r.table_name)) tables.set(r.table_name, []);
    tables.get(r.table_name)!.push({ name: r.column_name, pg_type: r.udt_name });
  }
  const schema = new StaticSchema([{ tag: 'default', schemas: [{ name: 'public',
    tables: [...tables].map(([name, columns]) => ({ name, columns })) }] }]);
  const parsed = SqlSyncRules.fromYaml(yaml, { defaultSchema: 'public', schema, throwOnError: false });
  const queries: DataQuery[] = [];
  const priorities: Record<string, number | undefined> = {};
  for (const b of parsed.config.bucketSources as unknown as Array<{
    name: string;
    dataQueries?: Array<{ sql: string; columns: unknown[]; sourceTable: { tablePattern: string; schema: string } }>;
    globalParameterQueries?: Array<{ priority?: number }>;
  }>) {
    priorities[b.name] = b.globalParameterQueries?.[0]?.priority;
    for (const q of b.dataQueries ?? []) {
      const rep = (parsed.config.debugRepresentation() as Array<{ name: string; data_queries?: Array<{ sql: string; columns: string[] }> }>)
        .find((d) => d.name === b.name)?.data_queries?.find((d) => d.sql === q.sql);
      queries.push({ bucket: b.name, table: q.sourceTable.tablePattern, schema: q.sourceTable.schema, columns: rep?.columns ?? [], sql: q.sql });
    }
  }
  return {
    errors: parsed.errors.map((e) => ({ message: e.message, type: String(e.type) })),
    queries,
    priorities,
    biTables: [...tables.keys()].filter((t) => t.startsWith('bi_')).sort(),
  };
}
