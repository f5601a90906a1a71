/** Typed wrappers of the reconciliation ledger's SQL functions (area B; docs/webhook.md, "Reconciliation"). */
import * as db from 'zapatos/db';

export interface ConciliacaoInicio { desde: Date | string; ate: Date | string; tentativas: number }

/** The day's window [desde, ate) to ask the platform for; the ledger row is EM_ANDAMENTO. */
export async function partnerConciliacaoIniciar(q: db.Queryable, dia: string): Promise<ConciliacaoInicio> {
  const [row] = await db.sql<db.SQL, ConciliacaoInicio[]>`
    select desde, ate, tentativas from public.partner_conciliacao_iniciar(${db.param(dia)}::date)`.run(q);
  return row!;
}

/** The SQL verdict of the day from the platform's whole list (partner_conciliar). */
export async function partnerConciliar(q: db.Queryable, dia: string, pedidos: unknown[]): Promise<Record<string, unknown>> {
  const [row] = await db.sql<db.SQL, Array<{ r: Record<string, unknown> }>>`
    select public.partner_conciliar(${db.param(dia)}::date, ${db.param(JSON.stringify(pedidos))}::jsonb) as r`.run(q);
  return row!.r;
}

export async function partnerConciliacaoFalhar(q: db.Queryable, dia: string, erro: string, definitiva: boolean): Promise<void> {
  await db.sql`select public.partner_conciliacao_falhar(${db.param(dia)}::date, ${db.param(erro)}, ${db.param(definitiva)})`.run(q);
}

/** Requests a day's reconciliation (null when that day's job is already queued or running). */
export async function partnerConciliacaoSolicitar(q: db.Queryable, dia: string, agora?: Date): Promise<number | null> {
  const [row] = await db.sql<db.SQL, Array<{ id: string | null }>>`
    select public.partner_conciliacao_solicitar(${db.param(dia)}::date, 'manual',
      coalesce(${db.param(agora ?? null)}::timestamptz, now())) as id`.run(q);
  return row?.id == null ? null : Number(row.id);
}

/** The ledger from `desde` (null: the last 30 days) to `ate` (null: every later day), newest first (partner_conciliacao_resumo). */
export async function partnerConciliacaoResumo(q: db.Queryable, desde: string | null, ate: string | null = null): Promise<Array<Record<string, unknown>>> {
  const [row] = await db.sql<db.SQL, Array<{ r: Array<Record<string, unknown>> }>>`
    select public.partner_conciliacao_resumo(
      coalesce(${db.param(desde)}::date, (now() at time zone 'America/Sao_Paulo')::date - 30), ${db.param(ate)}::date) as r`.run(q);
  return row?.r ?? [];
}

/** One day of the ledger (partner_conciliacao_dia), or null for a day never reconciled. */
export async function partnerConciliacaoDia(q: db.Queryable, dia: string): Promise<Record<string, unknown> | null> {
  const [row] = await db.sql<db.SQL, Array<{ r: Record<string, unknown> | null }>>`
    select public.partner_conciliacao_dia(${db.param(dia)}::date) as r`.run(q);
  return row?.r ?? null;
}
