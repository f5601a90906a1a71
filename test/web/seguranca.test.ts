/**
 * The views layer's security by HTTP (app.inject): the three modes, the rejection matrix,
 * the static whitelist, Bearer-or-session on the report API, the download and
 * /test/errtracker, the smoke session, logout, CSRF, the login's `from`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { API_TOKEN, bearer, testApp } from '../harness/service.js';
import { loadConfig } from '../../src/config.js';
import { DOMINIO, HTML, SMOKE_TOKEN, appHabilitado, form, linkedStatic, oidcEnv, sessao } from './helpers.js';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await appHabilitado(db);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const SCREENS = ['/processamentos', '/processamentos?status=ERRO&tipo=COMPRAS', '/admin', '/admin/configuracoes', '/destinatarios', '/pedidos', '/admin/replicacao'];

describe('mode habilitado: the rejection matrix', () => {
  it('anonymous browser: 302 to /login?from=<path> on every screen', async () => {
    for (const url of SCREENS) {
      const res = await app.inject({ url, headers: HTML });
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location).toBe(`/login?from=${encodeURIComponent(url)}`);
    }
  });

  it('anonymous script: 401 problem', async () => {
    for (const url of SCREENS) {
      const res = await app.inject({ url, headers: { accept: 'application/json' } });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
    const post = await app.inject({ method: 'POST', url: '/destinatarios', ...form({ email: 'x@y.com' }) });
    expect(post.statusCode).toBe(401);
  });

  it('session allowed: 200 on every screen; other domain: 403; smoke: reads only', async () => {
    const ok = await sessao(db);
    for (const url of SCREENS) {
      const res = await app.inject({ url, headers: { ...HTML, cookie: ok.cookie } });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).not.toContain('Modo desenvolvimento');
    }
    const outro = await sessao(db, 'ze@outra.com.br');
    const r403 = await app.inject({ url: '/processamentos', headers: { ...HTML, cookie: outro.cookie } });
    expect(r403.statusCode).toBe(403);
    expect(r403.body).toContain('Acesso negado');
    const smoke = await sessao(db, `smoke@${DOMINIO}`, 'smoke');
    expect((await app.inject({ url: '/pedidos', headers: { ...HTML, cookie: smoke.cookie } })).statusCode).toBe(200);
    const post = await app.inject({ method: 'POST', url: '/destinatarios', ...form({ _csrf: smoke.csrf, email: 'a@b.com' }), headers: { ...form({}).headers, ...HTML, cookie: smoke.cookie } });
    expect(post.statusCode).toBe(403);
  });

  it('an expired or logged-out session is anonymous again', async () => {
    const s = await sessao(db);
    const out = await app.inject({ method: 'POST', url: '/logout', payload: new URLSearchParams({ _csrf: s.csrf }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie } });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(String(out.headers['set-cookie'])).toMatch(/bi_sessao=;/);
    expect((await app.inject({ url: '/processamentos', headers: { ...HTML, cookie: s.cookie } })).statusCode).toBe(302);
    const e = await sessao(db);
    await db.pool.query(`update app.sessao set expira_em = now() - interval '1 second', criada_em = now() - interval '1 hour' where token_hash = sha256(convert_to($1, 'UTF8'))`, [e.token]);
    expect((await app.inject({ url: '/processamentos', headers: { ...HTML, cookie: e.cookie } })).statusCode).toBe(302);
    const { rows } = await db.pool.query('select app.sessao_expirar() as n');
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
  });

  it('CSRF: a form without the token or with a tampered one is refused with 400, nothing written', async () => {
    const s = await sessao(db);
    const h = { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, ...HTML };
    for (const csrf of [undefined, `${s.csrf.slice(0, -1)}${s.csrf.endsWith('A') ? 'B' : 'A'}`]) {
      const res = await app.inject({ method: 'POST', url: '/destinatarios', headers: h, payload: new URLSearchParams({ email: 'csrf@empresa.com.br', ...(csrf ? { _csrf: csrf } : {}) }).toString() });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('CSRF');
    }
    expect((await db.pool.query(`select count(*)::int as n from destinatario where email = 'csrf@empresa.com.br'`)).rows[0].n).toBe(0);
    const ok = await app.inject({ method: 'POST', url: '/destinatarios', headers: h, payload: new URLSearchParams({ email: 'csrf@empresa.com.br', _csrf: s.csrf }).toString() });
    expect(ok.statusCode).toBe(303);
  });
});

describe('secrets never reach a page', () => {
  it('neither the ERP token nor the API token nor the OIDC client secret appears in any screen', async () => {
    const erp = 'erp-segredo-do-parceiro-0123456789';
    const a = await appHabilitado(db, { ERP_SYNC_ACCESS_TOKEN: erp });
    try {
      const s = await sessao(db);
      const pages = [...SCREENS, '/admin/configuracoes/nova', '/admin/configuracoes/slow_query_timeout_ms', '/login'];
      for (const url of pages) {
        const res = await a.inject({ url, headers: { ...HTML, cookie: s.cookie } });
        for (const secret of [erp, API_TOKEN, oidcEnv().OIDC_CLIENT_SECRET]) expect(res.body, url).not.toContain(secret);
      }
    } finally { await a.close(); }
  });
});

describe('static whitelist', () => {
  it('every static file linked by the layout and the login page answers an anonymous GET', async () => {
    const login = await app.inject({ url: '/login?from=/pedidos', headers: HTML });
    expect(login.statusCode).toBe(200);
    const s = await sessao(db);
    const tela = await app.inject({ url: '/processamentos', headers: { ...HTML, cookie: s.cookie } });
    const links = new Set([...linkedStatic(login.body), ...linkedStatic(tela.body)]);
    expect([...links]).toEqual(expect.arrayContaining(['/css/app.css', '/js/app.js']));
    for (const l of links) {
      const res = await app.inject({ url: l });
      expect(res.statusCode, l).toBe(200);
    }
    expect((await app.inject({ url: '/css/../../package.json' })).statusCode).not.toBe(200);
    expect((await app.inject({ url: '/css/nao-existe.css' })).statusCode).toBe(404);
  });
});

describe('report API, download and diagnostics: Bearer or session', () => {
  it('/api/comercial/processamentos*: Bearer or session for reads; nothing else opens it', async () => {
    const s = await sessao(db);
    expect((await app.inject({ url: '/api/comercial/processamentos' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/comercial/processamentos', headers: bearer() })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/comercial/processamentos', headers: { cookie: s.cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/comercial/processamentos', headers: { cookie: s.cookie, ...bearer('errado') } })).statusCode).toBe(401);
    // a session does not change anything through the API, nor reach other /api routes
    expect((await app.inject({ method: 'POST', url: '/api/comercial/processamentos/reprocessar-erros', headers: { cookie: s.cookie } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/comercial/configuracoes', headers: { cookie: s.cookie } })).statusCode).toBe(401);
    const outro = await sessao(db, 'ze@outra.com.br');
    expect((await app.inject({ url: '/api/comercial/processamentos', headers: { cookie: outro.cookie } })).statusCode).toBe(401);
  });

  it('/processamentos/{id}/arquivo: session (302/401 anonymous) or Bearer', async () => {
    const url = '/processamentos/00000000-0000-4000-8000-000000000000/arquivo';
    expect((await app.inject({ url, headers: HTML })).statusCode).toBe(302);
    expect((await app.inject({ url })).statusCode).toBe(401);
    expect((await app.inject({ url, headers: bearer('errado') })).statusCode).toBe(401);
    expect((await app.inject({ url, headers: bearer() })).statusCode).toBe(404);
    const s = await sessao(db);
    expect((await app.inject({ url, headers: { cookie: s.cookie } })).statusCode).toBe(404);
  });

  it('/test/errtracker: session or Bearer, never anonymous', async () => {
    expect((await app.inject({ method: 'POST', url: '/test/errtracker' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/test/errtracker', headers: bearer() })).statusCode).toBe(500);
    const s = await sessao(db);
    expect((await app.inject({ method: 'POST', url: '/test/errtracker', headers: { cookie: s.cookie } })).statusCode).toBe(500);
  });
});

describe('smoke session and login', () => {
  it('POST /smoke/session: 401 without the right token; a read-only session with it', async () => {
    expect((await app.inject({ method: 'POST', url: '/smoke/session' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/smoke/session', headers: { 'x-smoke-token': 'errado' } })).statusCode).toBe(401);
    const res = await app.inject({ method: 'POST', url: '/smoke/session', headers: { 'x-smoke-token': SMOKE_TOKEN } });
    expect(res.statusCode).toBe(201);
    expect(res.json().papel).toBe('smoke');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^bi_sessao=[^;]+;.*HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = setCookie.split(';')[0]!;
    expect((await app.inject({ url: '/processamentos', headers: { ...HTML, cookie } })).statusCode).toBe(200);
  });

  it('X-Forwarded-Proto from a proxy that is not trusted (TRUST_PROXY unset) does not make the cookie __Host-', async () => {
    const res = await app.inject({ method: 'POST', url: '/smoke/session', headers: { 'x-smoke-token': SMOKE_TOKEN, 'x-forwarded-proto': 'https' } });
    expect(String(res.headers['set-cookie'])).toMatch(/^bi_sessao=[^;]+;/);
    expect(String(res.headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it('over TLS (X-Forwarded-Proto https from a trusted proxy) the cookie is __Host- prefixed and Secure', async () => {
    // TLS ends at the reverse proxy: only a proxy named in TRUST_PROXY is believed
    const app = await appHabilitado(db, { TRUST_PROXY: 'loopback' });
    try {
    const res = await app.inject({ method: 'POST', url: '/smoke/session', headers: { 'x-smoke-token': SMOKE_TOKEN, 'x-forwarded-proto': 'https' } });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-bi_sessao=[^;]+;/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).not.toMatch(/Domain=/);
    const cookie = setCookie.split(';')[0]!;
    expect((await app.inject({ url: '/pedidos', headers: { ...HTML, cookie, 'x-forwarded-proto': 'https' } })).statusCode).toBe(200);
    // the unprefixed name is not read over TLS
    expect((await app.inject({ url: '/pedidos', headers: { ...HTML, cookie: cookie.replace('__Host-', ''), 'x-forwarded-proto': 'https' } })).statusCode).toBe(302);
    } finally {
      await app.close();
    }
  });

  it('/smoke/session is off (404) when SMOKE_SESSION_TOKEN is unset', async () => {
    const off = await testApp(db, oidcEnv());
    try {
      expect((await off.inject({ method: 'POST', url: '/smoke/session', headers: { 'x-smoke-token': SMOKE_TOKEN } })).statusCode).toBe(404);
    } finally { await off.close(); }
  });

  it('/login keeps only a local `from`; the login form needs its CSRF token; a callback without a valid state is 400', async () => {
    for (const bad of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const res = await app.inject({ url: `/login?from=${encodeURIComponent(bad)}`, headers: HTML });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('name="from" value="/processamentos"');
    }
    const res = await app.inject({ url: '/login?from=%2Fpedidos%3Festado%3DCANCELADO', headers: HTML });
    expect(res.body).toContain('name="from" value="/pedidos?estado=CANCELADO"');
    const semCsrf = await app.inject({ method: 'POST', url: '/login', ...form({ from: '/pedidos' }) });
    expect(semCsrf.statusCode).toBe(400);
    const cb = await app.inject({ url: '/login/callback?code=abc&state=forjado-forjado-forjado-forjado-forjado', headers: { ...HTML, cookie: 'bi_login=outro-state' } });
    expect(cb.statusCode).toBe(400);
    const cb2 = await app.inject({ url: '/login/callback?code=abc&state=forjado-forjado-forjado-forjado-forjado', headers: { cookie: 'bi_login=forjado-forjado-forjado-forjado-forjado' } });
    expect(cb2.statusCode).toBe(400);
  });
});

describe('the three modes', () => {
  it('bypass (test/development without OIDC): screens open with a warning; the API and errtracker still need credentials', async () => {
    const { warnings, config } = loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x', BI_COMERCIAL_XLS_API_TOKEN: 't', S3_FILE_STORAGE: 'PSQL' });
    expect(config.telas.modo).toBe('bypass');
    expect(warnings.join('\n')).toMatch(/TELAS ABERTAS SEM LOGIN/);
    const b = await testApp(db);
    try {
      const res = await b.inject({ url: '/processamentos', headers: HTML });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('Modo desenvolvimento');
      expect((await b.inject({ url: '/admin/configuracoes' })).statusCode).toBe(200);
      expect((await b.inject({ url: '/api/comercial/processamentos' })).statusCode).toBe(401);
      expect((await b.inject({ method: 'POST', url: '/test/errtracker' })).statusCode).toBe(401);
      expect((await b.inject({ url: '/login?from=/pedidos', headers: HTML })).headers.location).toBe('/pedidos');
    } finally { await b.close(); }
  });

  it('fechado (production without OIDC): 503 on every screen, static kit still anonymous', async () => {
    const { config } = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://x@127.0.0.1/x', BI_COMERCIAL_XLS_API_TOKEN: 't', S3_FILE_STORAGE: 'PSQL' });
    expect(config.telas.modo).toBe('fechado');
    const f = await testApp(db, { NODE_ENV: 'production' });
    try {
      for (const url of SCREENS) {
        expect((await f.inject({ url, headers: HTML })).statusCode, url).toBe(503);
        expect((await f.inject({ url })).statusCode, url).toBe(503);
      }
      expect((await f.inject({ url: '/login', headers: HTML })).statusCode).toBe(503);
      expect((await f.inject({ url: '/processamentos/00000000-0000-4000-8000-000000000000/arquivo', headers: HTML })).statusCode).toBe(503);
      expect((await f.inject({ url: '/css/app.css' })).statusCode).toBe(200);
      expect((await f.inject({ url: '/js/app.js' })).statusCode).toBe(200);
      expect((await f.inject({ url: '/api/comercial/processamentos' })).statusCode).toBe(401);
    } finally { await f.close(); }
  });

  it('an incomplete OIDC configuration refuses the boot, naming what is missing', () => {
    const env = { DATABASE_URL: 'postgres://x@127.0.0.1/x', BI_COMERCIAL_XLS_API_TOKEN: 't', S3_FILE_STORAGE: 'PSQL', ...oidcEnv() } as Record<string, string | undefined>;
    delete env.OIDC_CLIENT_SECRET;
    expect(() => loadConfig(env)).toThrowError(/OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ ...env, OIDC_CLIENT_SECRET: 's', OIDC_DOMINIO: 'não é domínio' })).toThrowError(/OIDC_DOMINIO/);
  });
});
