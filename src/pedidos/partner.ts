/**
 * The order platform's REST API (poll and contingency):
 * GET {PARTNER_API_URL}/orders?updated_since=ISO&page=N with Authorization: Bearer
 * {PARTNER_API_TOKEN} -> {"data": [order], "meta": {"pagination": {"current_page", "total_pages"}}}.
 * The reconciliation asks the same endpoint for one day's orders with the platform's date
 * filter instead: GET {PARTNER_API_URL}/orders?created_since=ISO&created_until=ISO&page=N
 * (orders created in [since, until)), same pages, envelope, timeout and errors.
 */
export interface PartnerApiConfig {
  apiUrl: string;
  apiToken: string;
  apiTimeoutMs: number;
}

export interface OrdersPage {
  data: unknown[];
  currentPage: number;
  totalPages: number;
}

export class PartnerApiError extends Error {
  constructor(message: string, public readonly status: number | null = null) {
    super(message);
    this.name = 'PartnerApiError';
  }
}

export async function fetchOrdersPage(cfg: PartnerApiConfig, updatedSince: Date, page: number,
  signal?: AbortSignal): Promise<OrdersPage> {
  return fetchPage(cfg, { updated_since: updatedSince.toISOString() }, page, signal);
}

/** One page of the orders created in [since, until) (the reconciliation of a day). */
export async function fetchOrdersCreatedPage(cfg: PartnerApiConfig, since: Date, until: Date, page: number,
  signal?: AbortSignal): Promise<OrdersPage> {
  return fetchPage(cfg, { created_since: since.toISOString(), created_until: until.toISOString() }, page, signal);
}

async function fetchPage(cfg: PartnerApiConfig, filter: Record<string, string>, page: number,
  signal?: AbortSignal): Promise<OrdersPage> {
  const url = new URL(`${cfg.apiUrl.replace(/\/+$/, '')}/orders`);
  for (const [k, v] of Object.entries(filter)) url.searchParams.set(k, v);
  url.searchParams.set('page', String(page));
  const timeout = AbortSignal.timeout(cfg.apiTimeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { authorization: `Bearer ${cfg.apiToken}`, accept: 'application/json' },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new PartnerApiError(`plataforma de pedidos inacessível (${url.origin}${url.pathname} página ${page}): ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  if (res.status !== 200) {
    throw new PartnerApiError(`plataforma de pedidos respondeu ${res.status} em ${url.pathname} página ${page}: ${text.slice(0, 200)}`, res.status);
  }
  let body: unknown;
  try { body = JSON.parse(text); } catch {
    throw new PartnerApiError(`plataforma de pedidos respondeu algo que não é JSON na página ${page}`, res.status);
  }
  const b = body as { data?: unknown; meta?: { pagination?: { current_page?: unknown; total_pages?: unknown } } };
  const totalPages = Number(b.meta?.pagination?.total_pages);
  if (!Array.isArray(b.data) || !Number.isInteger(totalPages) || totalPages < 0) {
    throw new PartnerApiError(`resposta da plataforma de pedidos fora do formato esperado na página ${page} (data[] e meta.pagination.total_pages)`, res.status);
  }
  const currentPage = Number(b.meta?.pagination?.current_page ?? page);
  return { data: b.data, currentPage: Number.isInteger(currentPage) ? currentPage : page, totalPages };
}
