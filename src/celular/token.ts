/**
 * A phone's token for the sync engine (sync-engine/powersync.yaml, `client_auth`): a JWT
 * signed HS256 with the engine's key (PS_JWT_SECRET, base64url), key id and audience
 * `bi-comercial`, the salesperson's login as `sub`. node:crypto only.
 */
import { createHmac } from 'node:crypto';

export const KID = 'bi-comercial';
export const AUDIENCIA = 'bi-comercial';

const b64url = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token for `usuario`, valid for `validadeS` seconds from now. */
export function tokenCelular(segredoBase64url: string, usuario: string, validadeS = 3600): string {
  const chave = Buffer.from(segredoBase64url, 'base64url');
  if (chave.length === 0) throw new Error('segredo do motor vazio');
  if (!usuario) throw new Error('usuário vazio');
  const iat = Math.floor(Date.now() / 1000);
  const corpo = `${b64url({ alg: 'HS256', kid: KID, typ: 'JWT' })}.${b64url({ sub: usuario, aud: AUDIENCIA, iat, exp: iat + validadeS })}`;
  return `${corpo}.${createHmac('sha256', chave).update(corpo).digest('base64url')}`;
}
