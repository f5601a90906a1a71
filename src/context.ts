/** What the routes and jobs of one process share; built once in main.ts (or by a test). */
import type pg from 'pg';
import type { Config } from './config.js';
import type { ObjectStore } from './integrations/objstore.js';
import type { ConfiguracaoCache } from './configuracao/cache.js';
import type { PartnerIntake } from './pedidos/intake.js';

export interface AppContext {
  config: Config;
  pool: pg.Pool;
  version: string;
  commit: string | null;
  objstore: ObjectStore | null;
  /** runtime reads of bi_configuracao (30 s cache, dropped by NOTIFY app_config); absent in unit-level test contexts */
  configuracao?: ConfiguracaoCache;
  /** the order webhook's group commit, local spool and replay; buildApp makes it when absent */
  partnerIntake?: PartnerIntake;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** every route registered (method, url, schema): the OpenAPI test checks them */
    rotas: Array<{ method: string; url: string; schema?: import('fastify').FastifySchema & { hide?: boolean } }>;
  }
}
