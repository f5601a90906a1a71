/**
 * A real OpenID Provider on loopback (oidc-provider) for the login tests. Its development
 * login form accepts any login: the login is the account's e-mail, and the account's claims
 * follow from it:
 *   - `naoverificado…@…`  -> email_verified false
 *   - `…+hd=<dominio>@…`  -> the hd claim set to <dominio>
 *   - anything else       -> email_verified true, no hd
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Provider from 'oidc-provider';

export interface TestIdp {
  issuer: string;
  close(): Promise<void>;
}

export function claimsDe(login: string): Record<string, unknown> {
  const m = /^(.*)\+hd=([^@]+)(@.*)$/.exec(login);
  const email = m ? `${m[1]}${m[3]}` : login;
  return {
    sub: login,
    email,
    email_verified: !email.startsWith('naoverificado'),
    name: email.split('@')[0],
    ...(m ? { hd: m[2] } : {}),
  };
}

export async function startIdp(o: { clientId: string; clientSecret: string; redirectUri: string }): Promise<TestIdp> {
  // the issuer URL must be known before listening: take a free port first
  const probe = (await import('node:net')).createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: o.clientId, client_secret: o.clientSecret, redirect_uris: [o.redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
    claims: { openid: ['sub', 'hd'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => claimsDe(id) as { sub: string } }),
    cookies: { keys: ['chave-de-teste-dos-cookies-do-idp'] },
  });
  provider.on('server_error', () => undefined);
  const server: Server = await new Promise((resolve) => { const s = provider.listen(port, '127.0.0.1', () => resolve(s)); });
  return {
    issuer,
    close: () => new Promise<void>((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
  };
}
