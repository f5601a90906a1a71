// The stand-in engines' storage (test/harness/sync-engine.ts, test/harness/motor-substituto.mjs):
// what the real engine leaves in its storage schema `powersync` once its initial copy is done,
// the rows the reset's parity check reads — powersync.sync_rules ACTIVE with snapshot_done and
// a checkpoint, powersync.source_tables, one PUT per served row in powersync.bucket_data —
// written from the source database's rows under the sync configuration's queries
// (app.replicacao_consulta, or the ones given: the configuration file the stand-in was started with). `faltando` leaves that many rows of the first table out (an
// engine that lacks rows). Plain JavaScript: the stand-in runs on a bare node.
import pg from 'pg';
import { parse } from 'yaml';

/** The data queries of a sync configuration file (bucket_definitions), as {tabela, bucket, filtro}. */
export function consultasDoArquivo(texto) {
  const out = [];
  for (const [bucket, def] of Object.entries(parse(texto).bucket_definitions ?? {})) {
    for (const q of def.data ?? []) {
      const m = /^\s*select\s+.+?\s+from\s+(bi_[a-z0-9_]+)(?:\s+where\s+(.+?))?\s*$/is.exec(q);
      if (m) out.push({ tabela: m[1], bucket, filtro: m[2] ?? null });
    }
  }
  return out.sort((a, b) => (a.tabela < b.tabela ? -1 : 1));
}

export async function escreverArmazenamento(sourceUrl, storageUrl, slot, faltando = 0, consultasDadas = null) {
  const src = new pg.Client({ connectionString: sourceUrl });
  const dst = new pg.Client({ connectionString: storageUrl });
  await Promise.all([src.connect(), dst.connect()]);
  try {
    const consultas = consultasDadas
      ?? (await src.query('select tabela, bucket, filtro from app.replicacao_consulta order by tabela')).rows;
    await dst.query(`drop schema if exists powersync cascade; create schema powersync;
      create table powersync.sync_rules (id int primary key, state text, snapshot_done boolean, last_checkpoint bigint,
        last_checkpoint_lsn text, slot_name text, last_fatal_error text);
      create table powersync.source_tables (group_id int, table_name text, snapshot_done boolean);
      create table powersync.bucket_data (group_id int, bucket_name text, op_id bigint, op text, table_name text, row_id text,
        primary key (group_id, bucket_name, op_id));`);
    let op = 0;
    for (const [i, c] of consultas.entries()) {
      const { rows } = await src.query(`select id::text from public.${pg.escapeIdentifier(c.tabela)} where ${c.filtro ?? 'true'} order by id`);
      const ids = rows.map((r) => r.id).slice(i === 0 ? faltando : 0);
      await dst.query('insert into powersync.source_tables values (1, $1, true)', [c.tabela]);
      if (ids.length) {
        await dst.query(`insert into powersync.bucket_data select 1, $1, $2 + g.n, 'PUT', $3, g.id from unnest($4::text[]) with ordinality g(id, n)`,
          [`1#${c.bucket}[]`, op, c.tabela, ids]);
      }
      op += ids.length;
    }
    await dst.query(`insert into powersync.sync_rules values (1, 'ACTIVE', true, $1, '0/0', $2, null)`, [op, slot]);
  } finally {
    await Promise.all([src.end(), dst.end()]);
  }
}
