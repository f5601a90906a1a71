/**
 * The staff screens (docs/screens.md): one encapsulated context whose onRequest hook is the
 * view guard (modes and rejections), whose forms are urlencoded with a CSRF token checked
 * before any handler, and whose errors render as pt-BR pages for browsers.
 * To add a screen: write a plugin in this folder, register it below, add its template
 * under templates/ and its nav entry in nav.ts.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { HttpProblem, httpStatusOfSqlState } from '../errors.js';
import { problemBody, sendProblem } from './problem.js';
import { csrfValido } from './sessao.js';
import { paginaErro } from './render.js';
import { aceitaHtml, localPath, viewGuard } from './guard.js';
import processamentosScreens from '../planilhas/telas.js';
import adminScreens from '../configuracao/telas.js';
import destinatariosScreens from '../pedidos/destinatarios.js';
import pedidosScreens from '../pedidos/telas.js';
import replicacaoScreens from '../replicacao/telas.js';
import { alreadyReported } from '../operation-context.js';

export class CsrfInvalido extends HttpProblem {
  constructor() {
    super(400, 'Requisição inválida', 'O formulário expirou ou foi alterado (token CSRF inválido). Recarregue a página e tente de novo.', 'CSRF400');
  }
}

/**
 * A form field the screens refuse before any handler reads it (400, a readable page): a field
 * sent twice (`chave=a&chave=b`: the handlers read one string per field) or a text with a NUL
 * byte (Postgres text cannot hold it). Also for the query string (`?ok=a&ok=b` is ignored by
 * the handlers, so only NUL is refused there).
 */
export function campoRecusado(campos: unknown, repetidos = true): string | null {
  if (!campos || typeof campos !== 'object') return null;
  for (const [nome, v] of Object.entries(campos as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      if (repetidos) return `O campo “${nome}” veio repetido no formulário; envie-o uma vez só.`;
      if (v.some((x) => typeof x === 'string' && x.includes('\u0000'))) return `O campo “${nome}” contém um caractere não aceito (NUL).`;
    } else if (typeof v === 'string' && v.includes('\u0000')) {
      return `O campo “${nome}” contém um caractere não aceito (NUL).`;
    }
  }
  return null;
}

export class CampoInvalido extends HttpProblem {
  constructor(mensagem: string) { super(400, 'Requisição inválida', mensagem, 'FORM400'); }
}

/** preHandler of every form POST of the screens (and of /logout): clean fields, then the CSRF token. */
export async function exigirCsrf(req: FastifyRequest) {
  const naQuery = campoRecusado(req.query, false);
  if (naQuery) throw new CampoInvalido(naQuery);
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const body = req.body as Record<string, unknown> | undefined;
  const recusa = campoRecusado(body);
  if (recusa) throw new CampoInvalido(recusa);
  if (!csrfValido(req, body?._csrf)) throw new CsrfInvalido();
}

export function viewErrorHandler(err: FastifyError & { code?: string }, req: FastifyRequest, reply: FastifyReply) {
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

export default async function viewRoutes(app: FastifyInstance) {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  app.addHook('onRequest', viewGuard);
  app.addHook('preHandler', exigirCsrf);
  app.setErrorHandler(viewErrorHandler);
  app.get('/', async (_req, reply) => reply.redirect('/processamentos', 302));
  await app.register(processamentosScreens);
  await app.register(adminScreens);
  await app.register(destinatariosScreens);
  await app.register(pedidosScreens);
  await app.register(replicacaoScreens);
}
