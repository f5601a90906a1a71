/**
 * POST /webhook/partner: intake of the order platform's events.
 *
 * The platform disables the webhook after one failed delivery and never resends, so this
 * route's only duties are to check the shared secret and to store the raw body before it
 * answers 200. Every body is accepted as bytes (its own content-type parser: invalid JSON,
 * text, an empty body are stored, never refused); normalisation runs afterwards as a job.
 * Storing is PartnerIntake's (src/pedidos/intake.ts): group commit to the database, or this
 * replica's local spool when the database does not take it in time.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../web/bearer.js';
import { problemBody, sendProblem } from '../web/problem.js';
import { NaoGravado } from './intake.js';
import { bool, obj, uuid } from '../schemas.js';

export default async function partnerWebhookRoutes(app: FastifyInstance) {
  const cfg = app.ctx.config.partner;

  // this plugin is encapsulated: the catch-all parser applies to this route only
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: cfg.webhookMaxBytes },
    (_req: FastifyRequest, body: Buffer | string, done: (err: Error | null, body?: unknown) => void) => {
      done(null, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    });

  async function checkSecret(req: FastifyRequest, reply: FastifyReply) {
    const expected = cfg.webhookSecret;
    if (!expected) return;
    const given = req.headers['x-partner-secret'];
    const value = Array.isArray(given) ? given[0] : given;
    if (typeof value === 'string' && safeEqual(value, expected)) return;
    req.log.warn({ ip: req.ip, presente: value !== undefined }, 'webhook do parceiro recusado: X-Partner-Secret ausente ou inválido');
    return sendProblem(reply, problemBody(401, req, value === undefined
      ? 'cabeçalho X-Partner-Secret ausente'
      : 'X-Partner-Secret inválido'));
  }

  app.post('/webhook/partner', {
    bodyLimit: cfg.webhookMaxBytes,
    onRequest: checkSecret,
    schema: { response: { 200: obj({ recebido: bool(), id: uuid() }) } },
  }, async (req, reply) => {
    const corpo = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const meta = {
      contentType: typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : null,
      ip: req.ip ?? null,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
    };
    try {
      const { id, destino } = await app.ctx.partnerIntake!.receber(corpo, meta);
      if (destino === 'spool') req.log.debug({ id, bytes: corpo.length }, 'webhook do parceiro gravado no spool local');
      return { recebido: true, id };
    } catch (err) {
      if (!(err instanceof NaoGravado)) throw err;
      req.log.error({ err: err.causa, bytes: corpo.length, spoolCheio: err.spoolCheio }, err.message);
      reply.header('Retry-After', '60');
      return sendProblem(reply, problemBody(503, req, err.spoolCheio
        ? 'o banco está indisponível e o spool local está cheio (PARTNER_WEBHOOK_SPOOL_MAX_BYTES): evento NÃO gravado; tente de novo'
        : 'não foi possível gravar o evento; tente de novo'));
    }
  });
}
