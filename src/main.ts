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
import { ConfiguracaoCache } from './integrations/configuracao.js';
import { createListener, type Listener } from './jobs/listener.js';
import { JobRunner } from './jobs/runner.js';
import { jobHandlers } from './jobs/handlers.js';
import { backfillStorage } from './xls/backfill.js';
import { xlsRecuperar } from './db/xls.js';
import { resolveCommit, version } from './version.js';
import { partnerConfigurar } from './db/partner.js';
import { replicacaoRecuperar } from './db/replicacao.js';
import { reportarErro } from './jobs/replicacao.js';
import type { AppContext } from './context.js';

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

  if (opts.migrate !== false) {
    await migrate(config.databaseUrl);
    app.log.info('migrações aplicadas');
  }
  // area B: the watchdog/gate settings SQL decides with come from this replica's environment
  await partnerConfigurar(pool, config.partner);
  if (objstore) {
    await objstore.ensureBucket().catch((err) => app.log.warn({ err }, 'object store inacessível no boot; uploads responderão 503 até ele voltar'));
  }
  // area C: legacy blobs to the object store (optional), then orphan recovery
  if (config.storage.backfillEnabled) await backfillStorage(ctx, app.log);
  const recuperacao = await xlsRecuperar(pool);
  if (recuperacao.orfaos.length || recuperacao.reenfileirados.length) {
    app.log.warn({ orfaos: recuperacao.orfaos, reenfileirados: recuperacao.reenfileirados }, 'recuperação de processamentos no boot');
  }

  // area D: a reset of the replication orphaned by a dead process -> ERRO (step_atual kept)
  for (const exec of await replicacaoRecuperar(pool)) await reportarErro(exec, { log: app.log });

  const listener = await createListener(config.databaseUrl, app.log);
  await configuracao.attach(listener);
  const runner = new JobRunner(pool, jobHandlers(ctx), app.log, {
    concurrency: config.jobs.concurrency, pollIntervalMs: config.jobs.pollIntervalMs,
  });
  await runner.start(listener);

  const url = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      app.log.info('encerrando');
      await app.close();
      await runner.stop(config.jobs.shutdownGraceMs);
      await listener.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
      objstore?.destroy();
      await flushErrtracker();
    })();
    return stopping;
  };
  return { app, ctx, runner, listener, url, stop };
}

export function installSignalHandlers(stop: () => Promise<void>, extra: () => Promise<void> = async () => undefined): void {
  let count = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    count += 1;
    if (count > 1) process.exit(130);
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
