/** Polls a list kept by a local fake until an element matches, or fails with `what`. */
export async function waitForItem<T>(items: T[], pred: (item: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = items.find(pred);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(what());
}

/**
 * Waits until a backend is blocked on a lock (pg_stat_activity.wait_event_type = 'Lock'
 * and pg_blocking_pids non-empty): by its pid, or by a fragment of its query. Tests of
 * serialisation wait on this instead of sleeping a fixed time and hoping.
 */
export async function waitUntilBlocked(pool: { query: (sql: string, params: unknown[]) => Promise<{ rows: Array<{ n: number }> }> },
  who: { pid?: number; queryLike?: string }, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query(`select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and cardinality(pg_blocking_pids(pid)) > 0
        and ($1::int is null or pid = $1) and ($2::text is null or query like '%' || $2 || '%')
        and pid <> pg_backend_pid()`, [who.pid ?? null, who.queryLike ?? null]);
    if (rows[0]!.n > 0) return;
    if (Date.now() > deadline) throw new Error(`nenhuma sessão bloqueada em lock (${JSON.stringify(who)}) em ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The backend pid of a pg client (pg.Client or a pool's client). */
export const backendPid = (client: unknown): number => (client as { processID: number }).processID;
