/**
 * The hosting platform's REST API, used by the `hosting` restart strategy of the reset to
 * stop and start the sync engine's service. The platform is Render (public REST API,
 * https://api-docs.render.com):
 *   GET  {base}/services/{serviceId}          -> the service, with `suspended`: "suspended" | "not_suspended"
 *   POST {base}/services/{serviceId}/suspend  -> 202
 *   POST {base}/services/{serviceId}/resume   -> 202
 * with `Authorization: Bearer <API key>`. The base URL is configurable
 * (REPLICATOR_HOSTING_API_URL, default https://api.render.com/v1); tests run a local fake
 * speaking the same routes.
 */
export interface HostingConfig {
  apiUrl: string;
  apiKey: string;
  serviceId: string;
  timeoutMs: number;
}

export class HostingError extends Error {
  constructor(message: string, public readonly status: number | null) {
    super(message);
    this.name = 'HostingError';
  }
}

export interface HostingService {
  id: string;
  name: string | null;
  suspended: string | null;
}

async function call(cfg: HostingConfig, method: 'GET' | 'POST', path: string, signal?: AbortSignal): Promise<unknown> {
  const url = `${cfg.apiUrl.replace(/\/+$/, '')}/services/${encodeURIComponent(cfg.serviceId)}${path}`;
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${cfg.apiKey}`, accept: 'application/json' },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new HostingError(`plataforma de hospedagem inacessível (${method} /services/${cfg.serviceId}${path}): ${err instanceof Error ? err.message : String(err)}`, null);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    let detail = text.slice(0, 300);
    try { detail = String((JSON.parse(text) as { message?: unknown }).message ?? detail); } catch { /* not JSON */ }
    throw new HostingError(`plataforma de hospedagem respondeu ${res.status} a ${method} /services/${cfg.serviceId}${path}: ${detail}`, res.status);
  }
  if (!text) return null;
  try { return JSON.parse(text); } catch { return null; }
}

export async function getService(cfg: HostingConfig, signal?: AbortSignal): Promise<HostingService> {
  const body = (await call(cfg, 'GET', '', signal)) as Record<string, unknown> | null;
  return {
    id: String(body?.id ?? cfg.serviceId),
    name: typeof body?.name === 'string' ? body.name : null,
    suspended: typeof body?.suspended === 'string' ? body.suspended : null,
  };
}

export async function suspendService(cfg: HostingConfig, signal?: AbortSignal): Promise<void> {
  await call(cfg, 'POST', '/suspend', signal);
}

export async function resumeService(cfg: HostingConfig, signal?: AbortSignal): Promise<void> {
  await call(cfg, 'POST', '/resume', signal);
}
