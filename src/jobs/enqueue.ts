/**
 * app.enqueue from TypeScript: one job of `kind` (the SQL function decides; unique keys, run
 * time and attempts as it documents). The service's own jobs are enqueued by SQL; this is for
 * scripts and tests.
 */
import * as db from 'zapatos/db';

export async function enqueueJob(q: db.Queryable, kind: string, payload: Record<string, unknown> = {},
  opts: { runAt?: Date; uniqueKey?: string; maxAttempts?: number } = {}): Promise<number | null> {
  const [row] = await db.sql<db.SQL, Array<{ id: number | null }>>`
    select app.enqueue(${db.param(kind)}, ${db.param(JSON.stringify(payload))}::jsonb,
      ${db.param(opts.runAt ?? null)}::timestamptz, ${db.param(opts.uniqueKey ?? null)}, ${db.param(opts.maxAttempts ?? 5)}) as id`.run(q);
  return row?.id ?? null;
}
