/**
 * Boot: config -> migrations -> recovery -> listen -> serve.
 * `startService` is what `npm start`, the Docker image and the tests call.
 */
import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from './config.js';
import { createPool } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { buildApp } from './app.js';
import { flushErrtracker, initErrtracker } from './integrations/errtracker.js';
import { createObjectStore } from './integrations/objstore.js';
import { ConfiguracaoCache } from './configuracao/cache.js';
import { createListener, type Listener } from './jobs/listener.js';
import { JobRunner } from './jobs/runner.js';
import { jobHandlers } from './handlers.js';
import { forgetPreviousWorkers } from './jobs/workers.js';
import { backfillStorage } from './planilhas/backfill.js';
import { xlsRecuperar } from './planilhas/db.js';
import { resolveCommit, version } from './version.js';
import { partnerConfigurar } from './pedidos/db.js';
import { replicacaoRecuperar } from './replicacao/db.js';
import { reportarErro } from './replicacao/jobs.js';
import { carregarConsultas } from './replicacao/consultas.js';
import type { AppContext } from './context.js';
import { installRejectionNet } from './operation-context.js';

export interface RunningService {
  app: FastifyInstance;
  ctx: AppContext;
  runner: JobRunner;
  listener: Listener;
  url: string;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string | undefined> = process.env,
  opts: { migrate?: boolean } = {}): Promise<RunningService> {
  const { config, warnings } = loadConfig(env);
  const commit = resolveCommit(config.commit);
  initErrtracker({ dsn: config.errtrackerDsn, release: version, environment: config.env, commit });
  mkdirSync(config.logsDir, { recursive: true });

  const pool = createPool(config.databaseUrl, config.databasePoolMax);
  const objstore = config.storage.objstore ? createObjectStore(config.storage.objstore) : null;
  const configuracao = new ConfiguracaoCache(pool);
  const ctx: AppContext = { config, pool, version, commit, objstore, configuracao };
  const app = await buildApp(ctx);
  for (const w of warnings) app.log.warn(w);
  // a promise rejection nobody handled fails its request or job, never the process
  const uninstallNet = installRejectionNet(app.log);

  if (opts.migrate !== false) {
    await migrate(config.databaseUrl);
    app.log.info('migrações aplicadas');
  }
  if (config.pgCronObrigatorio) {
    await checkPgCron(pool).catch(async (err: unknown) => {
      await app.close();
      await pool.end().catch(() => undefined);
      throw err;
    });
  }
  // area B: the watchdog/gate settings SQL decides with come from this replica's environment
  await partnerConfigurar(pool, config.partner);
  if (objstore) {
    await objstore.ensureBucket().catch((err) => app.log.warn({ err }, 'object store inacessível no boot; uploads responderão 503 até ele voltar'));
  }
  // area C: legacy blobs to the object store (optional), then orphan recovery
  if (config.storage.backfillEnabled) await backfillStorage(ctx, app.log);
  // this host's previous processes are dead now, not after their heartbeat goes stale
  const anteriores = await forgetPreviousWorkers(pool);
  if (anteriores.length) app.log.warn({ workers: anteriores }, 'workers de processos anteriores deste host esquecidos no boot: seus jobs voltaram à fila');
  const recuperacao = await xlsRecuperar(pool);
  if (recuperacao.orfaos.length || recuperacao.reenfileirados.length) {
    app.log.warn({ orfaos: recuperacao.orfaos, reenfileirados: recuperacao.reenfileirados }, 'recuperação de processamentos no boot');
  }

  // area D: a reset of the replication orphaned by a dead process -> ERRO (step_atual kept)
  for (const exec of await replicacaoRecuperar(pool)) await reportarErro(exec, { log: app.log });
  // what the phones must hold (the sync configuration's queries), for the parity check
  await carregarConsultas(pool);

  const listener = await createListener(config.databaseUrl, app.log);
  await configuracao.attach(listener);
  const runner = new JobRunner(pool, jobHandlers(ctx), app.log, {
    concurrency: config.jobs.concurrency, pollIntervalMs: config.jobs.pollIntervalMs, heartbeatMs: config.jobs.heartbeatMs,
  });
  await runner.start(listener);

  // Orphans of other replicas: each live replica asks SQL every JOBS_SWEEP_MS (10 s) to
  // return dead workers' jobs (heartbeat older than app.worker_timeout(), 20 s) and to
  // fail their PROCESSANDO: recovered within 30 s. pg_cron (1.4 schedules by the minute)
  // stays the net when no replica runs. Both are idempotent and SKIP LOCKED.
  const varredura = setInterval(() => {
    void (async () => {
      await pool.query('select app.sweep_jobs()');
      const r = await xlsRecuperar(pool);
      if (r.orfaos.length) app.log.warn({ orfaos: r.orfaos }, 'processamentos órfãos de outra réplica: ERRO');
    })().catch((err: unknown) => app.log.warn({ err }, 'falha na varredura de órfãos'));
  }, config.jobs.sweepMs);
  varredura.unref();

  const url = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      app.log.info('encerrando');
      clearInterval(varredura);
      await app.close();
      await runner.stop(config.jobs.shutdownGraceMs);
      await listener.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
      objstore?.destroy();
      await flushErrtracker();
      uninstallNet();
    })();
    return stopping;
  };
  return { app, ctx, runner, listener, url, stop };
}

/**
 * pg_cron must serve the service's database: the sweeps, the orphan recovery, the
 * watchdog, the contingency and the poll are scheduled there. Otherwise boot is refused
 * (ConfigError: exit 78) with a message naming the setting.
 */
export async function checkPgCron(pool: import('pg').Pool): Promise<void> {
  const { rows: [r] } = await pool.query<{ banco: string; cron_db: string | null; preload: string | null; instalada: boolean }>(`
    select current_database() as banco,
           current_setting('cron.database_name', true) as cron_db,
           current_setting('shared_preload_libraries', true) as preload,
           exists (select from pg_extension where extname = 'pg_cron') as instalada`);
  const { banco, cron_db: cronDb, preload, instalada } = r!;
  if (!(preload ?? '').split(',').map((x) => x.trim()).includes('pg_cron')) {
    throw new ConfigError(`pg_cron não está carregado neste Postgres: inclua pg_cron em shared_preload_libraries e defina cron.database_name = '${banco}' (o banco do serviço), depois reinicie o Postgres`);
  }
  if (cronDb !== banco) {
    throw new ConfigError(`pg_cron atende o banco '${cronDb ?? 'postgres'}' (cron.database_name), não o banco do serviço '${banco}': defina cron.database_name = '${banco}' e reinicie o Postgres; sem isso o watchdog, a contingência, o poll e as varreduras nunca rodam`);
  }
  if (!instalada) {
    throw new ConfigError(`a extensão pg_cron não existe no banco '${banco}' (cron.database_name = '${cronDb}'): as migrações a criam; rode-as como superusuário`);
  }
}

export function installSignalHandlers(stop: () => Promise<void>, extra: () => Promise<void> = async () => undefined): void {
  // A terminal's Ctrl-C reaches every process of the foreground group, and `npm start`'s
  // bootstrap passes signals on as well: a repeat within 2 s is the same request. A
  // later one (a second Ctrl-C) exits at once.
  let first = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    if (first) {
      if (Date.now() - first < 2000) return;
      process.exit(130);
    }
    first = Date.now();
    process.stderr.write(`\n${sig} recebido: encerrando…\n`);
    void stop().then(extra).then(() => process.exit(0), (err) => {
      process.stderr.write(`falha ao encerrar: ${String(err)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

export async function main(): Promise<void> {
  try {
    const svc = await startService();
    installSignalHandlers(svc.stop);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuração inválida: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

const isEntry = process.argv[1] && /[\\/]main\.(ts|js)$/.test(process.argv[1]);
if (isEntry) void main();
