/** POST /test/errtracker: raises an error on purpose so operators can see it arrive. */
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../plugins/bearer.js';

export class DiagnosticError extends Error {
  constructor() {
    super('erro de diagnóstico disparado por POST /test/errtracker');
    this.name = 'DiagnosticError';
  }
}

export default async function diagnosticsRoutes(app: FastifyInstance) {
  app.post('/test/errtracker', { onRequest: requireBearer(() => app.ctx.config.apiToken) }, async () => {
    throw new DiagnosticError();
  });
}
