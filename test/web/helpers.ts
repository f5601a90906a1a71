/** Helpers of the screen tests: apps in each security mode, sessions, forms. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TestDatabase } from '../harness/db.js';
import { testApp } from '../harness/service.js';
import { sessaoCriar } from '../../src/web/db.js';

export const DOMINIO = 'empresa.com.br';
export const IMPORTAR_TOKEN = 'importar-segredo-0123456789';
export const SMOKE_TOKEN = 'smoke-segredo-0123456789';

export function oidcEnv(issuer = 'http://127.0.0.1:9/', baseUrl = 'http://127.0.0.1:3000'): Record<string, string> {
  return {
    OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: 'bi-comercial', OIDC_CLIENT_SECRET: 'segredo-do-cliente-0123456789',
    OIDC_DOMINIO: DOMINIO, PUBLIC_BASE_URL: baseUrl,
  };
}

export async function appHabilitado(db: TestDatabase, extra: Record<string, string> = {}): Promise<FastifyInstance> {
  return testApp(db, { ...oidcEnv(), XLS_IMPORTAR_TOKEN: IMPORTAR_TOKEN, SMOKE_SESSION_TOKEN: SMOKE_TOKEN, ...extra });
}

export interface SessaoTeste { cookie: string; csrf: string; token: string }

export async function sessao(db: TestDatabase, email = `ana@${DOMINIO}`, papel: 'equipe' | 'smoke' = 'equipe'): Promise<SessaoTeste> {
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  await sessaoCriar(db.pool, { token, email, nome: 'Ana', papel, duracaoHoras: 1, csrf, anterior: null });
  return { cookie: `bi_sessao=${token}`, csrf, token };
}

export const HTML = { accept: 'text/html,application/xhtml+xml' };

export function form(fields: Record<string, string>): { payload: string; headers: Record<string, string> } {
  return { payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

/** Every href/src of a page that points at a local static file. */
export function linkedStatic(html: string): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(/(?:href|src)="(\/[^"]+)"/g)) {
    if (/^\/(css|js)\//.test(m[1]!) || /\.(css|js|png|svg|ico|woff2?)$/.test(m[1]!)) out.add(m[1]!);
  }
  return [...out];
}

/**
 * GET and form POST of a signed-in browser: the session cookie on both, and the form's CSRF
 * token unless `csrf` is false. `app` and `s` are read at each call (set in beforeAll).
 */
export function navegador(app: () => FastifyInstance, s: () => SessaoTeste) {
  return {
    get: (url: string) => app().inject({ url, headers: { ...HTML, cookie: s().cookie } }),
    post: (url: string, fields: Record<string, string>, csrf = true) => app().inject({
      method: 'POST', url, headers: { ...HTML, cookie: s().cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...(csrf ? { _csrf: s().csrf } : {}), ...fields }).toString(),
    }),
  };
}
