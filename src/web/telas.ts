/**
 * The staff screens (docs/screens.md): one encapsulated context whose onRequest hook is the
 * view guard (modes and rejections), whose forms are urlencoded with a CSRF token checked
 * before any handler, and whose errors render as pt-BR pages for browsers (the one error
 * handler, error-handler.ts, answers its routes in the screens' words).
 * To add a screen: write a plugin in its area's folder, add it to the list app.ts gives
 * here, add its template under templates/ and its nav entry in nav.ts.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { HttpProblem } from '../errors.js';
import { csrfValido } from './sessao.js';
import { viewGuard } from './guard.js';
import { rotasDeTela } from './error-handler.js';

export class CsrfInvalido extends HttpProblem {
  constructor() {
    super(400, 'Requisição inválida', 'O formulário expirou ou foi alterado (token CSRF inválido). Recarregue a página e tente de novo.', 'CSRF400');
  }
}

/**
 * A form field the screens refuse before any handler reads it (400, a readable page): a field
 * sent twice (`chave=a&chave=b`: the handlers read one string per field) or a text with a NUL
 * byte (Postgres text cannot hold it). Also for the query string (`?ok=a&ok=b` is ignored by
 * the handlers, so only NUL is refused there).
 */
export function campoRecusado(campos: unknown, repetidos = true): string | null {
  if (!campos || typeof campos !== 'object') return null;
  for (const [nome, v] of Object.entries(campos as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      if (repetidos) return `O campo “${nome}” veio repetido no formulário; envie-o uma vez só.`;
      if (v.some((x) => typeof x === 'string' && x.includes('\u0000'))) return `O campo “${nome}” contém um caractere não aceito (NUL).`;
    } else if (typeof v === 'string' && v.includes('\u0000')) {
      return `O campo “${nome}” contém um caractere não aceito (NUL).`;
    }
  }
  return null;
}

export class CampoInvalido extends HttpProblem {
  constructor(mensagem: string) { super(400, 'Requisição inválida', mensagem, 'FORM400'); }
}

/** preHandler of every form POST of the screens (and of /logout): clean fields, then the CSRF token. */
export async function exigirCsrf(req: FastifyRequest) {
  const naQuery = campoRecusado(req.query, false);
  if (naQuery) throw new CampoInvalido(naQuery);
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const body = req.body as Record<string, unknown> | undefined;
  const recusa = campoRecusado(body);
  if (recusa) throw new CampoInvalido(recusa);
  if (!csrfValido(req, body?._csrf)) throw new CsrfInvalido();
}

const VERSAO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
/** The form's version (the row's atualizado_em as ISO-8601): null when absent, 'invalida' when malformed. */
export function versaoDoFormulario(v: unknown): string | null | 'invalida' {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string' || !VERSAO.test(v)) return 'invalida';
  const t = Date.parse(v);
  // sent to SQL as the instant JavaScript read (never a date Postgres would refuse: 30/02)
  return Number.isFinite(t) ? new Date(t).toISOString() : 'invalida';
}

export interface TelasOpcoes {
  /** the areas' screens, registered in this order (app.ts lists them) */
  telas: FastifyPluginAsync[];
}

export default async function viewRoutes(app: FastifyInstance, opts: TelasOpcoes) {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  rotasDeTela(app);
  app.addHook('onRequest', viewGuard);
  app.addHook('preHandler', exigirCsrf);
  app.get('/', async (_req, reply) => reply.redirect('/processamentos', 302));
  for (const tela of opts.telas) await app.register(tela);
}
