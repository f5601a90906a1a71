/**
 * What the routes and jobs of one process share; built once in main.ts (or by a test).
 * A kernel file: it names no area. What an area keeps here it adds itself, by augmenting
 * AppContext (src/pedidos/intake.ts adds the webhook's `partnerIntake`).
 */
import type pg from 'pg';
import type { Config } from './config.js';
import type { ObjectStore } from './integrations/objstore.js';

/** Runtime reads of bi_configuracao (src/configuracao/cache.ts is the one implementation). */
export interface LeituraConfiguracao {
  getInteger(chave: string, fallback: number): Promise<number>;
}

export interface AppContext {
  config: Config;
  pool: pg.Pool;
  version: string;
  commit: string | null;
  objstore: ObjectStore | null;
  /** runtime reads of bi_configuracao (30 s cache, dropped by NOTIFY app_config); absent in unit-level test contexts */
  configuracao?: LeituraConfiguracao;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** every route registered (method, url, schema): the OpenAPI test checks them */
    rotas: Array<{ method: string; url: string; schema?: import('fastify').FastifySchema & { hide?: boolean } }>;
  }
}
