/**
 * COPY ... FROM STDIN (text format) from an async iterable of rows, with backpressure.
 * Values are COPY-ready text or null; identifiers come from the SQL side (xls_staging_preparar).
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function copyText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return /[\\\n\r\t]/.test(value) ? value.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : value;
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function copySql(table: string, columns: string[]): string {
  return `copy ${table.split('.').map(ident).join('.')} (${columns.map(ident).join(', ')}) from stdin`;
}

/** COPYs text already in COPY format (pieces of whole lines) into `table(columns)`. */
export async function copyLines(client: pg.PoolClient, table: string, columns: string[], pieces: readonly string[]): Promise<void> {
  await pipeline(Readable.from(pieces), client.query(copyFrom(copySql(table, columns))));
}

/** Streams rows into `table(columns)`; returns the number of rows copied. */
export async function copyRows(client: pg.PoolClient, table: string, columns: string[],
  rows: AsyncIterable<ReadonlyArray<string | null>>): Promise<number> {
  const sql = copySql(table, columns);
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    let buf = '';
    for await (const row of rows) {
      for (let i = 0; i < row.length; i++) buf += (i === 0 ? '' : '\t') + copyText(row[i]);
      buf += '\n';
      count += 1;
      if (buf.length > 64 * 1024) { yield buf; buf = ''; }
    }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(lines()), client.query(copyFrom(sql)));
  return count;
}
