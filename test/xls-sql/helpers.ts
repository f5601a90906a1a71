/** Helpers of the SQL-layer tests of the spreadsheet pipeline: no xlsx, rows go straight to staging. */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  xlsConcluir, xlsDefinirTipo, xlsIniciar, xlsMerge, xlsMergeChunk, xlsReceber, xlsStagingPreparar,
  type Desfecho, type ResultadoMerge,
} from '../../src/planilhas/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';
import type { TypeSpec } from '../../src/xlsx/readers/engine.js';
import { stagingViewSql } from '../../scripts/staging-view.js';

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export type Row = Record<string, string | number | null | undefined>;

/** A loose file received with its bytes in the database column (storage mode PSQL). */
export async function receberAvulso(q: pg.Pool | pg.ClientBase, conteudo: string, arquivo = `${conteudo}.xlsx`,
  extra: { conjuntoId?: string; objetoBucket?: string | null; bytes?: boolean } = {}) {
  return xlsReceber(q, {
    arquivo, checksum: sha(conteudo), tamanhoBytes: Buffer.byteLength(conteudo),
    arquivoBytes: extra.bytes === false ? null : Buffer.from(conteudo), objetoBucket: extra.objetoBucket ?? null,
    conjuntoId: extra.conjuntoId ?? null,
  });
}

export async function heartbeat(q: pg.Pool, worker: string, agoSeconds = 0): Promise<void> {
  await q.query(`insert into app.worker (id, hostname, pid, heartbeat_at) values ($1, 'h', 1, now() - make_interval(secs => $2))
                 on conflict (id) do update set heartbeat_at = excluded.heartbeat_at`, [worker, agoSeconds]);
}

/** What the job runner does before the handler: the worker heartbeats and claims the processing's job. */
export async function claimJob(q: pg.Pool, id: string, worker: string): Promise<number> {
  await heartbeat(q, worker);
  const { rows } = await q.query(`update app.job set status = 'running', locked_by = $2, locked_at = now(), attempts = attempts + 1
      where id = (select id from app.job where kind = 'xls_processar' and status = 'pending' and payload ->> 'id' = $1 order by id limit 1)
      returning id`, [id, worker]);
  return rows[0]?.id;
}

/** Runner claim + xls_iniciar + xls_definir_tipo, as the handler does. */
export async function iniciar(q: pg.Pool, id: string, worker: string, tipo: TipoPlanilha | null = null) {
  await claimJob(q, id, worker);
  const p = await xlsIniciar(q, id, worker);
  if (p && tipo) await xlsDefinirTipo(q, id, worker, tipo);
  return p;
}

export async function completeJobs(q: pg.Pool, worker: string): Promise<void> {
  await q.query(`update app.job set status = 'done', locked_by = null where status = 'running' and locked_by = $1`, [worker]);
}

/** COPY rows (objects keyed by column) into a staging table, columns in the order SQL gave. */
export async function copyStaging(client: pg.PoolClient, tabela: string, colunas: string[], rows: Row[]): Promise<void> {
  const esc = (v: unknown) => (v === null || v === undefined ? '\\N' : String(v).replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!));
  const ident = (n: string) => `"${n.replace(/"/g, '""')}"`;
  const sql = `copy ${tabela.split('.').map(ident).join('.')} (${colunas.map(ident).join(', ')}) from stdin`;
  const text = rows.map((r) => colunas.map((c) => esc(r[c])).join('\t') + '\n').join('');
  await pipeline(Readable.from([text]), client.query(copyFrom(sql)));
}

export interface MergeInput {
  staging: Record<string, Row[]>;
  meta?: Record<string, unknown>;
  /** COPY each staging table in chunks of this many rows, calling xls_merge_chunk after each (as the edge does). */
  chunk?: number;
  /** With chunk: the last chunk of the last staging table is left staged for xls_merge (as a DBA may do). */
  ultimoChunkNoMerge?: boolean;
}

/** One merge transaction as the edge runs it: preparar, COPY each staging, xls_merge, xls_concluir. */
export async function importar(pool: pg.Pool, id: string, worker: string, tipo: TipoPlanilha, input: MergeInput):
  Promise<{ merge: ResultadoMerge; desfecho: Desfecho }> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const tabelas = await xlsStagingPreparar(client, tipo);
    for (const t of tabelas) {
      const rows = input.staging[t.staging] ?? [];
      if (!input.chunk) {
        await copyStaging(client, t.tabela, t.colunas, rows);
        continue;
      }
      for (let i = 0; i < rows.length; i += input.chunk) {
        await copyStaging(client, t.tabela, t.colunas, rows.slice(i, i + input.chunk));
        const ultimo = t === tabelas[tabelas.length - 1] && i + input.chunk >= rows.length;
        if (!(ultimo && input.ultimoChunkNoMerge)) await xlsMergeChunk(client, id, input.meta ?? {});
      }
    }
    const merge = await xlsMerge(client, id, input.meta ?? {});
    const desfecho = await xlsConcluir(client, id, worker);
    await client.query('commit');
    return { merge, desfecho };
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Receives a new loose file and runs it to the end through the given merge. */
export async function processarNovo(pool: pg.Pool, conteudo: string, tipo: TipoPlanilha, input: MergeInput, worker = 'w-teste') {
  const r = await receberAvulso(pool, conteudo);
  await iniciar(pool, r.processamentoId!, worker, tipo);
  const out = await importar(pool, r.processamentoId!, worker, tipo, input);
  await completeJobs(pool, worker);
  return { id: r.processamentoId!, ...out };
}

export async function status(q: pg.Pool, id: string) {
  const { rows } = await q.query('select status, erro_mensagem, alarmar, fk_falhas, fk_retentar, conjunto_id from xls_processamento where id = $1', [id]);
  return rows[0];
}

export const fat = (i: number, o: Row = {}): Row => ({
  linha: i + 2, filial: '01', nota_fiscal: String(1000 + i), serie: '1', item: '1', emissao: '2026-11-10',
  cliente: `C${i % 50}`, nome_cliente: `Cliente ${i % 50}`, vendedor: `V${i % 5}`, nome_vendedor: `Vendedor ${i % 5}`,
  produto: `P${i % 7}`, descricao_produto: `Produto ${i % 7}`, quantidade: '10.5', valor_unitario: '5.99', valor_total: String(62.9 + i),
  placa: null, ano_veiculo: null, modelo_veiculo: null, ...o,
});

export const mov = (i: number, o: Row = {}): Row => ({
  linha: i + 2, filial: '01', data: '2026-11-10', lancamento: String(5000 + i), conta: '1.1.01', descricao_conta: 'Caixa',
  historico: `Lançamento ${i}`, debito: String(i), credito: '0', placa: null, ano_veiculo: null, ...o,
});

export const periodoNov = { periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' };

/**
 * Lifts the mass-deletion guard in this test database: for tests that remove most of a table on
 * purpose while testing something else (the guard has its own tests in alteracoes.test.ts).
 */
export async function semTravaDeExclusao(q: pg.Pool): Promise<void> {
  await q.query(`update bi_configuracao set valor = '100' where chave = 'xls_exclusao_limite_percentual'`);
}

/**
 * The staging columns of the readers plus `extra` (a throwaway type's or table's reader): applies
 * app.xls_staging_coluna as `npm run db:generate` would write it once that reader is registered.
 */
export async function stagingComLeitores(q: pg.Pool | pg.ClientBase, extra: TypeSpec[]): Promise<void> {
  await q.query(stagingViewSql(extra));
}
