/**
 * The local spool of the order webhook: where a delivery goes when the database does not
 * take it in time, so that the answer can still be 200 (docs/webhook.md, "Local spool").
 *
 * One directory per replica (PARTNER_WEBHOOK_SPOOL_DIR), holding append-only segment files
 * `<sequence>.spool`. Each record is
 *
 *     magic "PWS1" | u32 BE payload length | u32 BE CRC-32 of the payload | payload
 *     payload = u32 BE metadata length | metadata (JSON: id, recebidoEm, contentType, ip, userAgent) | body bytes
 *
 * Appends are grouped: every record waiting is written with one write and one fdatasync,
 * and each caller is answered only after that fdatasync. A new segment's directory entry is
 * fsynced before its first record counts. The total size is bounded (SpoolFull beyond it).
 *
 * The replay reads sealed segments only (a segment is sealed when the replay asks for it,
 * when it passes SEGMENT_MAX_BYTES, after a failed write, and every segment found at start),
 * so a segment being read never changes. A torn record (a crash in the middle of a write) or
 * a damaged one fails its length or CRC check: it is reported and skipped (the reader looks
 * for the next magic), and the segment is kept as `<name>.corrompido` for inspection instead
 * of being deleted.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

export const MAGIC = Buffer.from('PWS1', 'latin1');
const HEADER_BYTES = 12;
/** A segment is sealed once it passes this size, so the replay reads bounded files. */
export const SEGMENT_MAX_BYTES = 64 * 1024 * 1024;
const SUFFIX = '.spool';

export interface SpoolRecord {
  /** chosen at intake; it becomes partner_webhook.id, so a replay never stores an event twice */
  id: string;
  /** arrival instant at the edge (ISO-8601 with microseconds) */
  recebidoEm: string;
  contentType: string | null;
  ip: string | null;
  userAgent: string | null;
  corpo: Buffer;
}

/** The spool would pass PARTNER_WEBHOOK_SPOOL_MAX_BYTES with this record. */
export class SpoolFull extends Error {
  constructor(readonly bytes: number, readonly limite: number, readonly registro: number) {
    super(`spool local cheio: ${bytes} de ${limite} bytes ocupados, o evento tem ${registro} bytes`);
  }
}

export function encodeRecord(r: SpoolRecord): Buffer {
  const meta = Buffer.from(JSON.stringify({ id: r.id, recebidoEm: r.recebidoEm, contentType: r.contentType, ip: r.ip, userAgent: r.userAgent }), 'utf8');
  const payloadLen = 4 + meta.length + r.corpo.length;
  const buf = Buffer.allocUnsafe(HEADER_BYTES + payloadLen);
  MAGIC.copy(buf, 0);
  buf.writeUInt32BE(payloadLen, 4);
  buf.writeUInt32BE(meta.length, HEADER_BYTES);
  meta.copy(buf, HEADER_BYTES + 4);
  r.corpo.copy(buf, HEADER_BYTES + 4 + meta.length);
  buf.writeUInt32BE(crc32(buf.subarray(HEADER_BYTES)), 8);
  return buf;
}

function decodePayload(payload: Buffer): SpoolRecord | null {
  if (payload.length < 4) return null;
  const metaLen = payload.readUInt32BE(0);
  if (4 + metaLen > payload.length) return null;
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(payload.subarray(4, 4 + metaLen).toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  if (typeof meta.id !== 'string' || typeof meta.recebidoEm !== 'string') return null;
  return {
    id: meta.id, recebidoEm: meta.recebidoEm, contentType: s(meta.contentType), ip: s(meta.ip), userAgent: s(meta.userAgent),
    corpo: Buffer.from(payload.subarray(4 + metaLen)),
  };
}

/** What a read of a segment yields: a record (and where the next one starts) or damage. */
export type SegmentItem =
  | { tipo: 'registro'; registro: SpoolRecord; bytes: number; fim: number }
  | { tipo: 'dano'; inicio: number; bytes: number; motivo: string; fim: number };

/**
 * Reads the records of a segment file from `desde`. Damage (a torn tail, a bad length, a
 * CRC mismatch) is yielded once per damaged stretch; the reader resumes at the next magic.
 */
export async function* readSegment(path: string, desde = 0): AsyncGenerator<SegmentItem> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    let pos = desde;
    const head = Buffer.alloc(HEADER_BYTES);
    while (pos < size) {
      let motivo: string | null = null;
      if (size - pos < HEADER_BYTES) {
        motivo = `registro incompleto no fim do arquivo (${size - pos} bytes, cabeçalho de ${HEADER_BYTES})`;
      } else {
        await fh.read(head, 0, HEADER_BYTES, pos);
        const len = head.readUInt32BE(4);
        if (!head.subarray(0, 4).equals(MAGIC)) motivo = 'marca de registro ausente';
        else if (pos + HEADER_BYTES + len > size) motivo = `registro incompleto no fim do arquivo (declara ${len} bytes, restam ${size - pos - HEADER_BYTES})`;
        else {
          const payload = Buffer.allocUnsafe(len);
          await fh.read(payload, 0, len, pos + HEADER_BYTES);
          if (crc32(payload) !== head.readUInt32BE(8)) motivo = 'CRC-32 não confere';
          else {
            const registro = decodePayload(payload);
            if (!registro) motivo = 'metadados ilegíveis';
            else {
              const fim = pos + HEADER_BYTES + len;
              yield { tipo: 'registro', registro, bytes: HEADER_BYTES + len, fim };
              pos = fim;
              continue;
            }
          }
        }
      }
      const next = await nextMagic(fh, pos + 1, size);
      yield { tipo: 'dano', inicio: pos, bytes: next - pos, motivo, fim: next };
      pos = next;
    }
  } finally {
    await fh.close();
  }
}

/** Offset of the next magic at or after `from` whose header is plausible, or `size`. */
async function nextMagic(fh: FileHandle, from: number, size: number): Promise<number> {
  const CHUNK = 1024 * 1024;
  const buf = Buffer.alloc(CHUNK + MAGIC.length);
  for (let pos = from; pos < size; pos += CHUNK) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
    let i = buf.subarray(0, bytesRead).indexOf(MAGIC);
    while (i !== -1 && i < CHUNK) {
      if (pos + i + HEADER_BYTES <= size) return pos + i;
      i = buf.subarray(0, bytesRead).indexOf(MAGIC, i + 1);
    }
  }
  return size;
}

export interface Segment {
  nome: string;
  seq: number;
  /** records written (known at start from a scan, then counted) */
  registros: number;
  bytes: number;
  /** records already replayed and where the next one starts */
  reenviados: number;
  offset: number;
  /** arrival of the oldest record not replayed yet */
  maisAntigoEm: string | null;
  selado: boolean;
}

export interface SpoolState {
  registros: number;
  bytes: number;
  limiteBytes: number;
  maisAntigoEm: string | null;
}

interface Pending { buf: Buffer; registro: SpoolRecord; resolve: () => void; reject: (err: unknown) => void }

export class WebhookSpool {
  private segments: Segment[] = [];
  private current: { seg: Segment; fh: FileHandle } | null = null;
  private nextSeq = 1;
  private totalBytes = 0;
  private reserved = 0;
  private queue: Pending[] = [];
  private writing = false;
  /** serialises writes, seals and removals */
  private chain: Promise<unknown> = Promise.resolve();
  private listeners: Array<() => void> = [];

  constructor(readonly dir: string, readonly maxBytes: number) {}

  get habilitado(): boolean {
    return this.maxBytes > 0;
  }

  /** Creates the directory and counts what a previous process left (all sealed). */
  async open(): Promise<void> {
    if (!this.habilitado) return;
    mkdirSync(this.dir, { recursive: true });
    const names = readdirSync(this.dir).filter((n) => /^\d+\.spool$/.test(n)).sort();
    for (const nome of names) {
      const seq = Number(nome.slice(0, -SUFFIX.length));
      const path = join(this.dir, nome);
      const bytes = statSync(path).size;
      const seg: Segment = { nome, seq, registros: 0, bytes, reenviados: 0, offset: 0, maisAntigoEm: null, selado: true };
      for await (const it of readSegment(path)) {
        if (it.tipo === 'registro') {
          seg.registros += 1;
          seg.maisAntigoEm ??= it.registro.recebidoEm;
        }
      }
      this.segments.push(seg);
      this.totalBytes += bytes;
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
    }
  }

  estado(): SpoolState {
    let registros = 0;
    let maisAntigoEm: string | null = null;
    for (const s of this.segments) {
      const n = s.registros - s.reenviados;
      if (n > 0) {
        registros += n;
        if (maisAntigoEm === null && s.maisAntigoEm) maisAntigoEm = s.maisAntigoEm;
      }
    }
    return { registros, bytes: this.totalBytes, limiteBytes: this.maxBytes, maisAntigoEm };
  }

  /** Called after every durable append (the replay waits on it). */
  onAppend(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Appends one record durably: resolves after the fdatasync that covers it. */
  append(registro: SpoolRecord): Promise<void> {
    const buf = encodeRecord(registro);
    if (this.totalBytes + this.reserved + buf.length > this.maxBytes) {
      return Promise.reject(new SpoolFull(this.totalBytes + this.reserved, this.maxBytes, buf.length));
    }
    this.reserved += buf.length;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ buf, registro, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        void this.exclusive(() => this.drain());
      }
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const bytes = batch.reduce((n, p) => n + p.buf.length, 0);
        try {
          const cur = await this.ensureCurrent();
          await cur.fh.write(batch.length === 1 ? batch[0]!.buf : Buffer.concat(batch.map((p) => p.buf), bytes));
          await cur.fh.datasync();
          cur.seg.registros += batch.length;
          cur.seg.bytes += bytes;
          cur.seg.maisAntigoEm ??= batch[0]!.registro.recebidoEm;
          this.totalBytes += bytes;
          this.reserved -= bytes;
          for (const p of batch) p.resolve();
          if (cur.seg.bytes >= SEGMENT_MAX_BYTES) await this.sealCurrent();
        } catch (err) {
          this.reserved -= bytes;
          for (const p of batch) p.reject(err);
          // whatever reached the file is torn or unacknowledged: the next append starts a new
          // segment, and the replay reports this one's damaged tail
          const seg = this.current?.seg;
          await this.sealCurrent().catch(() => undefined);
          if (seg) {
            try {
              const size = statSync(join(this.dir, seg.nome)).size;
              this.totalBytes += size - seg.bytes;
              seg.bytes = size;
            } catch { /* the file is gone */ }
          }
        }
        for (const fn of this.listeners) fn();
      }
    } finally {
      this.writing = false;
    }
  }

  private async ensureCurrent(): Promise<{ seg: Segment; fh: FileHandle }> {
    if (this.current) return this.current;
    const seq = this.nextSeq++;
    const nome = `${String(seq).padStart(12, '0')}${SUFFIX}`;
    const fh = await open(join(this.dir, nome), 'ax');
    // the new name must survive a crash before its first record is acknowledged
    const d = openSync(this.dir, 'r');
    try { fsyncSync(d); } finally { closeSync(d); }
    const seg: Segment = { nome, seq, registros: 0, bytes: 0, reenviados: 0, offset: 0, maisAntigoEm: null, selado: false };
    this.segments.push(seg);
    this.current = { seg, fh };
    return this.current;
  }

  private async sealCurrent(): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    this.current = null;
    cur.seg.selado = true;
    await cur.fh.close();
  }

  /** Seals the segment being written (if it holds records), so the replay may read it. */
  seal(): Promise<void> {
    return this.exclusive(async () => {
      if (this.current && this.current.seg.registros > 0) await this.sealCurrent();
    });
  }

  /** Sealed segments in order, oldest first. */
  selados(): Segment[] {
    return this.segments.filter((s) => s.selado);
  }

  path(seg: Segment): string {
    return join(this.dir, seg.nome);
  }

  /** The replay stored records up to `offset`; `maisAntigoEm` is the next record's arrival (null: none). */
  avancar(seg: Segment, registros: number, offset: number, maisAntigoEm: string | null): void {
    seg.reenviados += registros;
    seg.offset = offset;
    seg.maisAntigoEm = maisAntigoEm;
  }

  /** Drops a segment fully replayed; a damaged one is kept as `<name>.corrompido`. */
  remover(seg: Segment, corrompido: boolean): Promise<string | null> {
    return this.exclusive(async () => {
      const path = this.path(seg);
      let guardado: string | null = null;
      if (corrompido) {
        guardado = `${path}.corrompido`;
        await rename(path, guardado);
      } else {
        await unlink(path);
      }
      const d = openSync(this.dir, 'r');
      try { fsyncSync(d); } finally { closeSync(d); }
      this.segments = this.segments.filter((s) => s !== seg);
      this.totalBytes -= seg.bytes;
      return guardado;
    });
  }

  /** Waits for the writes in flight and closes the segment being written. */
  close(): Promise<void> {
    return this.exclusive(() => this.sealCurrent());
  }
}
