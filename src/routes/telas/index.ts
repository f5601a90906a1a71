/**
 * The staff screens (docs/screens.md): one encapsulated context whose onRequest hook is the
 * view guard (modes and rejections), whose forms are urlencoded with a CSRF token checked
 * before any handler, and whose errors render as pt-BR pages for browsers.
 * To add a screen: write a plugin in this folder, register it below, add its template
 * under templates/ and its nav entry in nav.ts.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { HttpProblem, httpStatusOfSqlState } from '../../errors.js';
import { problemBody, sendProblem } from '../../plugins/problem.js';
import { csrfValido } from '../../plugins/sessao.js';
import { renderPagina } from './render.js';
import { aceitaHtml, localPath, viewGuard } from './guard.js';
import processamentosScreens from './processamentos.js';
import adminScreens from './admin.js';
import destinatariosScreens from './destinatarios.js';
import pedidosScreens from './pedidos.js';
import replicacaoScreens from './replicacao.js';

export class CsrfInvalido extends HttpProblem {
  constructor() {
    super(400, 'Requisição inválida', 'O formulário expirou ou foi alterado (token CSRF inválido). Recarregue a página e tente de novo.', 'CSRF400');
  }
}

/** preHandler of every form POST of the screens (and of /logout). */
export async function exigirCsrf(req: FastifyRequest) {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const body = req.body as Record<string, unknown> | undefined;
  if (!csrfValido(req, body?._csrf)) throw new CsrfInvalido();
}

export function viewErrorHandler(err: FastifyError & { code?: string }, req: FastifyRequest, reply: FastifyReply) {
  let status = err instanceof HttpProblem ? err.status : httpStatusOfSqlState(err.code)
    ?? (err.validation ? 400 : typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500);
  if (status < 400 || status > 599) status = 500;
  const mensagem = status >= 500 ? 'Erro interno; o incidente foi registrado.' : err.validation ? `Parâmetro inválido: ${err.message}` : err.message;
  if (status >= 500) req.log.error({ err }, 'erro ao atender tela');
  else req.log.info({ status, code: err.code }, err.message);
  if (!aceitaHtml(req)) return sendProblem(reply, problemBody(status, req, mensagem));
  const titulos: Record<number, string> = { 400: 'Dados inválidos', 403: 'Acesso negado', 404: 'Não encontrado', 409: 'Conflito', 413: 'Arquivo grande demais', 503: 'Indisponível' };
  return renderPagina(req, reply, 'erro', { titulo: titulos[status] ?? 'Erro', status }, { mensagem, voltar: voltarPara(req) });
}

/** Where the error page's "Voltar" goes: the page the form came from (same origin), else the start. */
function voltarPara(req: FastifyRequest): string {
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
