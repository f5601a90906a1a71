/** /sync/**: partner integrations, each with its own Bearer (here ERP_SYNC_ACCESS_TOKEN). */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../web/bearer.js';
import { notFoundHandler } from '../web/error-handler.js';
import erpSyncRoute from './sync-erp.js';

export default async function syncRoutes(app: FastifyInstance) {
  // unset token: requireBearer refuses every call (401); config.ts warned at boot
  const bearer = requireBearer(() => app.ctx.config.erpSync.accessToken);
  app.addHook('onRequest', bearer);
  app.setNotFoundHandler({ preHandler: bearer }, notFoundHandler);
  await app.register(erpSyncRoute);
}
