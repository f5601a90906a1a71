/**
 * A snapshot of every public.bi_* table, to compare two runs: per table the row count and an
 * md5 of its rows (sorted), without what differs between runs of the same data — ids drawn
 * from sequences or uuid, timestamps, processing ids.
 */
import type pg from 'pg';
import type { TestDatabase } from './db.js';
import { startPipeline } from './pipeline.js';

export type Retrato = Record<string, { linhas: number; md5: string }>;

export async function retratoBi(pool: pg.Pool): Promise<Retrato> {
  const { rows: tabelas } = await pool.query<{ t: string }>(`
    select c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'bi\\_%' order by 1`);
  const out: Retrato = {};
  for (const { t } of tabelas) {
    const { rows: cols } = await pool.query<{ c: string }>(`
      select quote_ident(column_name) as c from information_schema.columns
       where table_schema = 'public' and table_name = $1
         and data_type not in ('uuid', 'timestamp with time zone', 'timestamp without time zone')
         and coalesce(column_default, '') not like 'nextval%' and is_identity = 'NO' and column_name <> 'id'
       order by ordinal_position`, [t]);
    const lista = cols.map((c) => c.c).join(', ');
    const { rows } = await pool.query<{ n: number; m: string }>(
      `select count(*)::int as n, coalesce(md5(string_agg(x, '|' order by x)), '') as m from (select (${lista ? `row(${lista}, 0)` : 'row(0)'})::text as x from public.${t}) s`);
    out[t] = { linhas: rows[0]!.n, md5: rows[0]!.m };
  }
  return out;
}

/**
 * The snapshot of a clean run: `arquivo` received as `nome` and processed in-process (storage
 * mode PSQL) on `db`, a database of its own; what a run interrupted by a fault must end equal to.
 */
export async function retratoLimpo(db: TestDatabase, nome: string, arquivo: Buffer): Promise<Retrato> {
  const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' } });
  try {
    const res = await p.upload(nome, arquivo, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    if (res.statusCode !== 202) throw new Error(`execução limpa: ${res.statusCode} ${res.body}`);
    await p.drain(60_000);
    const { rows } = await db.pool.query(`select status from xls_processamento`);
    if (rows.length !== 1 || rows[0].status !== 'SUCESSO') throw new Error(`execução limpa sem SUCESSO: ${JSON.stringify(rows)}`);
  } finally {
    await p.close();
  }
  return retratoBi(db.pool);
}
