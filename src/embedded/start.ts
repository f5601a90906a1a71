/**
 * `npm start`: runs the service on embedded defaults. Whatever is not configured is
 * provided locally under .data/: a Postgres cluster (pg_cron, wal_level=logical) when
 * DATABASE_URL is unset, an S3-compatible store when the storage mode needs one and no
 * S3_ENDPOINT/S3_BUCKET is set, and development tokens when none are set and the database
 * is the embedded one (with DATABASE_URL set, a missing BI_COMERCIAL_XLS_API_TOKEN refuses
 * the boot). The object store runs as a child process (its memory is not the service's).
 * Without OIDC the screens open without login: the service then listens on loopback only
 * unless HOST is set (src/config.ts). With SYNC_ENGINE_CMD set, alongside the embedded
 * database, the sync engine runs as a child too (motor.ts), and a reset of the replication
 * stops and starts it through a local endpoint speaking the hosting platform's API. A second
 * run reuses the data. Ctrl-C stops the service first (it releases its jobs), then what it
 * started; the embedded Postgres runs in a session of its own, out of reach of the
 * terminal's Ctrl-C, and stops by itself if this process dies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { projectRoot } from '../paths.js';
import { ensureDatabase, portIsFree, startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js';
import { startEmbeddedObjectStore, type EmbeddedObjectStore } from './objstore.js';
import { prepararMotor, SEGREDOS_DO_MOTOR, type MotorEmbutido } from './motor.js';
import { ConfigError } from '../config.js';
import { installSignalHandlers, startService } from '../main.js';
import { seedDemoCatalogue } from '../erp/demo-catalogo.js';

const dataDir = process.env.APP_DATA_DIR ?? join(projectRoot, '.data');
const say = (msg: string) => process.stderr.write(`[start] ${msg}\n`);

/**
 * The development secrets, generated once and kept in .data/dev-secrets.json (0600): the API
 * and ERP tokens, the import page's `k` and the replication reset's confirmation, so that
 * every page works on a first run; with the sync engine, its signing key and admin token
 * too (`more`). A file from an older run gains the secrets it lacks.
 */
function devSecrets(more: Record<string, () => string> = {}): Record<string, string> {
  const file = join(dataDir, 'dev-secrets.json');
  const secrets: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Record<string, string> : {};
  const token = (prefix: string) => () => `${prefix}${randomBytes(18).toString('base64url')}`;
  const wanted: Record<string, () => string> = {
    BI_COMERCIAL_XLS_API_TOKEN: token('dev-'),
    ERP_SYNC_ACCESS_TOKEN: token('dev-erp-'),
    XLS_IMPORTAR_TOKEN: token('dev-importar-'),
    REPLICATOR_CONFIRM_SECRET: token('dev-reset-'),
    ...more,
  };
  let changed = false;
  for (const [k, make] of Object.entries(wanted)) {
    if (secrets[k]) continue;
    secrets[k] = make();
    changed = true;
  }
  if (changed) writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  return secrets;
}

async function run(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env };
  let pgServer: EmbeddedPostgres | null = null;
  let s3: EmbeddedObjectStore | null = null;
  let motor: MotorEmbutido | null = null;
  const stopEmbedded = async () => {
    await motor?.stop().catch(() => undefined);
    await s3?.stop().catch(() => undefined);
    await pgServer?.stop().catch(() => undefined);
  };

  try {
    if (!env.DATABASE_URL) {
      const portFile = join(dataDir, 'pg-port');
      const port = env.EMBEDDED_PG_PORT !== undefined ? Number(env.EMBEDDED_PG_PORT) || undefined
        : existsSync(portFile) ? Number(readFileSync(portFile, 'utf8'))
        : (await portIsFree(54329)) ? 54329 : undefined;
      pgServer = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg'), port, cronDatabase: 'bi_comercial', log: say });
      writeFileSync(portFile, String(pgServer.port));
      await ensureDatabase(pgServer.url('postgres'), 'bi_comercial');
      env.DATABASE_URL = pgServer.url('bi_comercial');
    }
    const mode = (env.S3_FILE_STORAGE ?? 'PSQL_OBJSTORE').toUpperCase();
    if (mode !== 'PSQL' && !env.S3_ENDPOINT && !env.S3_BUCKET && !env.OBJSTORE_ENDPOINT) {
      s3 = await startEmbeddedObjectStore({ directory: join(dataDir, 's3'), port: env.EMBEDDED_S3_PORT !== undefined ? Number(env.EMBEDDED_S3_PORT) : (await portIsFree(54330)) ? 54330 : 0 });
      Object.assign(env, {
        S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      });
      say(`object store embutido em ${s3.endpoint} (processo ${s3.pid}, bucket ${s3.bucket}, dados em ${join(dataDir, 's3')})`);
    }
    // development tokens only alongside the embedded database: against a configured
    // DATABASE_URL the service is someone's real one, and an absent
    // BI_COMERCIAL_XLS_API_TOKEN refuses the boot, as the spec says
    const motorCmd = env.SYNC_ENGINE_CMD?.trim();
    if (pgServer) {
      const secrets = devSecrets(motorCmd ? SEGREDOS_DO_MOTOR : {});
      for (const [k, v] of Object.entries(secrets)) if (!env[k]) env[k] = v;
      // the sync engine, only alongside the embedded database too
      if (motorCmd) {
        motor = await prepararMotor({
          command: motorCmd, dataDir, pgPort: pgServer.port, sourceDatabase: 'bi_comercial',
          port: env.EMBEDDED_SYNC_ENGINE_PORT !== undefined ? Number(env.EMBEDDED_SYNC_ENGINE_PORT) || 0 : undefined,
          jwtSecret: env.SYNC_ENGINE_JWT_SECRET!, apiToken: env.SYNC_ENGINE_API_TOKEN!, log: say,
        });
        for (const [k, v] of Object.entries(motor.serviceEnv)) if (!env[k]) env[k] = v;
      }
    }
    env.APP_LOGS_DIR ??= join(dataDir, 'logs');

    const svc = await startService(env);
    // after the migrations: the engine needs the publication they create
    const motorPronto = motor ? await motor.start() : false;
    const demo = await seedDemoCatalogue(svc.ctx.pool, svc.ctx.config.env);
    if (demo) say(`catálogo vazio: catálogo de demonstração carregado (${demo.variantes_inseridas} variantes, db/seeds/catalogo-demo.json)`);
    const host = svc.ctx.config.host;
    const base = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${new URL(svc.url).port}`;
    say('pronto.');
    say(`  serviço:        ${base}  (saúde: ${base}/health)`);
    say(`  banco:          ${env.DATABASE_URL}`);
    if (pgServer) {
      say(`  token da API:   ${env.BI_COMERCIAL_XLS_API_TOKEN}   (Authorization: Bearer …)`);
      say(`  token do ERP:   ${env.ERP_SYNC_ACCESS_TOKEN ?? '(não definido: /sync/erp recusa tudo)'}`);
      say(`  importação:     ${env.XLS_IMPORTAR_TOKEN ? `${base}/xls/importar?k=${encodeURIComponent(env.XLS_IMPORTAR_TOKEN)}` : '(XLS_IMPORTAR_TOKEN não definida: a página responde 503)'}`);
      say(`  reset (X-Confirm-Nuke): ${env.REPLICATOR_CONFIRM_SECRET ?? '(não definido: o reset responde 503)'}`);
      say(`  segredos de desenvolvimento em ${join(dataDir, 'dev-secrets.json')}`);
    }
    say(`  motor de sincronização: ${motor
      ? `${motor.url}${motorPronto ? '' : ' (NÃO respondeu: veja o log)'}  (log: ${motor.logFile}; o reset o para e reinicia por ${motor.hosting.url})`
      : motorCmd
        ? 'nenhum (SYNC_ENGINE_CMD só vale com o banco embutido; DATABASE_URL está definida)'
        : 'nenhum (defina SYNC_ENGINE_CMD com o comando do motor para rodá-lo junto; docs/replicacao.md)'}`);
    if (svc.ctx.config.telas.modo === 'bypass') {
      say(svc.ctx.config.host === '127.0.0.1'
        ? '  telas SEM LOGIN (OIDC_* não definidas): escutando só em 127.0.0.1; defina HOST para outra interface (e OIDC_* antes de expor)'
        : `  telas SEM LOGIN (OIDC_* não definidas) e HOST=${svc.ctx.config.host}: quem alcançar este endereço usa as telas`);
    }
    say('  Ctrl-C encerra tudo.');
    installSignalHandlers(svc.stop, stopEmbedded);
  } catch (err) {
    await stopEmbedded();
    if (err instanceof ConfigError) {
      say(`configuração inválida: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
}

void run();
