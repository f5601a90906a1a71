/**
 * The database unreachable for a while (a restart, a failover): which errors say so, and a
 * retry of one small write until the database answers again. Used where a lost write would
 * leave state behind that nothing else repairs (a job's outcome, a processing's ERRO).
 */

/** SQLSTATEs of a connection ended by the server, or a server not accepting connections yet. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/** True when `err` says the database is (momentarily) unreachable, not that the query was wrong. */
export function dbUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (SQLSTATES.has(code) || CODES.has(code) || code.startsWith('08')) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(msg);
}

/**
 * Runs `fn`, and while it fails because the database is unreachable, again after a pause
 * (0.5 s doubling up to 5 s), for at most `maxMs` (default 10 min) or until `signal` aborts;
 * any other error, or the last one, is thrown.
 */
export async function withDbRetry<T>(fn: () => Promise<T>, opts: { signal?: AbortSignal; maxMs?: number; onRetry?: (err: unknown) => void } = {}): Promise<T> {
  const deadline = Date.now() + (opts.maxMs ?? 600_000);
  let pausa = 500;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!dbUnavailable(err) || Date.now() + pausa > deadline || opts.signal?.aborted) throw err;
      opts.onRetry?.(err);
      await new Promise((r) => setTimeout(r, pausa).unref?.());
      pausa = Math.min(pausa * 2, 5_000);
    }
  }
}
