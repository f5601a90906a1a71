/**
 * The identity provider (OIDC, authorization code + PKCE, state and nonce) through
 * openid-client. Discovery is fetched once per process and retried after a failure.
 * An http:// issuer is accepted only on loopback (development and tests).
 */
import * as client from 'openid-client';
import type { TelasConfig } from '../config.js';

type Oidc = NonNullable<TelasConfig['oidc']>;

let cached: { key: string; config: Promise<client.Configuration> } | null = null;

function loopback(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
}

export function oidcConfiguracao(o: Oidc): Promise<client.Configuration> {
  const key = `${o.issuer}|${o.clientId}`;
  if (cached?.key === key) return cached.config;
  const issuer = new URL(o.issuer);
  const config = client.discovery(issuer, o.clientId, o.clientSecret, undefined,
    issuer.protocol === 'http:' && loopback(issuer) ? { execute: [client.allowInsecureRequests] } : undefined);
  cached = { key, config };
  config.catch(() => { if (cached?.config === config) cached = null; });
  return config;
}

export function redirectUri(o: Oidc): string {
  return `${o.baseUrl}/login/callback`;
}

export async function urlDeAutorizacao(o: Oidc, p: { state: string; nonce: string; codeVerifier: string }): Promise<URL> {
  const config = await oidcConfiguracao(o);
  return client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(o),
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(p.codeVerifier),
    code_challenge_method: 'S256',
    state: p.state,
    nonce: p.nonce,
    hd: o.dominio,
  });
}

export interface Identidade {
  email: string | null;
  emailVerificado: boolean;
  hd: string | null;
  nome: string | null;
}

/** Exchanges the code (checking state, nonce and PKCE) and returns the ID token's claims. */
export async function trocarCodigo(o: Oidc, callbackUrl: URL, p: { state: string; nonce: string; codeVerifier: string }): Promise<Identidade> {
  const config = await oidcConfiguracao(o);
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: p.codeVerifier, expectedState: p.state, expectedNonce: p.nonce, idTokenExpected: true,
  });
  const c = (tokens.claims() ?? {}) as Record<string, unknown>;
  return {
    email: typeof c.email === 'string' ? c.email.toLowerCase() : null,
    emailVerificado: c.email_verified === true,
    hd: typeof c.hd === 'string' ? c.hd.toLowerCase() : null,
    nome: typeof c.name === 'string' ? c.name : null,
  };
}

/** Null when allowed; otherwise the reason (pt-BR) the login is refused. */
export function motivoRecusa(id: Identidade, dominio: string): string | null {
  if (!id.email) return 'o provedor de identidade não informou o e-mail';
  if (!id.emailVerificado) return `o e-mail ${id.email} não está verificado no provedor de identidade`;
  if (id.email.split('@').pop() !== dominio) return `o e-mail ${id.email} não é do domínio ${dominio}`;
  if (id.hd !== null && id.hd !== dominio) return `a conta pertence à organização ${id.hd}, não a ${dominio}`;
  return null;
}
