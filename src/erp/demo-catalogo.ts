/**
 * Demo catalogue for `npm start`: when the catalogue is empty and the service is not in
 * production or test, db/seeds/catalogo-demo.json is loaded through catalogo_carregar()
 * so that POST /sync/erp has variants to match. Loading is an upsert by sku: two replicas
 * racing here load the same rows once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as db from 'zapatos/db';
import type { Config } from '../config.js';
import { catalogoCarregar, type CatalogoCarga } from './db.js';
import { projectRoot } from '../paths.js';

export const DEMO_CATALOGUE_FILE = join(projectRoot, 'db', 'seeds', 'catalogo-demo.json');

export async function seedDemoCatalogue(q: db.Queryable, env: Config['env']): Promise<CatalogoCarga | null> {
  if (env === 'production' || env === 'test') return null;
  const [row] = await db.sql<db.SQL, Array<{ vazio: boolean }>>`select not exists (select from public.variante) as vazio`.run(q);
  if (!row?.vazio) return null;
  return catalogoCarregar(q, JSON.parse(readFileSync(DEMO_CATALOGUE_FILE, 'utf8')) as unknown[]);
}
