/**
 * Staging chunks, in two halves that may run in different threads:
 *
 * - chunksCopia (where the rows are parsed: the parse worker): the reader's rows as COPY text,
 *   cut into chunks of `chunkLinhas` rows of one staging table (the first chunk a fifth of the
 *   others, so that the database starts merging sooner; a tab's rows come together, so a
 *   chunk never mixes tables);
 * - gravarChunks (where the database connection is: the job): each chunk COPYed into its
 *   staging table, then `mergeChunk()` started without waiting for it; before the next COPY
 *   the previous merge is awaited (one query at a time on the connection).
 */
import type pg from 'pg';
import { CopyBuffer, copyLines, copyText } from '../db/copy.js';
import type { StagingTabela } from './db.js';
import type { StagingRow } from '../xlsx/index.js';

/** One chunk: `linhas` rows of `staging` as COPY text (whole lines). */
export interface ChunkCopia {
  staging: string;
  linhas: number;
  bytes: Buffer;
}

interface Alvo extends StagingTabela { campos: string[] }

function alvos(tabelas: readonly StagingTabela[]): Map<string, Alvo> {
  const byStaging = new Map(tabelas.map((t) => [t.staging, { ...t, campos: t.colunas.filter((c) => c !== 'linha') }]));
  if ([...byStaging.values()].some((t) => t.colunas[0] !== 'linha')) throw new Error('staging: a primeira coluna deve ser linha');
  return byStaging;
}

/**
 * The rows as COPY chunks. Each chunk's bytes are its own (a fresh buffer, safe to transfer to
 * another thread); the chunk being filled is held outside the JS heap.
 */
export async function* chunksCopia(tabelas: readonly StagingTabela[], rows: AsyncIterable<StagingRow>, chunkLinhas: number): AsyncGenerator<ChunkCopia> {
  const byStaging = alvos(tabelas);
  const chunk = new CopyBuffer();
  let current = null as Alvo | null;
  let inLot = 0;
  let emitted = 0;

  function take(): ChunkCopia | null {
    const target = current as Alvo | null; // assigned by the loop below
    if (inLot === 0 || !target) return null;
    const src = chunk.bytes();
    const bytes = Buffer.from(new ArrayBuffer(src.length));
    src.copy(bytes);
    const out = { staging: target.staging, linhas: inLot, bytes };
    chunk.reset();
    inLot = 0;
    emitted += 1;
    return out;
  }

  for await (const row of rows) {
    if (current?.staging !== row.staging) {
      const l = take();
      if (l) yield l;
      current = byStaging.get(row.staging) ?? null;
      if (!current) throw new Error(`o leitor produziu linhas para a tabela de staging desconhecida '${row.staging}'`);
    }
    const campos = current.campos;
    const values = row.values;
    let line = String(row.linha);
    for (let i = 0; i < campos.length; i++) line += '\t' + copyText(values[campos[i]!]);
    chunk.push(line + '\n');
    // the first chunk is a fifth of the others: the database starts merging sooner
    if (++inLot >= (emitted === 0 ? Math.max(1, Math.ceil(chunkLinhas / 5)) : chunkLinhas)) {
      const l = take();
      if (l) yield l;
    }
  }
  const l = take();
  if (l) yield l;
}

/**
 * COPYs the chunks and merges each after its COPY (see above); `mergeChunk` gets the rows
 * copied so far (all tables), for the progress report. Returns the rows copied per table.
 */
export async function gravarChunks(client: pg.PoolClient, tabelas: readonly StagingTabela[], chunks: AsyncIterable<ChunkCopia>,
  mergeChunk: (linhasAteAgora: number) => Promise<unknown>): Promise<Map<string, number>> {
  const byStaging = alvos(tabelas);
  const copied = new Map<string, number>();
  let pending: Promise<unknown> | null = null;
  let total = 0;
  for await (const chunk of chunks) {
    const target = byStaging.get(chunk.staging);
    if (!target) throw new Error(`chunk para a tabela de staging desconhecida '${chunk.staging}'`);
    if (pending) await pending;
    pending = null;
    await copyLines(client, target.tabela, target.colunas, chunk.bytes);
    copied.set(target.staging, (copied.get(target.staging) ?? 0) + chunk.linhas);
    total += chunk.linhas;
    const p = mergeChunk(total);
    p.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    pending = p;
  }
  if (pending) await pending;
  return copied;
}
