/**
 * Staging lots, in two halves that may run in different threads:
 *
 * - lotesCopia (where the rows are parsed: the parse worker): the reader's rows as COPY text,
 *   cut into lots of `loteLinhas` rows of one staging table (the first lot a fifth of the
 *   others, so that the database starts merging sooner; a tab's rows come together, so a
 *   lot never mixes tables);
 * - gravarLotes (where the database connection is: the job): each lot COPYed into its
 *   staging table, then `mergeLote()` started without waiting for it; before the next COPY
 *   the previous merge is awaited (one query at a time on the connection).
 */
import type pg from 'pg';
import { CopyBuffer, copyLines, copyText } from '../db/copy.js';
import type { StagingTabela } from '../db/xls.js';
import type { StagingRow } from '../xlsx/index.js';

/** One lot: `linhas` rows of `staging` as COPY text (whole lines). */
export interface LoteCopia {
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
 * The rows as COPY lots. Each lot's bytes are its own (a fresh buffer, safe to transfer to
 * another thread); the lot being filled is held outside the JS heap.
 */
export async function* lotesCopia(tabelas: readonly StagingTabela[], rows: AsyncIterable<StagingRow>, loteLinhas: number): AsyncGenerator<LoteCopia> {
  const byStaging = alvos(tabelas);
  const lot = new CopyBuffer();
  let current = null as Alvo | null;
  let inLot = 0;
  let emitted = 0;

  function take(): LoteCopia | null {
    const target = current as Alvo | null; // assigned by the loop below
    if (inLot === 0 || !target) return null;
    const src = lot.bytes();
    const bytes = Buffer.from(new ArrayBuffer(src.length));
    src.copy(bytes);
    const out = { staging: target.staging, linhas: inLot, bytes };
    lot.reset();
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
    lot.push(line + '\n');
    // the first lot is a fifth of the others: the database starts merging sooner
    if (++inLot >= (emitted === 0 ? Math.max(1, Math.ceil(loteLinhas / 5)) : loteLinhas)) {
      const l = take();
      if (l) yield l;
    }
  }
  const l = take();
  if (l) yield l;
}

/** COPYs the lots and merges each after its COPY (see above). Returns the rows copied per table. */
export async function gravarLotes(client: pg.PoolClient, tabelas: readonly StagingTabela[], lotes: AsyncIterable<LoteCopia>,
  mergeLote: () => Promise<unknown>): Promise<Map<string, number>> {
  const byStaging = alvos(tabelas);
  const copied = new Map<string, number>();
  let pending: Promise<unknown> | null = null;
  for await (const lote of lotes) {
    const target = byStaging.get(lote.staging);
    if (!target) throw new Error(`lote para a tabela de staging desconhecida '${lote.staging}'`);
    if (pending) await pending;
    pending = null;
    await copyLines(client, target.tabela, target.colunas, lote.bytes);
    copied.set(target.staging, (copied.get(target.staging) ?? 0) + lote.linhas);
    const p = mergeLote();
    p.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    pending = p;
  }
  if (pending) await pending;
  return copied;
}
