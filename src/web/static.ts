/**
 * The static kit of the screens: /css/** and /js/** answer anonymous GETs in every mode
 * (the whitelist of the spec), from templates/static/. Nothing else is served from disk.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { TEMPLATES_DIR } from './render.js';

export default async function staticRoutes(app: FastifyInstance) {
  const common = { index: false as const, dotfiles: 'deny' as const, maxAge: '1h', cacheControl: true };
  await app.register(fastifyStatic, { root: join(TEMPLATES_DIR, 'static', 'css'), prefix: '/css/', ...common });
  await app.register(fastifyStatic, { root: join(TEMPLATES_DIR, 'static', 'js'), prefix: '/js/', decorateReply: false, ...common });
}
