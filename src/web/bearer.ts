/**
 * Bearer authentication, compared in constant time: both sides are hashed first, so the
 * comparison neither short-circuits nor leaks the expected token's length.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, sendProblem } from './problem.js';

export function safeEqual(given: string, expected: string): boolean {
  // one-shot hashes (no Hash object each): this runs for every webhook delivery
  const a = hash('sha256', given, 'buffer');
  const b = hash('sha256', expected, 'buffer');
  return timingSafeEqual(a, b) && expected.length > 0;
}

export function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m?.[1]?.trim();
}

/** An onRequest hook that answers 401 problem unless the Bearer token matches. */
export function requireBearer(expected: () => string | null) {
  return async function bearerHook(req: FastifyRequest, reply: FastifyReply) {
    const want = expected();
    const token = bearerToken(req);
    if (want && token !== undefined && safeEqual(token, want)) return;
    reply.header('WWW-Authenticate', 'Bearer realm="bi-comercial"');
    return sendProblem(reply, problemBody(401, req, token === undefined
      ? 'credencial ausente: envie o cabeçalho Authorization: Bearer <token>'
      : 'token inválido'));
  };
}
