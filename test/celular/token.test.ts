/** A phone's token (src/celular/token.ts): what the engine's client_auth checks (sync-engine/powersync.yaml). */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/paths.js';
import { AUDIENCIA, KID, tokenCelular } from '../../src/celular/token.js';

const decodificar = (parte: string) => JSON.parse(Buffer.from(parte, 'base64url').toString('utf8')) as Record<string, unknown>;

/** HS256 verification as the engine does it: the signature of header.payload with the key. */
function verifica(token: string, segredoBase64url: string): boolean {
  const [h, p, assinatura] = token.split('.');
  const esperada = createHmac('sha256', Buffer.from(segredoBase64url, 'base64url')).update(`${h}.${p}`).digest('base64url');
  return assinatura === esperada;
}

describe('tokenCelular', () => {
  const segredo = randomBytes(32).toString('base64url');

  it('is a JWT HS256 with the engine key id, the audience, the user as sub, valid for validadeS', () => {
    const antes = Math.floor(Date.now() / 1000);
    const token = tokenCelular(segredo, 'vendedor.ana', 600);
    const partes = token.split('.');
    expect(partes).toHaveLength(3);
    expect(decodificar(partes[0]!)).toEqual({ alg: 'HS256', kid: 'bi-comercial', typ: 'JWT' });
    const corpo = decodificar(partes[1]!);
    expect(corpo.sub).toBe('vendedor.ana');
    expect(corpo.aud).toBe('bi-comercial');
    expect(corpo.iat).toBeGreaterThanOrEqual(antes);
    expect(corpo.iat).toBeLessThanOrEqual(antes + 2);
    expect((corpo.exp as number) - (corpo.iat as number)).toBe(600);
    expect((decodificar(tokenCelular(segredo, 'x').split('.')[1]!).exp as number) - Math.floor(Date.now() / 1000)).toBeGreaterThan(3590);
  });

  it('verifies with its secret; a wrong secret, or a changed payload, does not', () => {
    const token = tokenCelular(segredo, 'suporte');
    expect(verifica(token, segredo)).toBe(true);
    expect(verifica(token, randomBytes(32).toString('base64url'))).toBe(false);
    const [h, , s] = token.split('.');
    const outro = Buffer.from(JSON.stringify({ sub: 'admin', aud: 'bi-comercial', iat: 0, exp: 9e9 })).toString('base64url');
    expect(verifica(`${h}.${outro}.${s}`, segredo)).toBe(false);
  });

  it('uses the key id and audience of the engine configuration', () => {
    const cfg = parse(readFileSync(join(projectRoot, 'sync-engine', 'powersync.yaml'), 'utf8'), {
      customTags: [{ tag: '!env', resolve: (v: string) => v }],
    }) as { client_auth: { jwks: { keys: Array<{ kid: string; alg: string }> }; audience: string[] } };
    expect(cfg.client_auth.jwks.keys.map((k) => [k.kid, k.alg])).toEqual([[KID, 'HS256']]);
    expect(cfg.client_auth.audience).toEqual([AUDIENCIA]);
  });

  it('refuses an empty secret or user', () => {
    expect(() => tokenCelular('', 'x')).toThrow(/segredo/);
    expect(() => tokenCelular(segredo, '')).toThrow(/usuário/);
  });
});
