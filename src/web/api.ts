/**
 * /api/**: every route requires the Bearer token (BI_COMERCIAL_XLS_API_TOKEN), except that
 * the reads of /api/comercial/processamentos* also accept a screen session (GET/HEAD only:
 * a session never changes anything through the API, so no CSRF token is needed here).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, requireBearer, safeEqual } from './bearer.js';
import { carregarSessao } from './sessao.js';
import { sessaoPermite } from './sessao.js';
import { notFoundHandler } from './error-handler.js';

export interface ApiOpcoes {
  /** the areas' /api routes, registered in this order (app.ts lists them) */
  rotas: FastifyPluginAsync[];
}

export default async function apiRoutes(app: FastifyInstance, opts: ApiOpcoes) {
  const bearer = requireBearer(() => app.ctx.config.apiToken);
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (await sessaoValeNaApi(req)) return;
    return bearer(req, reply);
  });
  // an unknown /api route is not revealed to an anonymous caller: 401 before 404
  app.setNotFoundHandler({ preHandler: bearer }, notFoundHandler);
  for (const rotas of opts.rotas) await app.register(rotas);
}

/** A view session opens the reads of /api/comercial/processamentos* (when login is enabled). */
export async function sessaoValeNaApi(req: FastifyRequest): Promise<boolean> {
  if (bearerToken(req) !== undefined) return false; // a Bearer given is judged as a Bearer
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (req.server.ctx.config.telas.modo !== 'habilitado') return false;
  const path = req.url.split('?')[0] ?? '';
  if (path !== '/api/comercial/processamentos' && !path.startsWith('/api/comercial/processamentos/')) return false;
  const s = await carregarSessao(req);
  return s !== null && sessaoPermite(req, s);
}

/** Bearer OR a permitted view session (download of originals, /test/errtracker). */
export async function bearerOuSessao(req: FastifyRequest): Promise<boolean> {
  const t = bearerToken(req);
  if (t !== undefined) return safeEqual(t, req.server.ctx.config.apiToken);
  if (req.server.ctx.config.telas.modo !== 'habilitado') return false;
  const s = await carregarSessao(req);
  return s !== null && sessaoPermite(req, s);
}
