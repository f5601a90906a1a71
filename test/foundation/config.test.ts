import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ConfigError, loadConfig } from '../../src/config.js';

const run = promisify(execFile);
const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 'tok' };

describe('configuration', () => {
  it('refuses to boot without BI_COMERCIAL_XLS_API_TOKEN, naming it', () => {
    for (const token of [undefined, '', '   ']) {
      expect(() => loadConfig({ ...base, BI_COMERCIAL_XLS_API_TOKEN: token, S3_FILE_STORAGE: 'PSQL' }))
        .toThrowError(/BI_COMERCIAL_XLS_API_TOKEN/);
    }
  });

  it('the real entry point exits with EX_CONFIG and the variable name', async () => {
    const err = await run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, DATABASE_URL: base.DATABASE_URL, S3_FILE_STORAGE: 'PSQL' },
    }).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(err?.code).toBe(78);
    expect(err?.stderr).toContain('BI_COMERCIAL_XLS_API_TOKEN');
  });

  it('screens open without login: loopback unless HOST is set (then a warning); with login or in production every interface', () => {
    const semLogin = loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL' });
    expect(semLogin.config.telas.modo).toBe('bypass');
    expect(semLogin.config.host).toBe('127.0.0.1');
    expect(semLogin.warnings.join('\n')).toContain('escuta só em 127.0.0.1');
    const exposto = loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', HOST: '0.0.0.0' });
    expect(exposto.config.host).toBe('0.0.0.0');
    expect(exposto.warnings.join('\n')).toContain('telas sem login e HOST=0.0.0.0');
    expect(loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', HOST: '127.0.0.1' }).warnings.join('\n')).not.toContain('HOST=');
    expect(loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', NODE_ENV: 'production' }).config.host).toBe('0.0.0.0');
    const oidc = { OIDC_ISSUER_URL: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', OIDC_DOMINIO: 'empresa.com.br', PUBLIC_BASE_URL: 'http://127.0.0.1:3000' };
    expect(loadConfig({ ...base, ...oidc, S3_FILE_STORAGE: 'PSQL' }).config.host).toBe('0.0.0.0');
  });

  it('PSQL storage needs no object-store credentials', () => {
    const { config } = loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL' });
    expect(config.storage.mode).toBe('PSQL');
    expect(config.storage.objstore).toBeNull();
  });

  it('defaults to PSQL_OBJSTORE, which requires credentials at boot', () => {
    expect(() => loadConfig(base)).toThrowError(/S3_ACCESS_KEY_ID.*S3_SECRET_ACCESS_KEY.*S3_BUCKET/);
    expect(() => loadConfig({ ...base, S3_FILE_STORAGE: 'OBJSTORE', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'a' }))
      .toThrowError(/S3_SECRET_ACCESS_KEY/);
    const { config } = loadConfig({ ...base, S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 's', S3_ENDPOINT: 'http://127.0.0.1:9' });
    expect(config.storage.mode).toBe('PSQL_OBJSTORE');
    expect(config.storage.objstore).toMatchObject({ bucket: 'b', endpoint: 'http://127.0.0.1:9', forcePathStyle: true });
  });

  it('still reads the old credential names, with a warning', () => {
    const { config, warnings } = loadConfig({ ...base, S3_FILE_STORAGE: 'OBJSTORE', OBJSTORE_BUCKET: 'b', OBJSTORE_ACCESS_KEY: 'a', OBJSTORE_SECRET_KEY: 's' });
    expect(config.storage.objstore).toMatchObject({ bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' });
    expect(warnings.join('\n')).toMatch(/OBJSTORE_ACCESS_KEY.*S3_ACCESS_KEY_ID/);
  });

  it('rows per merge chunk: XLS_MERGE_CHUNK_LINHAS; the legacy XLS_MERGE_LOTE_LINHAS is read with a warning', () => {
    const ps = { ...base, S3_FILE_STORAGE: 'PSQL' };
    expect(loadConfig(ps).config.xls.chunkLinhas).toBe(25_000);
    expect(loadConfig({ ...ps, XLS_MERGE_CHUNK_LINHAS: '1000' }).config.xls.chunkLinhas).toBe(1000);
    const legacy = loadConfig({ ...ps, XLS_MERGE_LOTE_LINHAS: '500' });
    expect(legacy.config.xls.chunkLinhas).toBe(500);
    expect(legacy.warnings).toContain('a variável XLS_MERGE_LOTE_LINHAS está obsoleta; use XLS_MERGE_CHUNK_LINHAS');
    const both = loadConfig({ ...ps, XLS_MERGE_CHUNK_LINHAS: '1000', XLS_MERGE_LOTE_LINHAS: '500' });
    expect(both.config.xls.chunkLinhas).toBe(1000);
    expect(both.warnings.join('\n')).not.toMatch(/XLS_MERGE_LOTE_LINHAS/);
    expect(() => loadConfig({ ...ps, XLS_MERGE_LOTE_LINHAS: '0' })).toThrowError(/XLS_MERGE_LOTE_LINHAS deve estar entre 1/);
  });

  it('the local store of received originals: TMPDIR/bi-originais-locais by default, an absolute directory, "off"; a relative path refused', () => {
    const ps = { ...base, S3_FILE_STORAGE: 'PSQL' };
    expect(loadConfig(ps).config.xls.originaisLocais).toBe(join(tmpdir(), 'bi-originais-locais'));
    expect(loadConfig({ ...ps, XLS_ORIGINAIS_LOCAIS: '/srv/originais' }).config.xls.originaisLocais).toBe('/srv/originais');
    expect(loadConfig({ ...ps, XLS_ORIGINAIS_LOCAIS: 'OFF' }).config.xls.originaisLocais).toBeNull();
    expect(() => loadConfig({ ...ps, XLS_ORIGINAIS_LOCAIS: 'originais' })).toThrowError(/XLS_ORIGINAIS_LOCAIS: informe um diretório absoluto ou off/);
  });

  it('refuses an unknown storage mode and malformed numbers', () => {
    expect(() => loadConfig({ ...base, S3_FILE_STORAGE: 'DISK' })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', PORT: 'abc' })).toThrowError(/PORT/);
    expect(() => loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', ERRTRACKER_DSN: 'not a url' })).toThrowError(/ERRTRACKER_DSN/);
  });

  it('reads one error-tracker DSN variable and the logs directory', () => {
    const { config } = loadConfig({ ...base, S3_FILE_STORAGE: 'PSQL', ERRTRACKER_DSN: 'http://k@127.0.0.1:9/1', APP_LOGS_DIR: '/var/log/x', SENTRY_DSN: 'http://other@h/2' });
    expect(config.errtrackerDsn).toBe('http://k@127.0.0.1:9/1');
    expect(config.logsDir).toBe('/var/log/x');
  });
});
