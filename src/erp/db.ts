/**
 * Typed wrappers of the ERP-sync and catalogue SQL functions (docs/erp-sync.md).
 * The SQL functions decide; these only pass parameters and type the results.
 */
import * as db from 'zapatos/db';

export interface ErpSyncItemResult {
  idx: number;
  ean: string | null;
  sku: string;
  preco_recebido: number;
  preco_cheio_recebido: number;
  estoque_recebido: number | null;
  preco_atual: number | null;
  preco_cheio_atual: number | null;
  estoque_atual: number;
  vai_atualizar_preco: boolean;
  vai_atualizar_estoque: boolean;
}

export interface ErpSyncResponse {
  dry_run: boolean;
  recebidos: number;
  casados: number;
  atualizados: number;
  nao_encontrados: string[];
  ambiguos: Array<{ idx: number; ean: string; skus: string[] }>;
  erros: Array<{ idx: number; erro: string }>;
  itens: ErpSyncItemResult[];
}

/** public.erp_sync(items, dry_run, idempotency_key): the whole response, audited. */
export async function erpSync(q: db.Queryable, items: unknown[], dryRun: boolean,
  idempotencyKey: string | null): Promise<ErpSyncResponse> {
  const [row] = await db.sql<db.SQL, Array<{ r: ErpSyncResponse }>>`
    select public.erp_sync(${db.param(JSON.stringify(items))}::jsonb, ${db.param(dryRun)}::boolean,
      ${db.param(idempotencyKey)}::text) as r`.run(q);
  return row!.r;
}

/** public.erp_sync_recusa_registrar(): the audit row of a call refused with 400, 413 or 422. */
export async function erpSyncRecusaRegistrar(q: db.Queryable, status: number, detalhe: string, items: unknown[] | null,
  idempotencyKey: string | null, dryRun: boolean): Promise<number> {
  const [row] = await db.sql<db.SQL, Array<{ id: number }>>`
    select public.erp_sync_recusa_registrar(${db.param(status)}::integer, ${db.param(detalhe)}::text,
      ${db.param(auditableItems(items))}::jsonb, ${db.param(idempotencyKey)}::text, ${db.param(dryRun)}::boolean) as id`.run(q);
  return Number(row!.id);
}

/**
 * The refused items as jsonb text, or null when the body is what was refused for being
 * unstorable: nested too deep to serialise, a NUL or a lone surrogate (jsonb refuses both).
 * The refusal is audited all the same, with its detail and without items.
 */
function auditableItems(items: unknown[] | null): string | null {
  if (items === null) return null;
  let text: string;
  try {
    text = JSON.stringify(items);
  } catch {
    return null;
  }
  // JSON.stringify escapes NUL and lone surrogates (\\u0000, \\ud800): jsonb refuses both
  return /\\u(0000|[dD][89a-fA-F])/.test(text) ? null : text;
}

export interface CatalogoCarga {
  produtos_inseridos: number;
  produtos_atualizados: number;
  variantes_inseridas: number;
  variantes_atualizadas: number;
}

/** public.catalogo_carregar(catalogue): diff-aware upsert of products and variants. */
export async function catalogoCarregar(q: db.Queryable, catalogo: unknown[]): Promise<CatalogoCarga> {
  const [row] = await db.sql<db.SQL, Array<{ r: CatalogoCarga }>>`
    select public.catalogo_carregar(${db.param(JSON.stringify(catalogo))}::jsonb) as r`.run(q);
  return row!.r;
}
