/** REPLICATOR_* variables: defaults, and every refusal of the boot names the variable. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDocstoreUrl } from '../../src/config.js';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 'tok', S3_FILE_STORAGE: 'PSQL' };
const hosting = { REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_KEY: 'rnd_x', REPLICATOR_HOSTING_SERVICE_ID: 'srv-abc' };

describe('replicator configuration', () => {
  it('defaults: manual restart, powersync_ / powersync, reset off (warning) and no docstore (warning)', () => {
    const { config, warnings } = loadConfig(base);
    expect(config.replicator).toMatchObject({
      confirmSecret: null, slotPrefix: 'powersync_', publication: 'powersync', docstoreUrl: null, restart: 'manual', hosting: null,
      paradaLimiteMs: 120_000, replicacaoLimiteMs: 300_000, docstoreTimeoutMs: 30_000, pollMs: 1000,
    });
    expect(warnings.some((w) => w.includes('REPLICATOR_CONFIRM_SECRET'))).toBe(true);
    expect(warnings.some((w) => w.includes('REPLICATOR_DOCSTORE_URL'))).toBe(true);
  });

  it('hosting: Render by default, base URL configurable; key and service id required', () => {
    expect(loadConfig({ ...base, ...hosting }).config.replicator.hosting).toEqual({
      apiUrl: 'https://api.render.com/v1', apiKey: 'rnd_x', serviceId: 'srv-abc', timeoutMs: 15_000,
    });
    expect(loadConfig({ ...base, ...hosting, REPLICATOR_HOSTING_API_URL: 'http://127.0.0.1:9/v1/' }).config.replicator.hosting?.apiUrl)
      .toBe('http://127.0.0.1:9/v1');
    expect(() => loadConfig({ ...base, ...hosting, REPLICATOR_HOSTING_API_KEY: '' })).toThrowError(/REPLICATOR_HOSTING_API_KEY/);
    expect(() => loadConfig({ ...base, ...hosting, REPLICATOR_HOSTING_SERVICE_ID: undefined })).toThrowError(/REPLICATOR_HOSTING_SERVICE_ID/);
    expect(() => loadConfig({ ...base, ...hosting, REPLICATOR_HOSTING_SERVICE_ID: 'srv/../x' })).toThrowError(/REPLICATOR_HOSTING_SERVICE_ID/);
    expect(() => loadConfig({ ...base, ...hosting, REPLICATOR_HOSTING_API_URL: 'ftp://x' })).toThrowError(/REPLICATOR_HOSTING_API_URL/);
  });

  it('refuses a bad strategy, prefix, publication, limit', () => {
    expect(() => loadConfig({ ...base, REPLICATOR_RESTART: 'docker' })).toThrowError(/REPLICATOR_RESTART/);
    expect(() => loadConfig({ ...base, REPLICATOR_SLOT_PREFIX: 'Power-Sync' })).toThrowError(/REPLICATOR_SLOT_PREFIX/);
    // the engine reads the publication `powersync` only: another name is refused, not pretended
    expect(() => loadConfig({ ...base, REPLICATOR_PUBLICATION: 'pub; drop' })).toThrowError(/REPLICATOR_PUBLICATION/);
    expect(() => loadConfig({ ...base, REPLICATOR_PUBLICATION: 'minha_pub' })).toThrowError(/só lê a publicação 'powersync'/);
    expect(loadConfig({ ...base, REPLICATOR_PUBLICATION: 'powersync' }).config.replicator.publication).toBe('powersync');
    expect(loadConfig(base).config.replicator.publication).toBe('powersync');
    expect(() => loadConfig({ ...base, REPLICATOR_PARIDADE_LIMITE_S: '0' })).toThrowError(/REPLICATOR_PARIDADE_LIMITE_S/);
    expect(loadConfig(base).config.replicator.paridadeLimiteMs).toBe(600_000);
    expect(() => loadConfig({ ...base, REPLICATOR_PARADA_LIMITE_S: '0' })).toThrowError(/REPLICATOR_PARADA_LIMITE_S/);
    expect(() => loadConfig({ ...base, REPLICATOR_REPLICACAO_LIMITE_S: 'dez' })).toThrowError(/REPLICATOR_REPLICACAO_LIMITE_S/);
  });

  it('docstore URL: a MongoDB database or a Postgres schema; anything else refuses the boot', () => {
    expect(parseDocstoreUrl('mongodb://u:p@db.example:27017/powersync_storage?authSource=admin'))
      .toMatchObject({ kind: 'mongodb', database: 'powersync_storage' });
    // the engine's storage schema is `powersync`, fixed in the engine: ?schema= may only say so
    expect(parseDocstoreUrl('postgres://u@h:5432/ps?schema=powersync&sslmode=require'))
      .toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/ps?sslmode=require', schema: 'powersync' });
    expect(() => parseDocstoreUrl('postgres://u@h:5432/ps?schema=motor')).toThrowError(/sempre no schema 'powersync'.*remova \?schema=motor/);
    expect(parseDocstoreUrl('postgresql://u@h/ps')).toMatchObject({ kind: 'postgres', schema: 'powersync' });
    for (const bad of ['mongodb://h:27017/', 'mongodb://h/a.b', 'postgres://h/db?schema=public', 'postgres://h/db?schema=app',
      'postgres://h/db?schema=Motor-1', 'mysql://h/db', 'não é url']) {
      expect(() => parseDocstoreUrl(bad), bad).toThrowError(ConfigError);
      expect(() => loadConfig({ ...base, REPLICATOR_DOCSTORE_URL: bad }), bad).toThrowError(/REPLICATOR_DOCSTORE_URL/);
    }
  });
});
