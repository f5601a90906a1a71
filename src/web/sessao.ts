/**
 * Sessions of the staff screens (docs/screens.md). The cookie holds a random token; the
 * database holds its SHA-256 (app.sessao). Cookie name: `__Host-bi_sessao` when the request
 * came over TLS (Secure, Path=/, no Domain, as the prefix demands), `bi_sessao` on plain
 * http (development, tests), where a browser would refuse a `__Host-` cookie. Always
 * HttpOnly and SameSite=Lax.
 *
 * CSRF: every form carries `_csrf`. With a session it is the session's own token (stored
 * with it); without one (login page, bypass mode) it is a double-submit cookie.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import { safeEqual } from './bearer.js';
import { sessaoValidar, type Sessao } from './db.js';

export const SESSAO_COOKIE_TLS = '__Host-bi_sessao';
export const SESSAO_COOKIE_HTTP = 'bi_sessao';
export const CSRF_COOKIE_TLS = '__Host-bi_csrf';
export const CSRF_COOKIE_HTTP = 'bi_csrf';
export const LOGIN_COOKIE_TLS = '__Host-bi_login';
export const LOGIN_COOKIE_HTTP = 'bi_login';

export interface Usuario {
  email: string;
  nome: string | null;
  papel: 'equipe' | 'smoke' | 'bypass';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the session of the cookie, loaded once per request (undefined = not looked up yet) */
    sessaoCache?: Sessao | null;
    usuario?: Usuario;
  }
}

export const aleatorio = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export function viaTls(req: FastifyRequest): boolean {
  return req.protocol === 'https';
}

export function cookieNome(req: FastifyRequest, tls: string, http: string): string {
  return viaTls(req) ? tls : http;
}

export function cookieOpcoes(req: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/', httpOnly: true, sameSite: 'lax' as const, secure: viaTls(req),
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

export function tokenDaSessao(req: FastifyRequest): string | undefined {
  const v = req.cookies[cookieNome(req, SESSAO_COOKIE_TLS, SESSAO_COOKIE_HTTP)];
  return v && v.length >= 32 && v.length <= 128 ? v : undefined;
}

/** The live session of the request's cookie, or null. One database read per request. */
export async function carregarSessao(req: FastifyRequest): Promise<Sessao | null> {
  if (req.sessaoCache !== undefined) return req.sessaoCache;
  const token = tokenDaSessao(req);
  req.sessaoCache = token ? await sessaoValidar(req.server.ctx.pool, token) : null;
  return req.sessaoCache;
}

/** The CSRF token forms of this request must carry (creating the double-submit cookie when needed). */
export function csrfEsperado(req: FastifyRequest, reply: FastifyReply): string {
  if (req.sessaoCache) return req.sessaoCache.csrf;
  const nome = cookieNome(req, CSRF_COOKIE_TLS, CSRF_COOKIE_HTTP);
  let v = req.cookies[nome];
  if (!v || v.length < 32) {
    v = aleatorio();
    req.cookies[nome] = v;
    reply.setCookie(nome, v, cookieOpcoes(req));
  }
  return v;
}

export function csrfValido(req: FastifyRequest, given: unknown): boolean {
  const expected = req.sessaoCache ? req.sessaoCache.csrf : req.cookies[cookieNome(req, CSRF_COOKIE_TLS, CSRF_COOKIE_HTTP)];
  return typeof given === 'string' && typeof expected === 'string' && expected.length >= 32 && safeEqual(given, expected);
}

export default fp(async function sessaoPlugin(app) {
  await app.register(cookie);
}, { name: 'sessao' });

export function leitura(req: FastifyRequest): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

/** Whether this session may do this request (the table in src/web/guard.ts). */
export function sessaoPermite(req: FastifyRequest, s: Sessao): boolean {
  const dominio = req.server.ctx.config.telas.oidc?.dominio;
  if (!dominio || s.email.split('@').pop() !== dominio) return false;
  return s.papel === 'equipe' || leitura(req);
}
