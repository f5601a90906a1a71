/**
 * Security of the screens (spec "Authentication"), one hook for every screen:
 *
 * | mode       | anonymous browser (Accept text/html) | anonymous script | session without permission | session |
 * |------------|--------------------------------------|------------------|----------------------------|---------|
 * | habilitado | 302 /login?from=<path>               | 401              | 403                        | allowed |
 * | bypass     | allowed (development, no login)      | allowed          | —                          | —       |
 * | fechado    | 503                                  | 503              | 503                        | 503     |
 *
 * Permission: the session's e-mail is of the configured domain (a session opened before the
 * domain changed loses access), and a smoke session may only read (GET/HEAD).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, sendProblem } from './problem.js';
import { carregarSessao, leitura, sessaoPermite } from './sessao.js';
import type { Sessao } from './db.js';
import { renderPagina } from './render.js';

export function aceitaHtml(req: FastifyRequest): boolean {
  const a = req.headers.accept;
  return typeof a === 'string' && /text\/html/i.test(a);
}

export function recusar(req: FastifyRequest, reply: FastifyReply, status: number, mensagem: string): FastifyReply {
  if (aceitaHtml(req)) {
    return renderPagina(req, reply, 'erro', { titulo: status === 503 ? 'Telas indisponíveis' : status === 403 ? 'Acesso negado' : 'Não autenticado', status, semNavegacao: status !== 403 }, { mensagem, voltar: null });
  }
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer realm="bi-comercial"');
  return sendProblem(reply, problemBody(status, req, mensagem));
}

/** The onRequest hook of every screen. */
export async function viewGuard(req: FastifyRequest, reply: FastifyReply) {
  const telas = req.server.ctx.config.telas;
  if (telas.modo === 'fechado') {
    return recusar(req, reply, 503, 'As telas estão fechadas: o login pelo provedor de identidade não está configurado neste ambiente de produção.');
  }
  if (telas.modo === 'bypass') {
    req.usuario = { email: 'desenvolvimento', nome: 'Desenvolvimento (sem login)', papel: 'bypass' };
    return;
  }
  const s = await carregarSessao(req);
  if (!s) {
    if (aceitaHtml(req)) {
      const from = leitura(req) ? req.url : (req.headers.referer && safeLocal(req.headers.referer)) || '/';
      return reply.code(302).header('cache-control', 'no-store').redirect(`/login?from=${encodeURIComponent(from)}`, 302);
    }
    return recusar(req, reply, 401, 'sessão ausente ou expirada: entre pelo /login (ou use o token Bearer da API)');
  }
  req.usuario = { email: s.email, nome: s.nome, papel: s.papel };
  if (!sessaoPermite(req, s)) {
    return recusar(req, reply, 403, s.papel === 'smoke'
      ? 'A sessão de verificação (smoke) só pode consultar as telas.'
      : `O e-mail ${s.email} não tem permissão para esta tela.`);
  }
}

/**
 * A local path (for `from`): starts with one slash, no scheme, no backslash, no control
 * character; else null. Returned percent-encoded as a URL parser writes it (`/。x` ->
 * `/%E3%80%82x`), so it can go into a Location header, which takes no character above U+00FF.
 */
export function localPath(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2000) return null;
  if (!v.startsWith('/') || v.startsWith('//') || v.includes('\\') || /[\u0000-\u001f\u007f]/.test(v)) return null;
  let u: URL;
  try { u = new URL(v, 'http://local.invalid'); } catch { return null; }
  if (u.origin !== 'http://local.invalid') return null;
  const p = u.pathname + u.search;
  // dot segments may collapse into '//' (a protocol-relative URL): refused
  if (!p.startsWith('/') || p.startsWith('//') || p.length > 2000) return null;
  return p;
}

function safeLocal(referer: string): string | null {
  try {
    const u = new URL(referer);
    return localPath(u.pathname + u.search);
  } catch { return null; }
}
