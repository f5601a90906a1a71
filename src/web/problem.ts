/**
 * RFC 7807 problem+json bodies: what every refusal of the service sends to a script (the
 * one error handler, web/error-handler.ts, and the guards that answer before any handler).
 * A leaf of the web kernel: it imports no page, no session.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_TITLES } from '../errors.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string | null;
  instance: string | null;
  [extension: string]: unknown;
}

export function problemBody(status: number, req: FastifyRequest, detail: string | null,
  extra: Partial<ProblemBody> = {}): ProblemBody {
  return {
    type: 'about:blank',
    title: STATUS_TITLES[status] ?? 'Erro',
    status,
    detail,
    instance: req.url.split('?')[0] ?? null,
    ...extra,
  };
}

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type('application/problem+json; charset=utf-8').serializer(JSON.stringify).send(body);
}

