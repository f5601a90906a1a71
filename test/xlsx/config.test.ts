import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/xlsx/index.js';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 'tok', S3_FILE_STORAGE: 'PSQL' };

describe('XLS_* upload limits', () => {
  it('default to docs/formatos.md: 256 MiB, 500 entries, 1 GiB, 200:1', () => {
    expect(loadConfig(base).config.xls.limits).toEqual(DEFAULT_ARCHIVE_LIMITS);
    expect(DEFAULT_ARCHIVE_LIMITS).toEqual({ maxUploadBytes: 268435456, maxEntries: 500, maxTotalUncompressedBytes: 1073741824, maxRatio: 200 });
  });

  it('each is configurable and checked', () => {
    const { config } = loadConfig({ ...base, XLS_UPLOAD_MAX_BYTES: '1048576', XLS_ZIP_MAX_ENTRIES: '50', XLS_ZIP_MAX_UNCOMPRESSED_BYTES: '2097152', XLS_ZIP_MAX_RATIO: '100' });
    expect(config.xls.limits).toEqual({ maxUploadBytes: 1048576, maxEntries: 50, maxTotalUncompressedBytes: 2097152, maxRatio: 100 });
    expect(() => loadConfig({ ...base, XLS_ZIP_MAX_RATIO: '0' })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...base, XLS_ZIP_MAX_ENTRIES: 'muitos' })).toThrowError(/XLS_ZIP_MAX_ENTRIES/);
  });
});
