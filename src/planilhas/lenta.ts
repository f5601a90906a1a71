/**
 * slow_query_timeout_ms (bi_configuracao, read through the 30 s cache): the threshold from
 * which a query is "slow". The phones use it for their local queries; the service applies
 * the same threshold to the report reads of the screens and the API (the processing list and
 * detail): one at or above it is logged at WARN with its duration, so a missing index shows
 * up in the logs instead of as a slow screen nobody reports.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';

export const SLOW_QUERY_PADRAO_MS = 5000;

export async function limiteConsultaLentaMs(ctx: AppContext): Promise<number> {
  if (!ctx.configuracao) return SLOW_QUERY_PADRAO_MS;
  try {
    return await ctx.configuracao.getInteger('slow_query_timeout_ms', SLOW_QUERY_PADRAO_MS);
  } catch {
    return SLOW_QUERY_PADRAO_MS;
  }
}

export async function consultaMedida<T>(ctx: AppContext, log: FastifyBaseLogger, nome: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  const limite = await limiteConsultaLentaMs(ctx);
  if (ms >= limite) log.warn({ consulta: nome, ms: Math.round(ms), limite }, `consulta lenta: ${nome} levou ${Math.round(ms)} ms (slow_query_timeout_ms = ${limite})`);
  return r;
}
