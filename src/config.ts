/**
 * Every environment variable the service reads, parsed and checked once at boot.
 * docs/configuration.md documents each one; keep the two in step.
 */
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
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

export interface PartnerConfig {
  /** PARTNER_WEBHOOK_SECRET: when set, X-Partner-Secret must match (constant time) */
  webhookSecret: string | null;
  webhookMaxBytes: number;
  /** the public URL registered on the platform, quoted in the alert e-mail */
  webhookPublicUrl: string | null;
  apiUrl: string | null;
  apiToken: string | null;
  apiTimeoutMs: number;
  apiMaxPages: number;
  watchdog: {
    habilitado: boolean;
    limiteMinComercial: number;
    limiteHoras: number;
    contingenciaAposMinComercial: number;
    contingenciaIntervaloMin: number;
    pollIntervaloHoras: number;
    /** PARTNER_WATCHDOG_APRENDIDO_SEMANAS: weeks the learned silence alarm learns from (0 = off) */
    aprendidoSemanas: number;
    /** PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT: the silence's probability (%) below which it fires */
    aprendidoLimiarPct: number;
  };
  /** PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE as given (ISO date or instant); null = rescue off */
  gatePrimeiraCapturaDesde: string | null;
  /**
   * Group commit of the intake: deliveries waiting together are stored by one multi-row
   * insert, flushed when PARTNER_WEBHOOK_LOTE_MAX wait or PARTNER_WEBHOOK_LOTE_ESPERA_MS
   * after the first one (0, the default: in the same turn of the event loop, no timer); at
   * most inFlight flushes (PARTNER_WEBHOOK_LOTE_EM_VOO) in flight, each
   * holding one pool connection.
   */
  groupCommit: { max: number; waitMs: number; inFlight: number };
  /**
   * Local spool of this replica (docs/webhook.md): a delivery the database does not take
   * within orcamentoMs (PARTNER_WEBHOOK_ORCAMENTO_MS) is appended durably under dir
   * (PARTNER_WEBHOOK_SPOOL_DIR) and answered 200, then replayed; maxBytes
   * (PARTNER_WEBHOOK_SPOOL_MAX_BYTES) bounds it, 0 turns it off (503 after the budget).
   */
  spool: { dir: string; maxBytes: number; orcamentoMs: number };
}

export interface MailConfig {
  smtpUrl: string | null;
  from: string;
}

/** Area D: the reset of the replication to the phones (docs/replicacao.md). */
export interface ReplicatorConfig {
  /** REPLICATOR_CONFIRM_SECRET: X-Confirm-Nuke must match (constant time); null -> the reset answers 503 */
  confirmSecret: string | null;
  slotPrefix: string;
  publication: string;
  /** REPLICATOR_DOCSTORE_URL as given (mongodb://… or postgres://…?schema=…); null -> VALIDAR fails */
  docstoreUrl: string | null;
  restart: 'hosting' | 'manual';
  /** the hosting platform's REST API (Render: POST /services/{id}/suspend and /resume); set when restart = hosting */
  hosting: { apiUrl: string; apiKey: string; serviceId: string; timeoutMs: number } | null;
  /** AGUARDAR_PARADA: how long every prefixed slot may take to go inactive */
  paradaLimiteMs: number;
  /** AGUARDAR_REPLICACAO: how long a prefixed slot may take to be active again */
  replicacaoLimiteMs: number;
  /** VERIFICAR_PARIDADE: how long the engine may take to finish its initial copy and match Postgres */
  paridadeLimiteMs: number;
  /** DROP_DOCSTORE: connection and command time limit */
  docstoreTimeoutMs: number;
  /** how often the waiting steps look at pg_replication_slots */
  pollMs: number;
  /**
   * SYNC_ENGINE_URL: the sync engine's HTTP base URL; the health panel probes
   * GET {url}/probes/liveness. null -> "motor não configurado" (no probe)
   */
  syncEngineUrl: string | null;
}

/**
 * Staff screens. modo: habilitado (every OIDC variable set: screens need a session), bypass
 * (development/test without them: screens open, loud warning) or fechado (production
 * without them: screens answer 503).
 */
export interface TelasConfig {
  modo: 'habilitado' | 'bypass' | 'fechado';
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    /** the e-mail domain allowed in (exact match, lower case) */
    dominio: string;
    /** public base URL of the service; the callback is {baseUrl}/login/callback */
    baseUrl: string;
  } | null;
  sessaoDuracaoHoras: number;
  /** SMOKE_SESSION_TOKEN: POST /smoke/session gives a read-only session; null = route off */
  smokeToken: string | null;
  /** XLS_IMPORTAR_TOKEN: shared secret of the import page (query k); null = page answers 503 */
  importarToken: string | null;
  /** how long the import page waits for the processings before saying "ainda processando" */
  importarEsperaSegundos: number;
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  /**
   * How long a request may take to arrive (src/web/prazo-corpo.ts): a body that receives no
   * byte for ociosoMs (HTTP_CORPO_OCIOSO_MS), or averages under taxaMinBytes a second once
   * twice ociosoMs have passed (HTTP_CORPO_TAXA_MIN_BYTES), is answered 408; the headers must arrive
   * within ociosoMs; Node's total request timeout is left as a backstop that an upload of the
   * largest size at the minimum rate still fits in (requisicaoMaxMs).
   */
  http: { ociosoMs: number; taxaMinBytes: number; requisicaoMaxMs: number };
  databaseUrl: string;
  databasePoolMax: number;
  apiToken: string;
  storage: {
    mode: StorageMode;
    objstore: ObjectStoreConfig | null;
    backfillEnabled: boolean;
  };
  errtrackerDsn: string | null;
  bot: { apiUrl: string; token: string; chatId: string } | null;
  logsDir: string;
  logLevel: string;
  commit: string | null;
  jobs: { concurrency: number; pollIntervalMs: number; shutdownGraceMs: number; heartbeatMs: number; sweepMs: number };
  /**
   * Boot refuses when pg_cron does not serve this database (cron.database_name) or the
   * extension is missing: the watchdog, contingency, poll and sweeps would never run.
   * PG_CRON_OBRIGATORIO=false is for tests on cloned databases only.
   */
  pgCronObrigatorio: boolean;
  /** POST /sync/erp. accessToken null: every call is refused with 401 (boot goes on, with a warning). */
  erpSync: { accessToken: string | null; dryRun: boolean };
  partner: PartnerConfig;
  mail: MailConfig;
  /**
   * Spreadsheet uploads: limits of every archive (the batch zip and each xlsx); rows per chunk
   * of the merge (the database merges one chunk while the reader parses the next); most
   * characters one cell or shared string keeps when a workbook is read (XLS_CELL_MAX_CHARS);
   * heap of the worker thread a spreadsheet is parsed in (XLS_LEITURA_HEAP_MB); largest legacy
   * `.xls` read, which is read whole (XLS_BIFF_MAX_BYTES).
   */
  xls: {
    limits: ArchiveLimits; chunkLinhas: number; maxCellChars: number; leituraHeapMb: number; maxBiffBytes: number;
    /** XLS_LEITURA_TEMPO_MAX_MS: most time one step of a parse may take (open and detect, parameters, a chunk of rows) */
    leituraTempoMaxMs: number;
    /** XLS_MERGE_OCIOSO_MAX_MS: a merge transaction idle this long is ended by Postgres (a stopped worker) */
    mergeOciosoMaxMs: number;
    /**
     * XLS_ORIGINAIS_LOCAIS: the local directory where a received original waits for its
     * processing on this host (no download); null ("off") always downloads.
     */
    originaisLocais: string | null;
  };
  /**
   * TRUST_PROXY: addresses/CIDRs of the reverse proxies whose X-Forwarded-For is believed
   * (fastify's trustProxy). Empty: no proxy is trusted, req.ip is the socket's peer.
   */
  trustProxy: string[];
  replicator: ReplicatorConfig;
  telas: TelasConfig;
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

function decimal(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} deve ser um número (recebido '${raw}')`);
  const n = Number(raw);
  if (!(n > min && n < max)) throw new ConfigError(`${name} deve estar entre ${min} e ${max}, exclusive (recebido ${n})`);
  return n;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(true|1|yes|sim)$/i.test(raw)) return true;
  if (/^(false|0|no|não|nao)$/i.test(raw)) return false;
  throw new ConfigError(`${name} deve ser true ou false (recebido '${raw}')`);
}

/** The variable to read: `name`, or else `legacy` when only it is set (with a warning naming the replacement). */
function legacyName(env: Env, name: string, legacy: string, warnings: string[]): string {
  if (str(env, name) !== undefined || str(env, legacy) === undefined) return name;
  warnings.push(`a variável ${legacy} está obsoleta; use ${name}`);
  return legacy;
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

  const botToken = str(env, 'BOT_TOKEN');
  const botChat = str(env, 'BOT_CHAT_ID');
  if (Boolean(botToken) !== Boolean(botChat)) {
    throw new ConfigError('BOT_TOKEN e BOT_CHAT_ID andam juntas: defina as duas (ou nenhuma, para desligar o bot)');
  }
  if (!botToken) warnings.push('BOT_TOKEN não definida: notificações do bot desligadas');
  const bot = botToken && botChat ? { apiUrl: str(env, 'BOT_API_URL') ?? 'https://api.telegram.org', token: botToken, chatId: botChat } : null;
  const erpSyncToken = str(env, 'ERP_SYNC_ACCESS_TOKEN') ?? null;
  if (!erpSyncToken) {
    warnings.push('ERP_SYNC_ACCESS_TOKEN vazia ou ausente: POST /sync/erp recusará toda chamada com 401 até ela ser definida');
  }
  const partner = loadPartnerConfig(env, appEnv, warnings);
  const mail = loadMailConfig(env);
  const replicator = loadReplicatorConfig(env, warnings);
  const telas = loadTelasConfig(env, appEnv, warnings);

  return {
    warnings,
    config: {
      env: appEnv,
      port: int(env, 'PORT', 3000, 0, 65535),
      host: hostPadrao(env, telas, warnings),
      http: httpPrazos(env),
      databaseUrl,
      databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 2, 500),
      apiToken,
      storage: { mode, objstore, backfillEnabled: bool(env, 'APP_STORAGE_BACKFILL_ENABLED', false) },
      errtrackerDsn,
      bot,
      logsDir: str(env, 'APP_LOGS_DIR') ?? './.data/logs',
      logLevel: str(env, 'LOG_LEVEL') ?? 'info',
      commit: str(env, 'GIT_COMMIT') ?? null,
      jobs: {
        concurrency: int(env, 'JOBS_CONCURRENCY', 2, 1, 64),
        pollIntervalMs: int(env, 'JOBS_POLL_INTERVAL_MS', 30_000, 100),
        shutdownGraceMs: int(env, 'JOBS_SHUTDOWN_GRACE_MS', 20_000, 0),
        heartbeatMs: int(env, 'JOBS_HEARTBEAT_MS', 5_000, 100, 60_000),
        sweepMs: int(env, 'JOBS_SWEEP_MS', 10_000, 100, 600_000),
      },
      pgCronObrigatorio: bool(env, 'PG_CRON_OBRIGATORIO', true),
      erpSync: { accessToken: erpSyncToken, dryRun: bool(env, 'ERP_SYNC_DRY_RUN', true) },
      partner,
      mail,
      xls: {
        limits: {
          maxUploadBytes: int(env, 'XLS_UPLOAD_MAX_BYTES', 256 * 1024 * 1024, 1024),
          maxEntries: int(env, 'XLS_ZIP_MAX_ENTRIES', 500, 1, 65_535),
          maxTotalUncompressedBytes: int(env, 'XLS_ZIP_MAX_UNCOMPRESSED_BYTES', 1024 * 1024 * 1024, 1024),
          maxRatio: int(env, 'XLS_ZIP_MAX_RATIO', 200, 1),
        },
        maxCellChars: int(env, 'XLS_CELL_MAX_CHARS', 32_767, 1, 100_000_000),
        leituraHeapMb: int(env, 'XLS_LEITURA_HEAP_MB', 128, 16, 16_384),
        leituraTempoMaxMs: int(env, 'XLS_LEITURA_TEMPO_MAX_MS', 120_000, 1, 3_600_000),
        mergeOciosoMaxMs: int(env, 'XLS_MERGE_OCIOSO_MAX_MS', 60_000, 1_000, 3_600_000),
        originaisLocais: originaisLocais(env),
        maxBiffBytes: int(env, 'XLS_BIFF_MAX_BYTES', 64 * 1024 * 1024, 1024 * 1024, 2 * 1024 * 1024 * 1024),
        // rows per chunk; XLS_MERGE_LOTE_LINHAS is the legacy name ("lote" also meant the zip batch)
        chunkLinhas: int(env, legacyName(env, 'XLS_MERGE_CHUNK_LINHAS', 'XLS_MERGE_LOTE_LINHAS', warnings), 25_000, 1, 10_000_000),
      },
      trustProxy: trustProxyList(env),
      replicator,
      telas,
    },
  };
}

/** The request-arrival limits (docs/configuration.md, "Core"). */
function httpPrazos(env: Env): { ociosoMs: number; taxaMinBytes: number; requisicaoMaxMs: number } {
  const ociosoMs = int(env, 'HTTP_CORPO_OCIOSO_MS', 30_000, 100, 600_000);
  const taxaMinBytes = int(env, 'HTTP_CORPO_TAXA_MIN_BYTES', 64 * 1024, 0, 1024 * 1024 * 1024);
  const maxUpload = int(env, 'XLS_UPLOAD_MAX_BYTES', 256 * 1024 * 1024, 1024);
  // the largest upload at the minimum rate, after the grace, plus the headers: never the binding limit
  const porTaxa = taxaMinBytes > 0 ? Math.ceil(maxUpload / taxaMinBytes) * 1000 : 3_600_000;
  return { ociosoMs, taxaMinBytes, requisicaoMaxMs: Math.min(2_147_483_647, 3 * ociosoMs + porTaxa) };
}

/** proxy-addr's named ranges, accepted in TRUST_PROXY besides addresses and CIDRs. */
const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** XLS_ORIGINAIS_LOCAIS: an absolute directory, "off", or unset (TMPDIR/bi-originais-locais). */
function originaisLocais(env: Env): string | null {
  const v = env.XLS_ORIGINAIS_LOCAIS?.trim();
  if (!v) return join(tmpdir(), 'bi-originais-locais');
  if (v.toLowerCase() === 'off') return null;
  if (!isAbsolute(v)) throw new ConfigError('XLS_ORIGINAIS_LOCAIS: informe um diretório absoluto ou off');
  return v;
}

/** TRUST_PROXY: a comma-separated list of addresses, CIDRs or proxy-addr's named ranges. */
function trustProxyList(env: Env): string[] {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined) return [];
  const out: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [addr, bits, ...rest] = item.split('/');
    const family = isIP(addr ?? '');
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!(PROXY_KEYWORDS.has(item) || (family !== 0 && okBits && rest.length === 0))) {
      throw new ConfigError(`TRUST_PROXY deve listar endereços IP, CIDRs (10.0.0.0/8) ou loopback/linklocal/uniquelocal, separados por vírgula (recebido '${item}')`);
    }
    out.push(item);
  }
  return out;
}

function httpUrl(env: Env, name: string): string | null {
  const raw = str(env, name);
  if (raw === undefined) return null;
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError(`${name} não é uma URL válida (recebido '${raw}')`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} deve ser uma URL http(s) (recebido '${raw}')`);
  return raw.replace(/\/+$/, '');
}

function loadPartnerConfig(env: Env, appEnv: Config['env'], warnings: string[]): PartnerConfig {
  const webhookSecret = str(env, 'PARTNER_WEBHOOK_SECRET') ?? null;
  if (!webhookSecret && appEnv === 'production') {
    warnings.push('PARTNER_WEBHOOK_SECRET não definida: POST /webhook/partner aceita chamadas sem X-Partner-Secret');
  }
  const apiUrl = httpUrl(env, 'PARTNER_API_URL');
  const apiToken = str(env, 'PARTNER_API_TOKEN') ?? null;
  if (apiUrl && !apiToken) throw new ConfigError('PARTNER_API_URL definida sem PARTNER_API_TOKEN: defina as duas (ou nenhuma) para o poll e a contingência');
  if (apiToken && !apiUrl) throw new ConfigError('PARTNER_API_TOKEN definida sem PARTNER_API_URL: defina as duas (ou nenhuma) para o poll e a contingência');
  const desde = str(env, 'PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE') ?? null;
  if (desde !== null && (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(desde) || Number.isNaN(Date.parse(desde.length === 10 ? `${desde}T00:00:00Z` : desde)))) {
    throw new ConfigError(`PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE deve ser uma data ISO-8601 (2026-11-01 ou 2026-11-01T00:00:00-03:00; recebido '${desde}')`);
  }
  return {
    webhookSecret,
    webhookMaxBytes: int(env, 'PARTNER_WEBHOOK_MAX_BYTES', 16 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    webhookPublicUrl: httpUrl(env, 'PARTNER_WEBHOOK_PUBLIC_URL'),
    apiUrl,
    apiToken,
    apiTimeoutMs: int(env, 'PARTNER_API_TIMEOUT_MS', 30_000, 100, 600_000),
    apiMaxPages: int(env, 'PARTNER_API_MAX_PAGES', 1000, 1, 100_000),
    watchdog: {
      habilitado: bool(env, 'PARTNER_WATCHDOG_HABILITADO', false),
      limiteMinComercial: int(env, 'PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL', 45, 1, 100_000),
      limiteHoras: int(env, 'PARTNER_WATCHDOG_LIMITE_HORAS', 24, 1, 10_000),
      contingenciaAposMinComercial: int(env, 'PARTNER_WATCHDOG_CONTINGENCIA_MIN_COMERCIAL', 15, 1, 100_000),
      contingenciaIntervaloMin: int(env, 'PARTNER_WATCHDOG_CONTINGENCIA_INTERVALO_MIN', 5, 1, 1440),
      pollIntervaloHoras: int(env, 'PARTNER_POLL_INTERVALO_HORAS', 6, 1, 24 * 7),
      aprendidoSemanas: int(env, 'PARTNER_WATCHDOG_APRENDIDO_SEMANAS', 8, 0, 52),
      aprendidoLimiarPct: decimal(env, 'PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT', 1, 0, 100),
    },
    gatePrimeiraCapturaDesde: desde,
    groupCommit: {
      max: int(env, 'PARTNER_WEBHOOK_LOTE_MAX', 64, 1, 10_000),
      waitMs: int(env, 'PARTNER_WEBHOOK_LOTE_ESPERA_MS', 0, 0, 1000),
      inFlight: int(env, 'PARTNER_WEBHOOK_LOTE_EM_VOO', 4, 1, 64),
    },
    spool: {
      dir: str(env, 'PARTNER_WEBHOOK_SPOOL_DIR') ?? './.data/webhook-spool',
      maxBytes: int(env, 'PARTNER_WEBHOOK_SPOOL_MAX_BYTES', 1024 * 1024 * 1024, 0, 1024 * 1024 * 1024 * 1024),
      orcamentoMs: int(env, 'PARTNER_WEBHOOK_ORCAMENTO_MS', 2000, 10, 60_000),
    },
  };
}

function loadMailConfig(env: Env): MailConfig {
  const smtpUrl = str(env, 'SMTP_URL') ?? null;
  if (smtpUrl) {
    let u: URL;
    try { u = new URL(smtpUrl); } catch { throw new ConfigError('SMTP_URL não é uma URL válida (smtp://usuario:senha@host:587 ou smtps://…)'); }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`SMTP_URL deve começar com smtp:// ou smtps:// (recebido '${u.protocol}')`);
  }
  const from = str(env, 'MAIL_FROM') ?? 'bi-comercial <nao-responda@localhost>';
  if (!/@/.test(from)) throw new ConfigError(`MAIL_FROM deve conter um endereço de e-mail (recebido '${from}')`);
  return { smtpUrl, from };
}

function loadReplicatorConfig(env: Env, warnings: string[]): ReplicatorConfig {
  const confirmSecret = str(env, 'REPLICATOR_CONFIRM_SECRET') ?? null;
  if (!confirmSecret) warnings.push('REPLICATOR_CONFIRM_SECRET não definida: o reset da replicação responderá 503');
  const slotPrefix = str(env, 'REPLICATOR_SLOT_PREFIX') ?? 'powersync_';
  if (!/^[a-z0-9_]{1,40}$/.test(slotPrefix)) {
    throw new ConfigError(`REPLICATOR_SLOT_PREFIX deve ter de 1 a 40 caracteres entre a-z, 0-9 e _ (recebido '${slotPrefix}')`);
  }
  // the engine replicates the publication `powersync`, a name fixed in its code: another
  // name would be recreated by the reset and never read by the engine
  const publication = str(env, 'REPLICATOR_PUBLICATION') ?? PUBLICACAO_MOTOR;
  if (publication !== PUBLICACAO_MOTOR) {
    throw new ConfigError(`REPLICATOR_PUBLICATION: o motor de sincronização só lê a publicação '${PUBLICACAO_MOTOR}' (nome fixo no motor); remova a variável (recebido '${publication}')`);
  }
  const docstoreUrl = str(env, 'REPLICATOR_DOCSTORE_URL') ?? null;
  if (docstoreUrl) parseDocstoreUrl(docstoreUrl); // refuses the boot when malformed
  else warnings.push('REPLICATOR_DOCSTORE_URL não definida: um reset da replicação falhará no passo VALIDAR');
  const restartRaw = (str(env, 'REPLICATOR_RESTART') ?? 'manual').toLowerCase();
  if (restartRaw !== 'hosting' && restartRaw !== 'manual') {
    throw new ConfigError(`REPLICATOR_RESTART deve ser hosting ou manual (recebido '${restartRaw}')`);
  }
  let hosting: ReplicatorConfig['hosting'] = null;
  if (restartRaw === 'hosting') {
    const apiKey = str(env, 'REPLICATOR_HOSTING_API_KEY');
    const serviceId = str(env, 'REPLICATOR_HOSTING_SERVICE_ID');
    const missing = [!apiKey && 'REPLICATOR_HOSTING_API_KEY', !serviceId && 'REPLICATOR_HOSTING_SERVICE_ID'].filter(Boolean);
    if (missing.length > 0) throw new ConfigError(`REPLICATOR_RESTART=hosting exige ${missing.join(' e ')}`);
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(serviceId!)) {
      throw new ConfigError(`REPLICATOR_HOSTING_SERVICE_ID deve ser o id do serviço na plataforma (ex.: srv-abc123; recebido '${serviceId}')`);
    }
    hosting = {
      apiUrl: httpUrl(env, 'REPLICATOR_HOSTING_API_URL') ?? 'https://api.render.com/v1',
      apiKey: apiKey!, serviceId: serviceId!,
      timeoutMs: int(env, 'REPLICATOR_HOSTING_TIMEOUT_MS', 15_000, 100, 600_000),
    };
  }
  return {
    confirmSecret, slotPrefix, publication, docstoreUrl, restart: restartRaw, hosting,
    paradaLimiteMs: int(env, 'REPLICATOR_PARADA_LIMITE_S', 120, 1, 86_400) * 1000,
    replicacaoLimiteMs: int(env, 'REPLICATOR_REPLICACAO_LIMITE_S', 300, 1, 86_400) * 1000,
    paridadeLimiteMs: int(env, 'REPLICATOR_PARIDADE_LIMITE_S', 600, 1, 86_400) * 1000,
    docstoreTimeoutMs: int(env, 'REPLICATOR_DOCSTORE_TIMEOUT_MS', 30_000, 100, 600_000),
    pollMs: int(env, 'REPLICATOR_POLL_MS', 1000, 10, 60_000),
    syncEngineUrl: httpUrl(env, 'SYNC_ENGINE_URL'),
  };
}

export type DocstoreAlvo =
  | { kind: 'mongodb'; url: string; database: string }
  | { kind: 'postgres'; url: string; schema: string };

/** The publication and the storage schema of the sync engine: names fixed in the engine's code. */
export const PUBLICACAO_MOTOR = 'powersync';
export const ESQUEMA_ARMAZENAMENTO_MOTOR = 'powersync';

/**
 * REPLICATOR_DOCSTORE_URL: a MongoDB database (the URL's path) or the Postgres database of the
 * engine's storage, whose schema is always `powersync` (a `?schema=` naming another one is
 * refused: the engine would never use it).
 */
export function parseDocstoreUrl(raw: string): DocstoreAlvo {
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError('REPLICATOR_DOCSTORE_URL não é uma URL válida (mongodb://… ou postgres://…)'); }
  if (u.protocol === 'mongodb:' || u.protocol === 'mongodb+srv:') {
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!database || /[/\\. "$]/.test(database)) {
      throw new ConfigError('REPLICATOR_DOCSTORE_URL (MongoDB) deve nomear o banco do motor no caminho: mongodb://host:27017/powersync');
    }
    return { kind: 'mongodb', url: raw, database };
  }
  if (u.protocol === 'postgres:' || u.protocol === 'postgresql:') {
    const schema = u.searchParams.get('schema') ?? ESQUEMA_ARMAZENAMENTO_MOTOR;
    if (schema !== ESQUEMA_ARMAZENAMENTO_MOTOR) {
      throw new ConfigError(`REPLICATOR_DOCSTORE_URL (Postgres): o motor guarda seu armazenamento sempre no schema '${ESQUEMA_ARMAZENAMENTO_MOTOR}' (nome fixo no motor); remova ?schema=${schema} da URL`);
    }
    u.searchParams.delete('schema');
    return { kind: 'postgres', url: u.toString(), schema };
  }
  throw new ConfigError(`REPLICATOR_DOCSTORE_URL deve começar com mongodb://, mongodb+srv:// ou postgres:// (recebido '${u.protocol}')`);
}
/**
 * HOST, or by default every interface, except when the screens are open without login
 * (bypass): then only loopback, unless HOST says otherwise (and then a warning).
 */
function hostPadrao(env: Env, telas: TelasConfig, warnings: string[]): string {
  const host = str(env, 'HOST');
  if (telas.modo !== 'bypass') return host ?? '0.0.0.0';
  if (host === undefined) {
    warnings.push('telas sem login: o serviço escuta só em 127.0.0.1 (loopback); defina HOST para escutar em outra interface');
    return '127.0.0.1';
  }
  if (!/^(127\.|::1$|localhost$)/.test(host)) warnings.push(`telas sem login e HOST=${host}: qualquer pessoa que alcance esta interface usa as telas`);
  return host;
}

const OIDC_VARS = ['OIDC_ISSUER_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_DOMINIO', 'PUBLIC_BASE_URL'] as const;

function loadTelasConfig(env: Env, appEnv: Config['env'], warnings: string[]): TelasConfig {
  const given = OIDC_VARS.filter((n) => str(env, n) !== undefined);
  let modo: TelasConfig['modo'];
  let oidc: TelasConfig['oidc'] = null;
  if (given.length === OIDC_VARS.length) {
    const dominio = str(env, 'OIDC_DOMINIO')!.toLowerCase().replace(/^@/, '');
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(dominio)) throw new ConfigError(`OIDC_DOMINIO deve ser um domínio de e-mail (empresa.com.br; recebido '${dominio}')`);
    oidc = {
      issuer: httpUrl(env, 'OIDC_ISSUER_URL')!,
      clientId: str(env, 'OIDC_CLIENT_ID')!,
      clientSecret: str(env, 'OIDC_CLIENT_SECRET')!,
      dominio,
      baseUrl: httpUrl(env, 'PUBLIC_BASE_URL')!,
    };
    modo = 'habilitado';
  } else if (given.length > 0) {
    const missing = OIDC_VARS.filter((n) => !given.includes(n));
    throw new ConfigError(`login das telas incompleto: faltam ${missing.join(', ')} (defina todas as variáveis OIDC_* e PUBLIC_BASE_URL, ou nenhuma)`);
  } else if (appEnv === 'production') {
    modo = 'fechado';
    warnings.push('telas FECHADAS: produção sem OIDC_ISSUER_URL/OIDC_CLIENT_ID/OIDC_CLIENT_SECRET/OIDC_DOMINIO/PUBLIC_BASE_URL; toda tela responde 503 até o login ser configurado');
  } else {
    modo = 'bypass';
    warnings.push('!!! TELAS ABERTAS SEM LOGIN (modo bypass): OIDC_* não definidas fora de produção. Qualquer pessoa que alcance este endereço usa as telas. Nunca exponha este serviço assim !!!');
  }
  const importarToken = str(env, 'XLS_IMPORTAR_TOKEN') ?? null;
  if (!importarToken) warnings.push('XLS_IMPORTAR_TOKEN não definida: a página /xls/importar responde 503');
  return {
    modo,
    oidc,
    sessaoDuracaoHoras: int(env, 'SESSAO_DURACAO_HORAS', 12, 1, 24 * 30),
    smokeToken: str(env, 'SMOKE_SESSION_TOKEN') ?? null,
    importarToken,
    importarEsperaSegundos: int(env, 'XLS_IMPORTAR_ESPERA_SEGUNDOS', 30, 0, 300),
  };
}
