/**
 * /login, /login/callback, /logout and POST /smoke/session (docs/screens.md).
 * The login form is CSRF-protected (double-submit cookie); the callback's CSRF token is the
 * OAuth state, which must match both the browser's login cookie and a pending login in the
 * database (app.login_consumir: once, 10 minutes): otherwise 400. A login that succeeds
 * rotates the session (the cookie the browser came with is ended).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { safeEqual } from './bearer.js';
import { problemBody, sendProblem } from './problem.js';
import {
  LOGIN_COOKIE_HTTP, LOGIN_COOKIE_TLS, SESSAO_COOKIE_HTTP, SESSAO_COOKIE_TLS, aleatorio, carregarSessao, cookieNome, cookieOpcoes, tokenDaSessao,
} from './sessao.js';
import { loginConsumir, loginIniciar, sessaoCriar, sessaoEncerrar } from './db.js';
import { motivoRecusa, redirectUri, trocarCodigo, urlDeAutorizacao } from '../integrations/oidc.js';
import { renderPagina } from './render.js';
import { exigirCsrf } from './telas.js';
import { rotasDeTela } from './error-handler.js';
import { localPath, recusar } from './guard.js';
import { randomPKCECodeVerifier } from 'openid-client';

export async function openSession(req: FastifyRequest, reply: FastifyReply, o: { email: string; nome: string | null; papel: 'equipe' | 'smoke' }) {
  const cfg = req.server.ctx.config.telas;
  const token = aleatorio(32);
  const sessao = await sessaoCriar(req.server.ctx.pool, {
    token, email: o.email, nome: o.nome, papel: o.papel, duracaoHoras: cfg.sessaoDuracaoHoras, csrf: aleatorio(32), anterior: tokenDaSessao(req) ?? null,
  });
  reply.setCookie(cookieNome(req, SESSAO_COOKIE_TLS, SESSAO_COOKIE_HTTP), token, cookieOpcoes(req, cfg.sessaoDuracaoHoras * 3600));
  return sessao;
}

export default async function loginRoutes(app: FastifyInstance) {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  rotasDeTela(app);
  const telas = app.ctx.config.telas;

  // the login form's answer is a redirect to the identity provider: the CSP lets the form go there
  const origemIdp = telas.oidc ? [new URL(telas.oidc.issuer).origin] : [];
  const paginaLogin = (req: FastifyRequest, reply: FastifyReply, from: string, erro: string | null, status = 200) =>
    renderPagina(req, reply, 'login', {
      titulo: 'Entrar', status, semNavegacao: true, banner: erro ? { tipo: 'erro', texto: erro } : null, formAction: origemIdp,
    }, { from, modo: telas.modo });

  app.get<{ Querystring: { from?: string } }>('/login', async (req, reply) => {
    const from = localPath(req.query.from) ?? '/processamentos';
    if (telas.modo === 'fechado') return recusar(req, reply, 503, 'O login não está configurado neste ambiente de produção: as telas estão fechadas.');
    if (telas.modo === 'bypass') return reply.redirect(from, 302);
    if (await carregarSessao(req)) return reply.redirect(from, 302);
    return paginaLogin(req, reply, from, null);
  });

  app.post<{ Body: { from?: string } }>('/login', { preHandler: exigirCsrf }, async (req, reply) => {
    if (!telas.oidc) return recusar(req, reply, telas.modo === 'fechado' ? 503 : 404, 'O login pelo provedor de identidade não está configurado.');
    const from = localPath(req.body?.from) ?? '/processamentos';
    const p = { state: aleatorio(32), nonce: aleatorio(32), codeVerifier: randomPKCECodeVerifier() };
    let url: URL;
    try {
      url = await urlDeAutorizacao(telas.oidc, p);
    } catch (err) {
      req.log.error({ err }, 'provedor de identidade inacessível');
      return paginaLogin(req, reply, from, 'O provedor de identidade não respondeu. Tente de novo em instantes.', 503);
    }
    await loginIniciar(app.ctx.pool, { ...p, destino: from });
    reply.setCookie(cookieNome(req, LOGIN_COOKIE_TLS, LOGIN_COOKIE_HTTP), p.state, cookieOpcoes(req, 600));
    return reply.redirect(url.href, 303);
  });

  const callback = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!telas.oidc) return recusar(req, reply, telas.modo === 'fechado' ? 503 : 404, 'O login pelo provedor de identidade não está configurado.');
    const params = { ...(req.query as Record<string, unknown>), ...((req.body ?? {}) as Record<string, unknown>) };
    const state = typeof params.state === 'string' ? params.state : '';
    const cookieState = req.cookies[cookieNome(req, LOGIN_COOKIE_TLS, LOGIN_COOKIE_HTTP)] ?? '';
    reply.clearCookie(cookieNome(req, LOGIN_COOKIE_TLS, LOGIN_COOKIE_HTTP), cookieOpcoes(req));
    const pendente = state && cookieState && safeEqual(state, cookieState) ? await loginConsumir(app.ctx.pool, state) : null;
    if (!pendente) {
      const msg = 'Login inválido ou expirado (token CSRF/state não confere). Comece de novo pela página de login.';
      return req.headers.accept?.includes('text/html') ? paginaLogin(req, reply, '/processamentos', msg, 400) : sendProblem(reply, problemBody(400, req, msg));
    }
    if (typeof params.error === 'string') {
      return paginaLogin(req, reply, pendente.destino, `O provedor de identidade recusou o login (${params.error}).`, 403);
    }
    const callbackUrl = new URL(redirectUri(telas.oidc));
    for (const [k, v] of Object.entries(params)) if (typeof v === 'string') callbackUrl.searchParams.set(k, v);
    let id;
    try {
      id = await trocarCodigo(telas.oidc, callbackUrl, { state, nonce: pendente.nonce, codeVerifier: pendente.code_verifier });
    } catch (err) {
      req.log.warn({ err }, 'troca do código de login recusada');
      return paginaLogin(req, reply, pendente.destino, 'O login não pôde ser confirmado com o provedor de identidade. Tente de novo.', 400);
    }
    const recusa = motivoRecusa(id, telas.oidc.dominio);
    if (recusa) {
      req.log.info({ email: id.email, hd: id.hd }, 'login recusado');
      return paginaLogin(req, reply, pendente.destino, `Acesso negado: ${recusa}. Entre com uma conta verificada @${telas.oidc.dominio}.`, 403);
    }
    await openSession(req, reply, { email: id.email!, nome: id.nome, papel: 'equipe' });
    req.log.info({ email: id.email }, 'login');
    return reply.redirect(localPath(pendente.destino) ?? '/processamentos', 303);
  };
  app.get('/login/callback', callback);
  app.post('/login/callback', callback);

  app.post('/logout', { preHandler: async (req) => { await carregarSessao(req); return exigirCsrf(req); } }, async (req, reply) => {
    const token = tokenDaSessao(req);
    if (token) await sessaoEncerrar(app.ctx.pool, token);
    reply.clearCookie(cookieNome(req, SESSAO_COOKIE_TLS, SESSAO_COOKIE_HTTP), cookieOpcoes(req));
    return reply.redirect('/login', 303);
  });

  // post-deploy smoke: a read-only session for whoever holds SMOKE_SESSION_TOKEN
  app.post('/smoke/session', async (req, reply) => {
    const want = telas.smokeToken;
    if (!want) return sendProblem(reply, problemBody(404, req, 'nenhuma rota para POST /smoke/session'));
    const h = req.headers['x-smoke-token'];
    if (typeof h !== 'string' || !safeEqual(h, want)) return sendProblem(reply, problemBody(401, req, 'cabeçalho X-Smoke-Token ausente ou inválido'));
    const s = await openSession(req, reply, { email: `smoke@${telas.oidc?.dominio ?? 'localhost'}`, nome: 'Verificação pós-deploy', papel: 'smoke' });
    return reply.code(201).send({ sessao: s.id, papel: 'smoke', expiraEm: new Date(s.expira_em).toISOString() });
  });
}
