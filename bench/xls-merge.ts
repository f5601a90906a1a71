/**
 * `npm run bench:xls-merge [-- <rows>] [--chunk N]`: times the RELATORIO18 merge (xls_merge) on a
 * throwaway Postgres and prints its figures: first import, identical re-import, 1% changed,
 * scope deletes, and — for comparison — a bare `INSERT … ON CONFLICT DO UPDATE WHERE … IS
 * DISTINCT FROM` of the same identical rows. WAL = bytes of WAL the statement generated.
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';
import { xlsConcluir, xlsDefinirTipo, xlsIniciar, xlsMerge, xlsMergeChunk, xlsReceber, xlsStagingPreparar } from '../src/db/xls.js';

const ROWS = Number(process.argv[2] ?? 200_000);
/** --chunk N: COPY in lots of N rows, each followed by xls_merge_chunk (as the service does, without the reader alongside). */
const flag = process.argv.includes('--chunk') ? '--chunk' : '--lote'; // --lote: the legacy name
const LOTE = process.argv.includes(flag) ? Number(process.argv[process.argv.indexOf(flag) + 1]) : 0;
const MOV = Math.round(ROWS / 10);
const WORKER = 'bench';

function fatRow(i: number, changed: boolean): string[] {
  return [String(i + 2), String(i % 20).padStart(2, '0'), String(100000 + i), '1', String(1 + (i % 3)), `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`,
    `C${i % 5000}`, `Cliente ${i % 5000}`, `V${i % 80}`, `Vendedor ${i % 80}`, `P${i % 40}`, `Produto ${i % 40}`,
    '1000.5', '5.899', changed ? '9999.99' : String(5902.45 + (i % 100)),
    i % 10 === 0 ? `ABC${String(1000 + (i % 3000))}` : '\\N', i % 10 === 0 ? '2019/2020' : '\\N', i % 10 === 0 ? 'Scania' : '\\N'];
}
function movRow(i: number): string[] {
  return [String(i + 2), String(i % 20).padStart(2, '0'), `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`, String(700000 + i), `1.1.${i % 50}`,
    'Conta', `Histórico ${i}`, String(i % 997), '0', '\\N', '\\N'];
}

async function copy(c: pg.PoolClient, tabela: string, colunas: string[], lines: string[][]): Promise<void> {
  const sql = `copy ${tabela.split('.').map((p) => `"${p}"`).join('.')} (${colunas.map((x) => `"${x}"`).join(', ')}) from stdin`;
  async function* gen() {
    let buf = '';
    for (const l of lines) { buf += l.join('\t') + '\n'; if (buf.length > 1 << 16) { yield buf; buf = ''; } }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(gen()), c.query(copyFrom(sql)));
}

async function walNow(c: pg.PoolClient): Promise<string> {
  return (await c.query('select pg_current_wal_lsn()::text l')).rows[0].l;
}
async function walSince(c: pg.PoolClient, from: string): Promise<number> {
  return Number((await c.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint n', [from])).rows[0].n);
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

async function importar(pool: pg.Pool, label: string, fat: string[][], mov: string[][]) {
  const content = `${label}-${Math.random()}`;
  const r = await xlsReceber(pool, { arquivo: `${label}.xlsx`, checksum: createHash('sha256').update(content).digest('hex'), tamanhoBytes: 1, arquivoBytes: Buffer.from(content) });
  await xlsIniciar(pool, r.processamentoId!, WORKER);
  await xlsDefinirTipo(pool, r.processamentoId!, WORKER, 'RELATORIO18');
  const c = await pool.connect();
  try {
    await c.query('begin');
    const [tf, tm] = await xlsStagingPreparar(c, 'RELATORIO18');
    const t0 = performance.now();
    const meta = { periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' };
    const lsn = await walNow(c);
    for (const [t, rows] of [[tf!, fat], [tm!, mov]] as const) {
      if (!LOTE) { await copy(c, t.tabela, t.colunas, rows); continue; }
      for (let i = 0; i < rows.length; i += LOTE) {
        await copy(c, t.tabela, t.colunas, rows.slice(i, i + LOTE));
        await xlsMergeChunk(c, r.processamentoId!, meta);
      }
    }
    const tCopy = performance.now() - t0;
    const t1 = performance.now();
    const m = await xlsMerge(c, r.processamentoId!, meta);
    const tMerge = performance.now() - t1;
    const wal = await walSince(c, lsn);
    await xlsConcluir(c, r.processamentoId!, WORKER);
    await c.query('commit');
    console.log(`${label.padEnd(36)} COPY${LOTE ? '+chunks' : ''} ${(tCopy / 1000).toFixed(2)} s   merge ${(tMerge / 1000).toFixed(2)} s   WAL ${mb(wal).padStart(8)}   `
      + `enviadas ${m.linhasEnviadas}  efetivas ${m.linhasEfetivas}  removidas ${m.linhasRemovidas}`);
  } finally {
    c.release();
  }
}

async function bareOnConflict(pool: pg.Pool, fat: string[][]) {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const [tf] = await xlsStagingPreparar(c, 'RELATORIO18');
    await copy(c, tf!.tabela, tf!.colunas, fat);
    await c.query('analyze pg_temp.xls_stg_faturamento');
    const lsn = await walNow(c);
    const t = performance.now();
    const res = await c.query(`insert into bi_faturamento as t (filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto, quantidade, valor_unitario, valor_total, placa)
      select filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto, quantidade, valor_unitario, valor_total, upper(placa) from pg_temp.xls_stg_faturamento
      order by filial, nota_fiscal, serie, item
      on conflict (filial, nota_fiscal, serie, item) do update set emissao = excluded.emissao, cliente = excluded.cliente, vendedor = excluded.vendedor,
        produto = excluded.produto, quantidade = excluded.quantidade, valor_unitario = excluded.valor_unitario, valor_total = excluded.valor_total, placa = excluded.placa
      where (t.emissao, t.cliente, t.vendedor, t.produto, t.quantidade, t.valor_unitario, t.valor_total, t.placa)
        is distinct from (excluded.emissao, excluded.cliente, excluded.vendedor, excluded.produto, excluded.quantidade, excluded.valor_unitario, excluded.valor_total, excluded.placa)`);
    const ms = performance.now() - t;
    const wal = await walSince(c, lsn);
    await c.query('rollback');
    console.log(`${'baseline: bare ON CONFLICT, identical'.padEnd(36)} ${' '.repeat(12)} upsert ${(ms / 1000).toFixed(2)} s   WAL ${mb(wal).padStart(8)}   rows written ${res.rowCount}`);
  } finally {
    c.release();
  }
}

async function main() {
  const cluster = await startTestCluster();
  try {
    await prepareDatabases(cluster);
    await recreateDatabase(cluster.adminUrl, 'bench_xls', TEMPLATE_DB);
    const pool = new pg.Pool({ connectionString: cluster.urlFor('bench_xls'), max: 4 });
    await pool.query(`insert into app.worker (id, hostname, pid) values ($1, 'bench', 0)`, [WORKER]);
    const fat = Array.from({ length: ROWS }, (_, i) => fatRow(i, false));
    const mov = Array.from({ length: MOV }, (_, i) => movRow(i));
    console.log(`RELATORIO18 merge, ${ROWS} billing rows + ${MOV} movement rows (PostgreSQL ${(await pool.query('show server_version')).rows[0].server_version})`);
    await importar(pool, 'first import', fat, mov);
    await pool.query('vacuum analyze bi_faturamento, bi_movimento');
    await importar(pool, 'identical re-import', fat, mov);
    await importar(pool, '1% changed', fat.map((r, i) => (i % 100 === 0 ? fatRow(i, true) : r)), mov);
    await importar(pool, '1% back + 1% absent (scope delete)', fat.filter((_, i) => i % 100 !== 1), mov.filter((_, i) => i % 100 !== 1));
    await importar(pool, 'identical re-import again', fat.filter((_, i) => i % 100 !== 1), mov.filter((_, i) => i % 100 !== 1));
    // last: its row locks (rolled back) leave every tuple to be re-checked by the next scan
    await bareOnConflict(pool, fat.filter((_, i) => i % 100 !== 1));
    await pool.end();
  } finally {
    await cluster.stop();
  }
}

void main();
