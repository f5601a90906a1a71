// @bench-tiny 200 --chunk 64 --historico 500
// @bench-prints baseline: bare ON CONFLICT
// @bench-prints of the first import's time
/**
 * `npm run bench -- xls-merge [-- <rows>] [--tipo T[,T…]] [--chunk N]`: times the declarative merge
 * (xls_merge) of every spreadsheet type that has a generator in bench/xls-merge-tipos.ts, on a
 * throwaway Postgres, and prints per type: first import, identical re-import (with its WAL),
 * 1% changed; for RELATORIO18 also a scope delete and — for comparison — a bare `INSERT … ON
 * CONFLICT DO UPDATE WHERE … IS DISTINCT FROM` of the same identical rows. WAL = bytes of WAL the
 * import generated. --chunk N: COPY in chunks of N rows, each followed by xls_merge_chunk, as the
 * service does (without the reader alongside); --lote is the legacy name. CPU pg = CPU seconds of
 * the merging backend (less sensitive to the machine's load than the wall times). Variants of the
 * staging side: --freeze (COPY … WITH (FREEZE)), --temp-buffers 64MB (the session's temp_buffers).
 * --historico N (RELATORIO18): bi_faturamento already holds N rows of earlier months (written
 * straight by SQL, then a checkpoint) before the first import, as a table does after a few months
 * in production; the first import then adds its rows to an index of N.
 * The merge is told the staging is trimmed (p_meta.staging_aparado, as the service tells it: the
 * generated rows are); --sem-aparado leaves it out, as a DBA's own COPY would, and the merge
 * trims and empties every text column itself.
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';
import { xlsConcluir, xlsDefinirTipo, xlsIniciar, xlsMerge, xlsMergeChunk, xlsReceber, xlsStagingPreparar } from '../src/planilhas/db.js';
import { GERADORES, type GeradorTipo } from './xls-merge-tipos.js';
import { processCpu } from './profile.js';

const ROWS = /^\d+$/.test(process.argv[2] ?? '') ? Number(process.argv[2]) : 200_000;
function opt(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const CHUNK = Number(opt('chunk') ?? opt('lote') ?? 0);
/** --freeze: COPY … WITH (FREEZE) into staging (created or emptied in the same transaction). */
const FREEZE = process.argv.includes('--freeze');
/** --temp-buffers 64MB: the session's temp_buffers (the staging and work tables are temporary). */
const TEMP_BUFFERS = opt('temp-buffers');
const TIPOS = opt('tipo')?.split(',');
const HISTORICO = Number(opt('historico') ?? 0);
const APARADO = !process.argv.includes('--sem-aparado');
const WORKER = 'bench';

/** The rows of one staging table as COPY lines, in the column order SQL gave (linha first). */
function linhas(g: GeradorTipo, staging: string, colunas: string[], n: number, alterada: (i: number) => boolean, manter: (i: number) => boolean): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < n; i++) {
    if (!manter(i)) continue;
    const row = g.gerar(staging, i, alterada(i));
    out.push([String(i + 2), ...colunas.slice(1).map((c) => {
      if (!(c in row)) throw new Error(`${g.tipo}/${staging}: o gerador não tem a coluna ${c}`);
      return row[c] ?? '\\N';
    })]);
  }
  return out;
}

async function copy(c: pg.PoolClient, tabela: string, colunas: string[], lines: string[][]): Promise<void> {
  const sql = `copy ${tabela.split('.').map((p) => `"${p}"`).join('.')} (${colunas.map((x) => `"${x}"`).join(', ')}) from stdin${FREEZE ? ' with (freeze)' : ''}`;
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

/** CPU seconds (user + system) of the backend serving `c` (the server runs on this machine). */
async function backendCpu(c: pg.PoolClient): Promise<() => number> {
  const pid = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const t0 = processCpu(pid);
  return () => processCpu(pid) - t0;
}

interface Cenario { alterada?: (i: number) => boolean; manter?: (i: number) => boolean }

/** One import's merge time (COPY + chunks + end) and its backend's CPU; a re-import is printed as a share of the first. */
interface Medida { s: number; cpu: number }

async function importar(pool: pg.Pool, g: GeradorTipo, label: string, n: number, cenario: Cenario = {}, primeira?: Medida): Promise<Medida> {
  const content = `${g.tipo}-${label}-${Math.random()}`;
  const r = await xlsReceber(pool, { arquivo: `${label}.xlsx`, checksum: createHash('sha256').update(content).digest('hex'), tamanhoBytes: 1, arquivoBytes: Buffer.from(content) });
  await xlsIniciar(pool, r.processamentoId!, WORKER);
  await xlsDefinirTipo(pool, r.processamentoId!, WORKER, g.tipo);
  const meta = APARADO ? { ...g.meta, staging_aparado: true } : g.meta;
  const c = await pool.connect();
  try {
    await c.query('begin');
    const tabelas = await xlsStagingPreparar(c, g.tipo);
    const porStaging = g.linhas(n);
    const dados = tabelas.map((t) => [t, linhas(g, t.staging, t.colunas, porStaging[t.staging] ?? 0, cenario.alterada ?? (() => false), cenario.manter ?? (() => true))] as const);
    const cpu = await backendCpu(c);
    const t0 = performance.now();
    const lsn = await walNow(c);
    for (const [t, rows] of dados) {
      if (!CHUNK) { await copy(c, t.tabela, t.colunas, rows); continue; }
      for (let i = 0; i < rows.length; i += CHUNK) {
        await copy(c, t.tabela, t.colunas, rows.slice(i, i + CHUNK));
        await xlsMergeChunk(c, r.processamentoId!, meta);
      }
    }
    const tCopy = performance.now() - t0;
    const t1 = performance.now();
    const m = await xlsMerge(c, r.processamentoId!, meta);
    const tMerge = performance.now() - t1;
    const wal = await walSince(c, lsn);
    const cpuS = cpu();
    await xlsConcluir(c, r.processamentoId!, WORKER);
    await c.query('commit');
    const medida = { s: (tCopy + tMerge) / 1000, cpu: cpuS };
    const parte = primeira ? `   = ${((100 * medida.s) / primeira.s).toFixed(0)} % of the first import's time, ${((100 * medida.cpu) / Math.max(primeira.cpu, 1e-9)).toFixed(0)} % of its CPU` : '';
    console.log(`${(g.tipo + ' ' + label).padEnd(48)} COPY${CHUNK ? '+chunks' : ''} ${(tCopy / 1000).toFixed(2)} s   merge ${(tMerge / 1000).toFixed(2)} s   CPU pg ${cpuS.toFixed(2)} s   WAL ${mb(wal).padStart(8)}   `
      + `enviadas ${m.linhasEnviadas}  efetivas ${m.linhasEfetivas}  removidas ${m.linhasRemovidas}${parte}`);
    return medida;
  } finally {
    c.release();
  }
}

async function bareOnConflict(pool: pg.Pool, g: GeradorTipo, n: number) {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const [tf] = await xlsStagingPreparar(c, 'RELATORIO18');
    await copy(c, tf!.tabela, tf!.colunas, linhas(g, 'faturamento', tf!.colunas, n, () => false, (i) => i % 100 !== 1));
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
    for (const g of GERADORES.filter((x) => !TIPOS || TIPOS.includes(x.tipo))) {
      const banco = `bench_xls_${g.tipo.toLowerCase()}`;
      await recreateDatabase(cluster.adminUrl, banco, TEMPLATE_DB);
      const pool = new pg.Pool({ connectionString: cluster.urlFor(banco), max: 4, ...(TEMP_BUFFERS ? { options: `-c temp_buffers=${TEMP_BUFFERS}` } : {}) });
      pool.on('error', () => undefined); // idle connections closed when the cluster stops
      await pool.query(`insert into app.worker (id, hostname, pid) values ($1, 'bench', 0)`, [WORKER]);
      await g.preparar?.(pool, ROWS);
      const tabelas = (await pool.query('select array_agg(tabela) t from app.xls_alvo where tipo = $1', [g.tipo])).rows[0].t as string[];
      console.log(`${g.tipo}: ${ROWS} rows (${Object.entries(g.linhas(ROWS)).map(([k, v]) => `${k} ${v}`).join(', ')}), PostgreSQL ${(await pool.query('show server_version')).rows[0].server_version}`);
      if (HISTORICO > 0 && g.tipo === 'RELATORIO18') {
        // earlier months, keys of their own; without the change-set triggers (not an import)
        const t = performance.now();
        await pool.query(`do $$ begin
            set local session_replication_role = replica;
            insert into bi_faturamento (filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto, quantidade, valor_unitario, valor_total, placa)
            select lpad((g % 50)::text, 4, '0'), 'H' || lpad((g / 4)::text, 9, '0'), '1', lpad((g % 4)::text, 3, '0'), date '2025-01-01' + (g % 600),
                   'C' || (g % 5000), 'V' || (g % 100), 'P' || (g % 300), g % 100, 1.5, 150.5, 'ABC1D23'
              from generate_series(1, ${HISTORICO}) g;
          end $$`);
        await pool.query('vacuum analyze bi_faturamento');
        await pool.query('checkpoint');
        console.log(`bi_faturamento holds ${HISTORICO} rows of earlier months (${((performance.now() - t) / 1000).toFixed(1)} s to write), checkpoint done`);
      }
      const primeira = await importar(pool, g, 'first import', ROWS);
      await pool.query(`vacuum analyze ${tabelas.map((t) => `public."${t}"`).join(', ')}`);
      await importar(pool, g, 'identical re-import', ROWS, {}, primeira);
      await importar(pool, g, '1% changed', ROWS, { alterada: (i) => i % 100 === 0 }, primeira);
      if (g.tipo === 'RELATORIO18') {
        await importar(pool, g, '1% back + 1% absent (scope delete)', ROWS, { manter: (i) => i % 100 !== 1 });
        await importar(pool, g, 'identical re-import again', ROWS, { manter: (i) => i % 100 !== 1 });
        // last: its row locks (rolled back) leave every tuple to be re-checked by the next scan
        await bareOnConflict(pool, g, ROWS);
      }
      await pool.end();
    }
  } finally {
    await cluster.stop();
  }
}

void main();
