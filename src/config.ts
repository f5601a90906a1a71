/**
 * Every environment variable the service reads, parsed and checked once at boot.
 * docs/configuration.md documents each one; keep the two in step.
 */
import type { ArchiveLimits } from './xlsx/limits.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type StorageMode = 'PSQL' | 'PSQL_OBJSTORE' | 'OBJSTORE';

export interface ObjectStoreConfig {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolMax: number;
  apiToken: string;
  storage: {
    mode: StorageMode;
    objstore: ObjectStoreConfig | null;
    backfillEnabled: boolean;
  };
  errtrackerDsn: string | null;
  logsDir: string;
  logLevel: string;
  commit: string | null;
  jobs: { concurrency: number; pollIntervalMs: number; shutdownGraceMs: number };
  /** Spreadsheet uploads: limits of every archive (the batch zip and each xlsx). */
  xls: { limits: ArchiveLimits };
}

export interface ConfigResult {
  config: Config;
  warnings: string[];
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} deve ser um número inteiro (recebido '${raw}')`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} deve estar entre ${min} e ${max} (recebido ${n})`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(true|1|yes|sim)$/i.test(raw)) return true;
  if (/^(false|0|no|não|nao)$/i.test(raw)) return false;
  throw new ConfigError(`${name} deve ser true ou false (recebido '${raw}')`);
}

/** Reads `name`, or else a legacy name (with a warning naming the replacement). */
function withLegacy(env: Env, name: string, legacy: string[], warnings: string[]): string | undefined {
  const v = str(env, name);
  if (v !== undefined) return v;
  for (const old of legacy) {
    const lv = str(env, old);
    if (lv !== undefined) {
      warnings.push(`a variável ${old} está obsoleta; use ${name}`);
      return lv;
    }
  }
  return undefined;
}

export function loadConfig(env: Env = process.env): ConfigResult {
  const warnings: string[] = [];
  const nodeEnv = str(env, 'NODE_ENV');
  const appEnv = nodeEnv === 'production' ? 'production' : nodeEnv === 'test' ? 'test' : 'development';

  const databaseUrl = str(env, 'DATABASE_URL');
  if (!databaseUrl) throw new ConfigError('DATABASE_URL não definida: informe a URL do Postgres (postgres://usuario@host:5432/banco)');

  const apiToken = str(env, 'BI_COMERCIAL_XLS_API_TOKEN');
  if (!apiToken) {
    throw new ConfigError('BI_COMERCIAL_XLS_API_TOKEN vazia ou ausente: a API /api/** exige um token Bearer; defina-a para iniciar o serviço');
  }

  const modeRaw = (str(env, 'S3_FILE_STORAGE') ?? str(env, 'APP_STORAGE_MODO') ?? 'PSQL_OBJSTORE').toUpperCase();
  if (modeRaw !== 'PSQL' && modeRaw !== 'PSQL_OBJSTORE' && modeRaw !== 'OBJSTORE') {
    throw new ConfigError(`S3_FILE_STORAGE deve ser PSQL, PSQL_OBJSTORE ou OBJSTORE (recebido '${modeRaw}')`);
  }
  const mode = modeRaw as StorageMode;

  let objstore: ObjectStoreConfig | null = null;
  if (mode !== 'PSQL') {
    const accessKeyId = withLegacy(env, 'S3_ACCESS_KEY_ID', ['OBJSTORE_ACCESS_KEY', 'AWS_ACCESS_KEY_ID'], warnings);
    const secretAccessKey = withLegacy(env, 'S3_SECRET_ACCESS_KEY', ['OBJSTORE_SECRET_KEY', 'AWS_SECRET_ACCESS_KEY'], warnings);
    const bucket = withLegacy(env, 'S3_BUCKET', ['OBJSTORE_BUCKET'], warnings);
    const endpoint = withLegacy(env, 'S3_ENDPOINT', ['OBJSTORE_ENDPOINT'], warnings) ?? null;
    const region = withLegacy(env, 'S3_REGION', ['OBJSTORE_REGION', 'AWS_REGION'], warnings) ?? 'us-east-1';
    const missing = [
      !accessKeyId && 'S3_ACCESS_KEY_ID',
      !secretAccessKey && 'S3_SECRET_ACCESS_KEY',
      !bucket && 'S3_BUCKET',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw new ConfigError(`S3_FILE_STORAGE=${mode} exige credenciais do object store: faltam ${missing.join(', ')} (ou use S3_FILE_STORAGE=PSQL)`);
    }
    objstore = {
      endpoint, region, bucket: bucket!, accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!,
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', true),
    };
  }

  const errtrackerDsn = str(env, 'ERRTRACKER_DSN') ?? null;
  if (errtrackerDsn) {
    try { new URL(errtrackerDsn); } catch { throw new ConfigError(`ERRTRACKER_DSN não é uma URL válida`); }
  }

  return {
    warnings,
    config: {
      env: appEnv,
      port: int(env, 'PORT', 3000, 0, 65535),
      host: str(env, 'HOST') ?? '0.0.0.0',
      databaseUrl,
      databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 2, 500),
      apiToken,
      storage: { mode, objstore, backfillEnabled: bool(env, 'APP_STORAGE_BACKFILL_ENABLED', false) },
      errtrackerDsn,
      logsDir: str(env, 'APP_LOGS_DIR') ?? './.data/logs',
      logLevel: str(env, 'LOG_LEVEL') ?? 'info',
      commit: str(env, 'GIT_COMMIT') ?? null,
      jobs: {
        concurrency: int(env, 'JOBS_CONCURRENCY', 2, 1, 64),
        pollIntervalMs: int(env, 'JOBS_POLL_INTERVAL_MS', 30_000, 100),
        shutdownGraceMs: int(env, 'JOBS_SHUTDOWN_GRACE_MS', 20_000, 0),
      },
      xls: {
        limits: {
          maxUploadBytes: int(env, 'XLS_UPLOAD_MAX_BYTES', 256 * 1024 * 1024, 1024),
          maxEntries: int(env, 'XLS_ZIP_MAX_ENTRIES', 500, 1, 65_535),
          maxTotalUncompressedBytes: int(env, 'XLS_ZIP_MAX_UNCOMPRESSED_BYTES', 1024 * 1024 * 1024, 1024),
          maxRatio: int(env, 'XLS_ZIP_MAX_RATIO', 200, 1),
        },
      },
    },
  };
}
