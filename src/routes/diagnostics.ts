/** POST /test/errtracker: raises an error on purpose so operators can see it arrive. */
import type { FastifyInstance } from 'fastify';
import { problemBody, sendProblem } from '../plugins/problem.js';
import { bearerOuSessao } from './api/index.js';

export class DiagnosticError extends Error {
  constructor() {
    super('erro de diagnóstico disparado por POST /test/errtracker');
    this.name = 'DiagnosticError';
  }
}

export default async function diagnosticsRoutes(app: FastifyInstance) {
  // session or Bearer; never anonymous, not even when the screens are open (bypass)
  app.post('/test/errtracker', {
    onRequest: async (req, reply) => {
      if (await bearerOuSessao(req)) return;
      reply.header('WWW-Authenticate', 'Bearer realm="bi-comercial"');
      return sendProblem(reply, problemBody(401, req, 'credencial ausente ou inválida: envie Authorization: Bearer <token> ou entre pelas telas'));
    },
  }, async () => {
    throw new DiagnosticError();
  });
}
