/**
 * Server-rendered pages (eta, pt-BR): every page goes through templates/layout.eta, which
 * receives the signed-in user, the navigation, the CSRF token of the forms and the
 * security mode (bypass shows a warning banner). Templates live in templates/ (*.eta).
 */
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Eta } from 'eta';
import { projectRoot } from '../../paths.js';
import { csrfEsperado } from '../../plugins/sessao.js';
import { NAV } from './nav.js';

export const TEMPLATES_DIR = join(projectRoot, 'templates');

const eta = new Eta({ views: TEMPLATES_DIR, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });

const dataHora = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' });
const data = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', dateStyle: 'short' });
const moeda = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const numero = new Intl.NumberFormat('pt-BR');

/** Formatting helpers available to every template as `it.f`. */
export const formatos = {
  dataHora: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : dataHora.format(new Date(v as string))),
  data: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : data.format(new Date(`${String(v).slice(0, 10)}T00:00:00Z`))),
  moeda: (v: unknown): string => (v === null || v === undefined ? '—' : moeda.format(Number(v))),
  numero: (v: unknown): string => (v === null || v === undefined ? '—' : numero.format(Number(v))),
  texto: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v)),
  url: (path: string, q: Record<string, unknown>): string => {
    const sp = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') sp.set(k, String(v));
    const s = sp.toString();
    return s ? `${path}?${s}` : path;
  },
};

export interface PaginaOpcoes {
  titulo: string;
  status?: number;
  /** seconds: the page reloads itself (a processing still running) */
  refresh?: number;
  /** message shown at the top: ok (green) or erro (red) */
  aviso?: { tipo: 'ok' | 'erro' | 'info'; texto: string } | null;
  /** pages outside the staff area (login, import, errors for anonymous) use a bare layout */
  semNavegacao?: boolean;
}

export function renderTemplate(template: string, data: Record<string, unknown>): string {
  return eta.render(template, { f: formatos, ...data });
}

export function renderPagina(req: FastifyRequest, reply: FastifyReply, template: string,
  opts: PaginaOpcoes, data: Record<string, unknown> = {}): FastifyReply {
  const path = req.url.split('?')[0] ?? '/';
  const html = renderTemplate(template, {
    ...data,
    titulo: opts.titulo,
    refresh: opts.refresh ?? null,
    // messages from SQL start in lower case: shown as a sentence
    aviso: opts.aviso ? { ...opts.aviso, texto: opts.aviso.texto.charAt(0).toUpperCase() + opts.aviso.texto.slice(1) } : null,
    semNavegacao: Boolean(opts.semNavegacao),
    usuario: req.usuario ?? null,
    modo: req.server.ctx.config.telas.modo,
    nav: NAV.map((n) => ({ ...n, ativo: path === n.href || path.startsWith(`${n.href}/`) })),
    csrf: csrfEsperado(req, reply),
  });
  reply.header('cache-control', 'no-store');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
  reply.header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self' http: https:; frame-ancestors 'none'");
  return reply.code(opts.status ?? 200).type('text/html; charset=utf-8').send(html);
}
