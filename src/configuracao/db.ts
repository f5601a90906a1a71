/**
 * Thin typed wrappers, one per SQL function the edge calls (zapatos does not type
 * functions). The SQL function decides; these only pass parameters and shape results.
 */
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';

export async function configuracaoDefinir(q: db.Queryable, chave: string, valor: string,
  versaoEsperada: string | null): Promise<s.bi_configuracao.JSONSelectable> {
  const [row] = await db.sql<s.bi_configuracao.SQL, s.bi_configuracao.JSONSelectable[]>`
    select * from public.configuracao_definir(${db.param(chave)}, ${db.param(valor)}, ${db.param(versaoEsperada)}::timestamptz)`.run(q);
  return row!;
}

export async function enqueueJob(q: db.Queryable, kind: string, payload: Record<string, unknown> = {},
  opts: { runAt?: Date; uniqueKey?: string; maxAttempts?: number } = {}): Promise<number | null> {
  const [row] = await db.sql<db.SQL, Array<{ id: number | null }>>`
    select app.enqueue(${db.param(kind)}, ${db.param(JSON.stringify(payload))}::jsonb,
      ${db.param(opts.runAt ?? null)}::timestamptz, ${db.param(opts.uniqueKey ?? null)}, ${db.param(opts.maxAttempts ?? 5)}) as id`.run(q);
  return row?.id ?? null;
}
