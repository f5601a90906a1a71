/**
 * One bytea value in and out of Postgres as a stream, never held whole by the service:
 *
 * - in: COPY ... FROM STDIN (FORMAT binary) of a one-row, one-column table from a file (the
 *   binary format frames a field as its length and raw bytes: no escaping, no doubling);
 * - out: COPY (select <bytea>) TO STDOUT (FORMAT binary), the field's bytes passed on as they
 *   arrive (header and trailer stripped).
 *
 * Used for the legacy column `xls_processamento.arquivo_bytes` (storage modes PSQL and
 * PSQL_OBJSTORE), whose 150 MB value as one query parameter cost the service 2–3 times its size.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The binary COPY header and the framing of one tuple of one field of `size` bytes. */
function header(size: number): Buffer {
  const b = Buffer.alloc(SIGNATURE.length + 4 + 4 + 2 + 4);
  SIGNATURE.copy(b, 0);
  let at = SIGNATURE.length;
  b.writeInt32BE(0, at); at += 4; // flags
  b.writeInt32BE(0, at); at += 4; // header extension length
  b.writeInt16BE(1, at); at += 2; // one field
  b.writeInt32BE(size, at);
  return b;
}

const TRAILER = Buffer.from([0xff, 0xff]);

/**
 * COPYs the file at `path` (`size` bytes) as the only row of `table` (one bytea column),
 * streamed from disk. The caller runs it inside its transaction and reads the row from SQL.
 */
export async function copyByteaFromFile(client: pg.PoolClient, table: string, path: string, size: number): Promise<void> {
  if (size > 0x7fffffff) throw new Error(`um valor bytea tem no máximo 2 GiB (${size} bytes)`);
  async function* body(): AsyncGenerator<Buffer> {
    yield header(size);
    let sent = 0;
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      sent += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (sent !== size) throw new Error(`o arquivo ${path} tem ${sent} bytes, não ${size}`);
    yield TRAILER;
  }
  await pipeline(Readable.from(body()), client.query(copyFrom(`copy ${table} from stdin (format binary)`)));
}

/**
 * The bytes of the first field of the first row of `select` (one bytea column), streamed.
 * `select` is SQL text with no parameters (COPY takes none: pass literals the caller quotes).
 * Ends empty when the value is null. The client is not released here.
 */
export async function* copyByteaOut(client: pg.PoolClient, select: string): AsyncGenerator<Buffer> {
  const stream = client.query(copyTo(`copy (${select}) to stdout (format binary)`));
  // states: header bytes still needed, then the field's remaining length, then drain
  let pending = Buffer.alloc(0);
  let need = SIGNATURE.length + 8; // signature, flags, extension length (extension read after)
  let phase: 'header' | 'ext' | 'tuple' | 'len' | 'data' | 'rest' = 'header';
  let remaining = 0;
  for await (const raw of stream) {
    let chunk = raw as Buffer;
    while (chunk.length > 0) {
      if (phase === 'data') {
        const take = Math.min(remaining, chunk.length);
        if (take > 0) yield chunk.subarray(0, take);
        remaining -= take;
        chunk = chunk.subarray(take);
        if (remaining === 0) phase = 'rest';
        continue;
      }
      if (phase === 'rest') break;
      const take = Math.min(need - pending.length, chunk.length);
      pending = Buffer.concat([pending, chunk.subarray(0, take)]);
      chunk = chunk.subarray(take);
      if (pending.length < need) continue;
      if (phase === 'header') {
        if (!pending.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('COPY binário: assinatura inesperada');
        const ext = pending.readInt32BE(SIGNATURE.length + 4);
        phase = 'ext'; need = ext; pending = Buffer.alloc(0);
        if (need === 0) { phase = 'tuple'; need = 2; }
      } else if (phase === 'ext') {
        phase = 'tuple'; need = 2; pending = Buffer.alloc(0);
      } else if (phase === 'tuple') {
        const fields = pending.readInt16BE(0);
        if (fields === -1) { phase = 'rest'; break; } // no row
        if (fields !== 1) throw new Error(`COPY binário: ${fields} campos, esperado 1`);
        phase = 'len'; need = 4; pending = Buffer.alloc(0);
      } else if (phase === 'len') {
        const len = pending.readInt32BE(0);
        pending = Buffer.alloc(0);
        if (len <= 0) { phase = 'rest'; break; } // null or empty
        remaining = len; phase = 'data';
      }
    }
  }
  if (phase === 'data') throw new Error(`COPY binário: faltaram ${remaining} bytes do valor`);
}
