/**
 * One error handler for the whole app: RFC 7807 problem+json with the status kept.
 * 5xx answers never carry internals; they are logged at ERROR (and so reach the error
 * tracker). An unmatched route is a 404 problem logged at INFO (never an error event).
 * A browser (Accept text/html) outside /api, /sync and /webhook gets the same answer as a pt-BR page.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem, STATUS_TITLES, httpStatusOfSqlState } from '../errors.js';
import { paginaErro, querPaginaHtml } from './render.js';
import { alreadyReported } from '../operation-context.js';

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

/**
 * What a SQL refusal adds for scripts: a one-word DETAIL is its reason (`motivo`, e.g. the undo's
 * ja_desfeito / conflito), and the undo's conflict carries the later processings as JSON in its HINT.
 */
function sqlExtensoes(err: { detail?: unknown; hint?: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof err.detail === 'string' && /^[a-z_]{1,40}$/.test(err.detail)) out.motivo = err.detail;
  if (out.motivo === 'conflito' && typeof err.hint === 'string') {
    try { out.conflitos = JSON.parse(err.hint); } catch { /* not JSON: left out */ }
  }
  return out;
}

function classify(err: FastifyError & { code?: string; validation?: unknown[] }, req: FastifyRequest): ProblemBody {
  if (err instanceof HttpProblem) {
    return problemBody(err.status, req, err.message, {
      title: err.title, ...(err.code ? { type: `urn:bi-comercial:problema:${err.code}`, code: err.code } : {}), ...err.extensions,
    });
  }
  // the database refusing a character of the request (NUL in text, \u0000 or a lone surrogate in
  // jsonb): bad input, not a failure of the service
  if (err.code === '22021' || err.code === '22P05') {
    return problemBody(400, req, 'a requisição contém um caractere que o banco não aceita (\\u0000 ou texto Unicode inválido)');
  }
  const sqlStatus = httpStatusOfSqlState(err.code);
  if (sqlStatus) {
    return problemBody(sqlStatus, req, err.message, { type: `urn:bi-comercial:problema:${err.code}`, code: err.code, ...sqlExtensoes(err as { detail?: unknown; hint?: unknown }) });
  }
  if (err.validation) {
    const errors = (err.validation as Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }>).map((v) => ({
      campo: (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.') || String(v.params?.missingProperty ?? ''),
      mensagem: v.message ?? 'inválido',
    }));
    return problemBody(400, req, `${(err as { validationContext?: string }).validationContext ?? 'body'}: ${err.message}`, { erros: errors });
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  if (status >= 500) return problemBody(status, req, status === 500 ? 'Erro interno; o incidente foi registrado.' : null);
  const detail = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'corpo da requisição maior que o limite aceito'
    : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'tipo de conteúdo não suportado'
    : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'corpo JSON vazio'
    : err.message;
  return problemBody(status, req, detail);
}

export async function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  req.log.info({ url: req.url }, 'rota não encontrada');
  if (querPaginaHtml(req)) {
    return paginaErro(req, reply, 404, 'Não existe página neste endereço. Confira o link ou comece pelos processamentos.');
  }
  return sendProblem(reply, problemBody(404, req, `nenhuma rota para ${req.method} ${req.url.split('?')[0]}`));
}

export default fp(async function problemPlugin(app: FastifyInstance) {
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const body = classify(err, req);
    if (body.status >= 500 && !alreadyReported(err)) req.log.error({ err }, 'erro ao atender requisição');
    else req.log.info({ status: body.status, code: err.code }, err.message);
    if (querPaginaHtml(req)) {
      return paginaErro(req, reply, body.status, body.status >= 500 ? 'Erro interno; o incidente foi registrado. Tente de novo em instantes.' : body.detail ?? body.title);
    }
    return sendProblem(reply, body);
  });
  app.setNotFoundHandler(notFoundHandler);
}, { name: 'problem' });
