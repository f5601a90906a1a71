// @bench-tiny 3
// @bench-prints per chunk call
/**
 * `npm run bench -- chunk-overhead [chunks]`: the fixed cost of one chunk of the merge, the
 * figure that decides between SQL generated per transaction (EXECUTE, planned at every call)
 * and static functions generated from the description. Merges one RELATORIO18 and one META
 * file in chunks of a single row (default 300 chunks) and prints the mean time per chunk call
 * and the time of the closing xls_merge. Works on the trees before the declarative merge too (it calls
 * xls_merge_lote when xls_merge_chunk does not exist).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';

const CHUNKS = Number(process.argv[2] ?? 300);
const WORKER = 'bench';

async function run(pool: pg.Pool, tipo: string, fn: string, tabela: string, colunas: string[], row: (i: number) => unknown[], meta: object) {
  const content = `${tipo}-${Math.random()}`;
  const { rows: [r] } = await pool.query(`select processamento_id from xls_receber($1, $2, 1, null, $3)`,
    [`${tipo}.xlsx`, createHash('sha256').update(content).digest('hex'), Buffer.from(content)]);
  await pool.query('select * from xls_iniciar($1, $2)', [r.processamento_id, WORKER]);
  await pool.query('select xls_definir_tipo($1, $2, $3)', [r.processamento_id, WORKER, tipo]);
  const c = await pool.connect();
  try {
    await c.query('begin');
    await c.query('select * from xls_staging_preparar($1)', [tipo]);
    const ins = `insert into ${tabela} (${colunas.join(', ')}) values (${colunas.map((_, i) => `$${i + 1}`).join(', ')})`;
    let total = 0;
    for (let i = 0; i < CHUNKS; i++) {
      await c.query(ins, row(i));
      const t = performance.now();
      await c.query(`select ${fn}($1, $2)`, [r.processamento_id, meta]);
      total += performance.now() - t;
    }
    const t = performance.now();
    await c.query('select xls_merge($1, $2)', [r.processamento_id, meta]);
    const fim = performance.now() - t;
    await c.query('rollback');
    console.log(`${tipo.padEnd(12)} ${CHUNKS} chunks of 1 row: ${(total / CHUNKS).toFixed(2)} ms per chunk call; closing xls_merge ${fim.toFixed(0)} ms`);
  } finally {
    c.release();
  }
}

async function main() {
  const cluster = await startTestCluster();
  try {
    await prepareDatabases(cluster);
    await recreateDatabase(cluster.adminUrl, 'bench_chunk', TEMPLATE_DB);
    const pool = new pg.Pool({ connectionString: cluster.urlFor('bench_chunk'), max: 2 });
    pool.on('error', () => undefined);
    await pool.query(`insert into app.worker (id, hostname, pid) values ($1, 'bench', 0)`, [WORKER]);
    await pool.query(`insert into bi_vendedor (codigo) select 'V' || g from generate_series(0, 9) g`);
    const fn = (await pool.query(`select to_regprocedure('public.xls_merge_chunk(uuid,jsonb)') is not null as novo`)).rows[0].novo ? 'xls_merge_chunk' : 'xls_merge_lote';
    console.log(`chunk entry point: ${fn}`);
    await run(pool, 'RELATORIO18', fn, 'pg_temp.xls_stg_faturamento',
      ['linha', 'filial', 'nota_fiscal', 'serie', 'item', 'emissao', 'cliente', 'vendedor', 'produto', 'valor_total'],
      (i) => [i + 2, '01', String(1000 + i), '1', '1', '2026-11-10', `C${i % 50}`, `V${i % 5}`, `P${i % 7}`, '10.5'],
      { periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    await run(pool, 'META', fn, 'pg_temp.xls_stg_meta', ['linha', 'competencia', 'vendedor', 'produto', 'meta_volume'],
      (i) => [i + 2, '2026-11-01', `V${i % 10}`, `P${i}`, '10'], {});
    await pool.end();
  } finally {
    await cluster.stop();
  }
}

main().catch((e) => { console.error("falhou:", (e as Error).message, (e as { where?: string }).where); process.exit(1); });
