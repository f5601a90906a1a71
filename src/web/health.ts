import type { FastifyInstance } from 'fastify';
import { nullable, obj, str } from '../schemas.js';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/health', {
    schema: { response: { 200: obj({ status: str(), versao: str(), commit: nullable(str()) }), 503: obj({ status: str(), versao: str(), commit: nullable(str()) }) } },
  }, async (_req, reply) => {
    const { version, commit, pool } = app.ctx;
    try {
      await pool.query('select 1');
      return { status: 'UP', versao: version, commit };
    } catch {
      return reply.code(503).send({ status: 'DOWN', versao: version, commit });
    }
  });
}
