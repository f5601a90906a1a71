/** POST /test/errtracker: raises an error on purpose so operators can see it arrive. */
import type { FastifyInstance } from 'fastify';
import { problemBody, sendProblem } from './problem.js';
import { bearerOuSessao } from './api.js';
import { bearerToken } from './bearer.js';
import { csrfValido } from './sessao.js';

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
      if (await bearerOuSessao(req)) {
        // a browser's session is a cookie another site can make it send: it also needs the
        // session's CSRF token (header X-CSRF-Token), as every form of the screens does
        if (bearerToken(req) === undefined && !csrfValido(req, req.headers['x-csrf-token'])) {
          return sendProblem(reply, problemBody(400, req, 'com a sessão das telas, envie também o cabeçalho X-CSRF-Token com o token CSRF da sessão'));
        }
        return;
      }
      reply.header('WWW-Authenticate', 'Bearer realm="bi-comercial"');
      return sendProblem(reply, problemBody(401, req, 'credencial ausente ou inválida: envie Authorization: Bearer <token> ou entre pelas telas'));
    },
  }, async () => {
    throw new DiagnosticError();
  });
}
