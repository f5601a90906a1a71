/** /api/**: every route requires the Bearer token (BI_COMERCIAL_XLS_API_TOKEN). */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../../plugins/bearer.js';
import { notFoundHandler } from '../../plugins/problem.js';
import configuracoesRoutes from './configuracoes.js';
import processamentosRoutes from './processamentos.js';
import partnerApiRoutes from './partner.js';
import xlsRoutes from './xls.js';
import replicacaoRoutes from './replicacao.js';

export default async function apiRoutes(app: FastifyInstance) {
  const bearer = requireBearer(() => app.ctx.config.apiToken);
  app.addHook('onRequest', bearer);
  // an unknown /api route is not revealed to an anonymous caller: 401 before 404
  app.setNotFoundHandler({ preHandler: bearer }, notFoundHandler);
  await app.register(configuracoesRoutes);
  await app.register(processamentosRoutes);
  await app.register(partnerApiRoutes);
  await app.register(xlsRoutes);
  await app.register(replicacaoRoutes);
}
