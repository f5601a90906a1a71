/**
 * The fastify app: the web kernel's plugins, then every area's routes grouped by audience.
 * This file (with handlers.ts, the job handler list) is where the areas meet: the kernels
 * never import an area, they receive the areas' plugins from here. No I/O at build time.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { reportLog } from './integrations/errtracker.js';
// the web kernel
import problemPlugin from './web/error-handler.js';
import prazoCorpoPlugin from './web/prazo-corpo.js';
import healthRoutes from './web/health.js';
import apiRoutes from './web/api.js';
import diagnosticsRoutes from './web/diagnostics.js';
import openapiPlugin from './web/openapi.js';
import sessaoPlugin from './web/sessao.js';
import staticRoutes from './web/static.js';
import loginRoutes from './web/login.js';
import viewRoutes from './web/telas.js';
// A. ERP sync
import syncRoutes from './erp/sync.js';
// B. orders
import partnerWebhookRoutes from './pedidos/webhook.js';
import partnerApiRoutes from './pedidos/api.js';
import pedidosScreens from './pedidos/telas.js';
import destinatariosScreens from './pedidos/destinatarios.js';
import { PartnerIntake } from './pedidos/intake.js';
// C. spreadsheets
import planilhasRoutes from './planilhas/api.js';
import processamentosRoutes from './planilhas/api-processamentos.js';
import arquivoRoutes from './planilhas/arquivo.js';
import processamentosScreens from './planilhas/telas.js';
import importarRoutes from './planilhas/importar.js';
// D. replication
import replicacaoRoutes from './replicacao/api.js';
import replicacaoScreens from './replicacao/telas.js';
// configuration
import configuracoesRoutes from './configuracao/api.js';
import adminScreens from './configuracao/telas.js';
import { enterOperation, markReported } from './operation-context.js';

export interface BuildOptions {
  logger?: boolean;
  /** where the logs go (default stdout); tests read them */
  logStream?: { write(msg: string): void };
}

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger === false ? false : {
      level: ctx.config.logLevel,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      redact: ['req.headers.authorization', 'req.headers["x-partner-secret"]', 'req.headers["x-confirm-nuke"]'],
      hooks: {
        logMethod(args, method, level) {
          reportLog(level, args);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    bodyLimit: 1024 * 1024,
    // a backstop only: a stalled or trickling body is answered 408 long before (web/prazo-corpo.ts)
    requestTimeout: ctx.config.http.requisicaoMaxMs,
    // only the configured proxies may say who the client is (X-Forwarded-For): see TRUST_PROXY
    trustProxy: ctx.config.trustProxy.length > 0 ? ctx.config.trustProxy : false,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: true, allowUnionTypes: true } },
  });
  app.decorate('ctx', ctx);
  // every request is one operation: a promise rejection nobody handled in it fails this
  // request (500) instead of the process (operation-context.ts)
  app.addHook('onRequest', (req, reply, done) => {
    enterOperation({
      kind: 'request',
      label: `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`,
      fail(err) { if (!reply.sent) void reply.send(markReported(err)); },
    });
    done();
  });
  // the headers must arrive within the body's idle limit (Node's default is 60 s)
  app.server.headersTimeout = Math.min(ctx.config.http.ociosoMs, ctx.config.http.requisicaoMaxMs);
  await app.register(prazoCorpoPlugin, { ociosoMs: ctx.config.http.ociosoMs, taxaMinBytes: ctx.config.http.taxaMinBytes });
  // the webhook's spool is opened and replayed once the app is ready (after the migrations)
  const intake = ctx.partnerIntake ??= new PartnerIntake(ctx.pool, ctx.config.partner, app.log);
  app.addHook('onReady', async () => { await intake.start(); });
  app.addHook('onClose', async () => { await intake.stop(); });
  const rotas: FastifyInstance['rotas'] = [];
  app.decorate('rotas', rotas);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') rotas.push({ method, url: r.url, schema: r.schema });
  });
  // no answer of the service is to be content-sniffed by a browser (pages, problems, files)
  app.addHook('onSend', async (_req, reply) => { if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff'); });
  await app.register(problemPlugin);
  // before the routes: @fastify/swagger collects them as they are registered
  await app.register(openapiPlugin);
  await app.register(sessaoPlugin);
  await app.register(healthRoutes);
  await app.register(diagnosticsRoutes);
  await app.register(arquivoRoutes);
  await app.register(apiRoutes, {
    prefix: '/api',
    rotas: [configuracoesRoutes, processamentosRoutes, partnerApiRoutes, planilhasRoutes, replicacaoRoutes],
  });
  await app.register(syncRoutes, { prefix: '/sync' });
  await app.register(partnerWebhookRoutes);
  // staff screens: static kit (anonymous), login, the guarded screens, the import page (secret k)
  await app.register(staticRoutes);
  await app.register(loginRoutes);
  await app.register(viewRoutes, { telas: [processamentosScreens, adminScreens, destinatariosScreens, pedidosScreens, replicacaoScreens] });
  await app.register(importarRoutes);
  return app;
}
