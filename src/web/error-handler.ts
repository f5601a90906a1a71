/**
 * The one error handler of the service, for the API and the screens alike (registered once,
 * at the root, by this plugin; no context sets another):
 * - RFC 7807 problem+json with the status kept; 5xx answers never carry internals and are
 *   logged at ERROR (and so reach the error tracker); an unmatched route is a 404 problem
 *   logged at INFO (never an error event);
 * - a browser (Accept text/html) outside /api, /sync and /webhook gets the same answer as a
 *   pt-BR page;
 * - a route of the screens (marked by `rotasDeTela`: the guarded screens, the login, the
 *   import page) answers in the screens' words: a pt-BR page whose "Voltar" goes back to the
 *   form the request came from, or, for a caller that does not ask for HTML, a problem with
 *   that same message.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem, httpStatusOfSqlState } from '../errors.js';
import { type ProblemBody, problemBody, sendProblem } from './problem.js';
import { paginaErro, querPaginaHtml } from './render.js';
import { aceitaHtml, localPath } from './guard.js';
import { alreadyReported } from '../operation-context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a route of the screens: its errors answer as the screens do (rotasDeTela) */
    tela?: boolean;
  }
}

/** Marks every route of this context and of its children as a screen's (call it before they are registered). */
export function rotasDeTela(app: FastifyInstance): void {
  app.addHook('onRoute', (r) => { r.config = { ...(r.config ?? {}), tela: true }; });
}

/**
 * What a SQL refusal adds for scripts (docs/error-codes.md): a one-word DETAIL is its reason
 * (`motivo`, e.g. the undo's ja_desfeito), a DETAIL that is a JSON object with a `motivo` gives its
 * fields (the undo's conflict: motivo and conflitos). The HINT is for people, never read.
 */
function sqlExtensoes(err: { detail?: unknown }): Record<string, unknown> {
  if (typeof err.detail !== 'string') return {};
  if (/^[a-z_]{1,40}$/.test(err.detail)) return { motivo: err.detail };
  try {
    const d: unknown = JSON.parse(err.detail);
    if (d && typeof d === 'object' && !Array.isArray(d) && typeof (d as { motivo?: unknown }).motivo === 'string') return { ...d };
  } catch { /* not JSON: nothing */ }
  return {};
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
    return problemBody(sqlStatus, req, err.message, { type: `urn:bi-comercial:problema:${err.code}`, code: err.code, ...sqlExtensoes(err as { detail?: unknown }) });
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

/** How a screen answers an error: its own words, a page with "Voltar" for a browser. */
function erroDeTela(err: FastifyError & { code?: string }, req: FastifyRequest, reply: FastifyReply) {
  // the database refusing a character of the request (NUL, invalid Unicode): bad input
  const caractere = err.code === '22021' || err.code === '22P05';
  let status = err instanceof HttpProblem ? err.status : caractere ? 400 : httpStatusOfSqlState(err.code)
    ?? (err.validation ? 400 : typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500);
  if (status < 400 || status > 599) status = 500;
  const mensagem = status >= 500 ? 'Erro interno; o incidente foi registrado.'
    : caractere ? 'O formulário contém um caractere não aceito (NUL ou texto Unicode inválido); nada foi gravado.'
    : err.validation ? `Parâmetro inválido: ${err.message}` : err.message;
  if (status >= 500 && !alreadyReported(err)) req.log.error({ err }, 'erro ao atender tela');
  else req.log.info({ status, code: err.code }, err.message);
  if (!aceitaHtml(req)) return sendProblem(reply, problemBody(status, req, mensagem));
  return paginaErro(req, reply, status, mensagem, voltarPara(req));
}

/** Where the error page's "Voltar" goes: the page the form came from (same origin), else the start. */
export function voltarPara(req: FastifyRequest): string {
  const ref = req.headers.referer;
  if (typeof ref === 'string') {
    try {
      const u = new URL(ref);
      if (u.host === req.headers.host) return localPath(u.pathname + u.search) ?? '/';
    } catch { /* not a URL */ }
  }
  return '/';
}

/** The one error handler. */
export async function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  if (req.routeOptions.config?.tela) return erroDeTela(err, req, reply);
  const body = classify(err, req);
  if (body.status >= 500 && !alreadyReported(err)) req.log.error({ err }, 'erro ao atender requisição');
  else req.log.info({ status: body.status, code: err.code }, err.message);
  if (querPaginaHtml(req)) {
    return paginaErro(req, reply, body.status, body.status >= 500 ? 'Erro interno; o incidente foi registrado. Tente de novo em instantes.' : body.detail ?? body.title);
  }
  return sendProblem(reply, body);
}

export default fp(async function problemPlugin(app: FastifyInstance) {
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
}, { name: 'problem' });
