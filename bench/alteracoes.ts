// @bench-tiny 200 --vezes 1
// @bench-prints median with change sets
/**
 * `npm run bench -- alteracoes [rows] [--vezes N]`: the cost of recording change sets (app.xls_alteracao,
 * the statement triggers of every bi_* table) on a RELATORIO18 first import, and the time to
 * undo it. Each round imports the same generated rows (bench/xls-merge-tipos.ts) into two fresh
 * databases, in turn: one with the change-set triggers, one with them disabled; COPY in chunks
 * of 25,000 rows each followed by xls_merge_chunk, as the service does. Prints per round the
 * time (COPY + merge) and the WAL of each, then their medians and the ratio, and the undo of
 * the recorded import (public.xls_desfazer: every inserted row removed) with its time.
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';
import { xlsConcluir, xlsDefinirTipo, xlsIniciar, xlsMerge, xlsMergeChunk, xlsReceber, xlsStagingPreparar } from '../src/planilhas/db.js';
import { GERADORES } from './xls-merge-tipos.js';

const ROWS = /^\d+$/.test(process.argv[2] ?? '') ? Number(process.argv[2]) : 200_000;
const opt = (name: string) => { const i = process.argv.indexOf(`--${name}`); return i >= 0 ? process.argv[i + 1] : undefined; };
const VEZES = Number(opt('vezes') ?? 3);
const CHUNK = 25_000;
const WORKER = 'bench';
const g = GERADORES.find((x) => x.tipo === 'RELATORIO18')!;

async function copy(c: pg.PoolClient, tabela: string, colunas: string[], lines: string[][]): Promise<void> {
  const sql = `copy ${tabela.split('.').map((p) => `"${p}"`).join('.')} (${colunas.map((x) => `"${x}"`).join(', ')}) from stdin`;
  async function* gen() {
    let buf = '';
    for (const l of lines) { buf += l.join('\t') + '\n'; if (buf.length > 1 << 16) { yield buf; buf = ''; } }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(gen()), c.query(copyFrom(sql)));
}

/** One first import of ROWS rows; returns its processing id, seconds and WAL bytes. */
async function importar(pool: pg.Pool): Promise<{ id: string; s: number; wal: number }> {
  const content = `bench-alteracoes-${Math.random()}`;
  const r = await xlsReceber(pool, { arquivo: 'r18.xlsx', checksum: createHash('sha256').update(content).digest('hex'), tamanhoBytes: 1, arquivoBytes: Buffer.from(content) });
  const id = r.processamentoId!;
  await xlsIniciar(pool, id, WORKER);
  await xlsDefinirTipo(pool, id, WORKER, 'RELATORIO18');
  const c = await pool.connect();
  try {
    await c.query('begin');
    const tabelas = await xlsStagingPreparar(c, 'RELATORIO18');
    const porStaging = g.linhas(ROWS);
    const dados = tabelas.map((t) => {
      const rows: string[][] = [];
      for (let i = 0; i < (porStaging[t.staging] ?? 0); i++) {
        const row = g.gerar(t.staging, i, false);
        rows.push([String(i + 2), ...t.colunas.slice(1).map((col) => row[col] ?? '\\N')]);
      }
      return [t, rows] as const;
    });
    const lsn = (await c.query('select pg_current_wal_lsn()::text l')).rows[0].l;
    const t0 = performance.now();
    for (const [t, rows] of dados) {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await copy(c, t.tabela, t.colunas, rows.slice(i, i + CHUNK));
        await xlsMergeChunk(c, id, g.meta);
      }
    }
    await xlsMerge(c, id, g.meta);
    await xlsConcluir(c, id, WORKER);
    await c.query('commit');
    const s = (performance.now() - t0) / 1000;
    const wal = Number((await c.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint n', [lsn])).rows[0].n);
    return { id, s, wal };
  } finally {
    c.release();
  }
}

const mediana = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  const cluster = await startTestCluster();
  const com: Array<{ s: number; wal: number }> = [];
  const sem: Array<{ s: number; wal: number }> = [];
  const desfazer: number[] = [];
  try {
    await prepareDatabases(cluster);
    console.log(`RELATORIO18 first import, ${ROWS} invoice rows + ${g.linhas(ROWS).movimento} movements, chunks of ${CHUNK}; ${VEZES} rounds`);
    for (let v = 0; v < VEZES; v++) {
      for (const gravar of v % 2 === 0 ? [true, false] : [false, true]) {
        const banco = `bench_alteracoes_${gravar ? 'com' : 'sem'}`;
        await recreateDatabase(cluster.adminUrl, banco, TEMPLATE_DB);
        const pool = new pg.Pool({ connectionString: cluster.urlFor(banco), max: 2 });
        pool.on('error', () => undefined);
        await pool.query(`insert into app.worker (id, hostname, pid) values ($1, 'bench', 0)`, [WORKER]);
        if (!gravar) {
          const { rows } = await pool.query(`select tgrelid::regclass::text t, tgname from pg_trigger where tgname like '!_900!_xls!_alteracao!_%' escape '!'`);
          // the event trigger _300_bi_alteracoes must not touch them while this throwaway database is altered
          await pool.query('alter event trigger _300_bi_alteracoes disable');
          for (const x of rows) await pool.query(`alter table ${x.t} disable trigger ${x.tgname}`);
        }
        await pool.query('checkpoint');
        const r = await importar(pool);
        (gravar ? com : sem).push(r);
        let extra = '';
        if (gravar) {
          const t0 = performance.now();
          const dc = await pool.connect();
          if (process.env.BENCH_EXPLAIN) await dc.query(`load 'auto_explain'; set auto_explain.log_min_duration = 100; set auto_explain.log_nested_statements = on; set auto_explain.log_analyze = on`);
          const d = (await dc.query('select public.xls_desfazer($1, $2) r', [r.id, 'bench'])).rows[0].r;
          dc.release();
          const s = (performance.now() - t0) / 1000;
          desfazer.push(s);
          const removidas = Object.values(d.tabelas as Record<string, { removidas: number }>).reduce((n, x) => n + x.removidas, 0);
          extra = `   undo ${s.toFixed(2)} s (${removidas} rows removed)`;
        }
        const { linhas, itens } = (await pool.query('select count(*)::int linhas, coalesce(sum(coalesce(cardinality(linha_ids), 1)), 0)::int itens from app.xls_alteracao where processamento_id = $1', [r.id])).rows[0];
        console.log(`round ${v + 1} ${gravar ? 'with change sets   ' : 'without change sets'}  ${r.s.toFixed(2)} s   WAL ${mb(r.wal).padStart(9)}   change-set rows ${linhas} (${itens} rows changed)${extra}`);
        await pool.end();
      }
    }
    const [ms, ws] = [mediana(com.map((x) => x.s)), mediana(com.map((x) => x.wal))];
    const [m0, w0] = [mediana(sem.map((x) => x.s)), mediana(sem.map((x) => x.wal))];
    console.log(`median with change sets ${ms.toFixed(2)} s, WAL ${mb(ws)}; without ${m0.toFixed(2)} s, WAL ${mb(w0)}; `
      + `time ${(ms / m0).toFixed(2)}x (target <= 1.20x), WAL ${(ws / w0).toFixed(2)}x; undo median ${mediana(desfazer).toFixed(2)} s (target <= 10 s)`);
  } finally {
    await cluster.stop();
  }
}
void main();
