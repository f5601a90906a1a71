/**
 * `npm run bench:xls-merge-tipos [-- <rows>] [--tipo T]`: times the SQL merge (xls_merge) of
 * each of the eight types of issue 12 on a throwaway Postgres, at <rows> staged rows each
 * (default 200 000): first import, identical re-import, 1% changed. WAL = bytes of WAL
 * written from the COPY into staging to the end of the merge (staging is temporary: not
 * WAL-logged). Rows go straight to staging, as the reader would COPY them (no xlsx).
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';
import { xlsConcluir, xlsDefinirTipo, xlsIniciar, xlsMerge, xlsReceber, xlsStagingPreparar, type TipoPlanilha } from '../src/db/xls.js';

const ROWS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200_000);
const SO = process.argv.includes('--tipo') ? process.argv[process.argv.indexOf('--tipo') + 1] : null;
const WORKER = 'bench';
const N = '\\N';
const pad = (n: number, w: number) => String(n).padStart(w, '0');
const dia = (i: number, dias: number) => { const d = new Date(Date.UTC(2026, 8, 1) + (i % dias) * 86_400_000); return d.toISOString().slice(0, 10); };
const cnpj = (i: number) => pad(10_000_000_000_000 + i, 14);

/** One generator per type: staging name → the row i (COPY text fields after linha), changed = the 1% variant. */
interface Caso { tipo: TipoPlanilha; staging: string; linha: (i: number, changed: boolean) => string[]; meta?: Record<string, unknown>; preparar?: (pool: pg.Pool) => Promise<void> }

const CASOS: Caso[] = [
  { tipo: 'MARGEM_CONSOLIDADA', staging: 'margem_consolidada',
    linha: (i, c) => [`2026-${pad(1 + (Math.floor(i / 20000) % 10), 2)}-01`, pad(i % 50, 2), `P${Math.floor(i / 50) % 400}`, '1000', '5000.5', '4000', c ? '9.99' : '1000.5', '1.0005'] },
  { tipo: 'MARGEM_DIA', staging: 'margem_dia',
    linha: (i, c) => [dia(Math.floor(i / 2000), 100), pad(i % 20, 2), `C${Math.floor(i / 20) % 5000}`, `Cliente ${Math.floor(i / 20) % 5000}`, 'V1', `P${i % 20}`,
      '100', '6.1', '5.5', c ? '99' : '60', N, N, N, N, i % 3 === 0 ? N : '28'] },
  { tipo: 'META_CARTEIRA', staging: 'meta_carteira',
    preparar: async (pool) => { await pool.query(`insert into bi_cliente (codigo, nome) select 'C' || g, 'Cliente ' || g from generate_series(0, 4999) g on conflict do nothing`); },
    linha: (i, c) => [`2026-${pad(1 + (Math.floor(i / 20000) % 10), 2)}-01`, `C${Math.floor(i / 4) % 5000}`, `P${i % 4}`, c ? '1' : '500'] },
  { tipo: 'POSTOS', staging: 'posto',
    linha: (i, c) => [cnpj(i), `Auto Posto ${i} Ltda`, `Posto ${i}`, c ? 'Branca' : 'Ipiranga', `Rua ${i}`, 'Centro', 'Cuiabá', 'MT', '78005100', 'Posto revendedor'] },
  { tipo: 'TRR', staging: 'trr',
    linha: (i, c) => [cnpj(i), `TRR ${i} Ltda`, 'Sinop', 'MT', N, 'TRR', c ? '99' : '45.5'] },
  { tipo: 'COMPRAS', staging: 'compra',
    linha: (i, c) => [dia(i, 90), cnpj(i % 300), `Fornecedor ${i % 300}`, String(100000 + i), i % 2 ? 'Diesel S10' : 'Gasolina C', i % 2 ? '1202' : '1203', '5000', c ? '1.5' : '29500.5'] },
  { tipo: 'COTA_FORNECEDOR', staging: 'cota',
    linha: (i, c) => { const j = Math.floor(i / 12); return [String(2000 + Math.floor(j / 5000)), `Polo ${Math.floor(j / 50) % 100}`, `Produto ${j % 50}`, String(1 + (i % 12)), c ? '1' : '100']; } },
  { tipo: 'FLUXO_PAGAR_RECEBER', staging: 'titulo', meta: { posicao: '2026-11-15', total_receber_grupo: '0' },
    linha: (i, c) => [i % 2 ? 'PAGAR' : 'RECEBER', `D${i}`, '1', `Pessoa ${i % 1000}`, cnpj(i % 1000), '2026-10-01', dia(i, 120), '100', c ? '1' : '100', `CC${i % 30}`, `Centro ${i % 30}`] },
];

async function copy(c: pg.PoolClient, tabela: string, colunas: string[], rows: (i: number) => string[], n: number): Promise<void> {
  const sql = `copy ${tabela.split('.').map((p) => `"${p}"`).join('.')} (${colunas.map((x) => `"${x}"`).join(', ')}) from stdin`;
  async function* gen() {
    let buf = '';
    for (let i = 0; i < n; i++) { buf += `${i + 2}\t${rows(i).join('\t')}\n`; if (buf.length > 1 << 16) { yield buf; buf = ''; } }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(gen()), c.query(copyFrom(sql)));
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

async function importar(pool: pg.Pool, caso: Caso, label: string, rows: (i: number) => string[]) {
  const content = `${caso.tipo}-${label}-${Math.random()}`;
  const r = await xlsReceber(pool, { arquivo: `${label}.xlsx`, checksum: createHash('sha256').update(content).digest('hex'), tamanhoBytes: 1, arquivoBytes: Buffer.from(content) });
  await xlsIniciar(pool, r.processamentoId!, WORKER);
  await xlsDefinirTipo(pool, r.processamentoId!, WORKER, caso.tipo);
  const c = await pool.connect();
  try {
    if (process.env.EXPLAIN) {
      // plans of the slow statements of the merge, sent to this client (auto_explain at LOG level)
      await c.query(`load 'auto_explain'; set auto_explain.log_min_duration = '${process.env.EXPLAIN}ms'; set auto_explain.log_analyze = on;
        set auto_explain.log_nested_statements = on; set client_min_messages = log`);
      c.on('notice', (m) => console.log(m.message));
    }
    await c.query('begin');
    const [t] = await xlsStagingPreparar(c, caso.tipo);
    const lsn = (await c.query('select pg_current_wal_lsn()::text l')).rows[0].l;
    const t0 = performance.now();
    await copy(c, t!.tabela, t!.colunas, rows, ROWS);
    const t1 = performance.now();
    const m = await xlsMerge(c, r.processamentoId!, caso.meta ?? {});
    const t2 = performance.now();
    const wal = Number((await c.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint n', [lsn])).rows[0].n);
    await xlsConcluir(c, r.processamentoId!, WORKER);
    await c.query('commit');
    console.log(`  ${label.padEnd(20)} COPY ${((t1 - t0) / 1000).toFixed(2)} s   merge ${((t2 - t1) / 1000).toFixed(2)} s   WAL ${mb(wal).padStart(8)}   `
      + `enviadas ${m.linhasEnviadas}  efetivas ${m.linhasEfetivas}  removidas ${m.linhasRemovidas}`);
  } finally {
    c.release();
  }
}

async function main() {
  const cluster = await startTestCluster();
  try {
    await prepareDatabases(cluster);
    await recreateDatabase(cluster.adminUrl, 'bench_xls_tipos', TEMPLATE_DB);
    const pool = new pg.Pool({ connectionString: cluster.urlFor('bench_xls_tipos'), max: 4 });
    await pool.query(`insert into app.worker (id, hostname, pid) values ($1, 'bench', 0)`, [WORKER]);
    console.log(`merges of the issue-12 types, ${ROWS} staged rows each (PostgreSQL ${(await pool.query('show server_version')).rows[0].server_version})`);
    for (const caso of CASOS) {
      if (SO && caso.tipo !== SO) continue;
      console.log(caso.tipo);
      await caso.preparar?.(pool);
      await importar(pool, caso, 'first import', (i) => caso.linha(i, false));
      await pool.query('vacuum analyze');
      await importar(pool, caso, 'identical re-import', (i) => caso.linha(i, false));
      await importar(pool, caso, '1% changed', (i) => caso.linha(i, i % 100 === 0));
    }
    await pool.end();
  } finally {
    await cluster.stop();
  }
}

void main();
