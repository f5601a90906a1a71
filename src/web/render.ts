/**
 * Server-rendered pages (eta, pt-BR): every page goes through templates/layout.eta, which
 * receives the signed-in user, the navigation, the CSRF token of the forms and the
 * security mode (bypass shows a warning banner). Templates live in templates/ (*.eta).
 */
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Eta } from 'eta';
import { projectRoot } from '../paths.js';
import { csrfEsperado } from './sessao.js';
import { NAV } from './nav.js';

export const TEMPLATES_DIR = join(projectRoot, 'templates');

const eta = new Eta({ views: TEMPLATES_DIR, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });

const dataHora = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const data = new Intl.DateTimeFormat('pt-BR', { timeZone: 'UTC', dateStyle: 'short' });
const moeda = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const numero = new Intl.NumberFormat('pt-BR');

/** Formatting helpers available to every template as `it.f`. */
export const formatos = {
  /** dd/mm/aaaa hh:mm in São Paulo time */
  dataHora: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : dataHora.format(new Date(v as string)).replace(',', '')),
  data: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : data.format(new Date(`${String(v).slice(0, 10)}T00:00:00Z`))),
  moeda: (v: unknown): string => (v === null || v === undefined ? '—' : moeda.format(Number(v))),
  numero: (v: unknown): string => (v === null || v === undefined ? '—' : numero.format(Number(v))),
  texto: (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v)),
  /** a bi_* table for staff: bi_cota_fornecedor -> "Cota fornecedor" */
  tabela: (t: string): string => { const n = t.replace(/^bi_/, '').replace(/_/g, ' '); return n.charAt(0).toUpperCase() + n.slice(1); },
  /** a natural key (JSON object) by column: "filial 01 · nota_fiscal 1003" */
  chave: (o: Record<string, unknown>): string => Object.entries(o).map(([k, v]) => `${k} ${v === null ? '—' : String(v)}`).join(' · '),
  url: (path: string, q: Record<string, unknown>): string => {
    const sp = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') sp.set(k, String(v));
    const s = sp.toString();
    return s ? `${path}?${s}` : path;
  },
};

/**
 * A count carried in a redirect's query (`?ok=erros&n=3`) for a success banner: only digits
 * are shown, anything else is 0 (a banner carries only text the server chose).
 */
export function contagem(v: unknown): number {
  return typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : 0;
}

export interface PaginaOpcoes {
  titulo: string;
  status?: number;
  /** seconds: the page reloads itself (a processing still running); or `"<s>; url=<local path>"` to reload another address */
  refresh?: number | string;
  /** message shown at the top: ok (green) or erro (red) */
  banner?: { tipo: 'ok' | 'erro' | 'info'; texto: string } | null;
  /** pages outside the staff area (login, import, errors for anonymous) use a bare layout */
  semNavegacao?: boolean;
  /** origins besides the service's own a form's answer may redirect to (CSP form-action: the login's identity provider) */
  formAction?: string[];
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
    banner: opts.banner ? { ...opts.banner, texto: opts.banner.texto.charAt(0).toUpperCase() + opts.banner.texto.slice(1) } : null,
    semNavegacao: Boolean(opts.semNavegacao),
    usuario: req.usuario ?? null,
    modo: req.server.ctx.config.telas.modo,
    nav: NAV.map((n) => ({ ...n, ativo: path === n.href || path.startsWith(`${n.href}/`) })),
    csrf: csrfEsperado(req, reply),
  });
  reply.header('cache-control', 'no-store');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-content-type-options', 'nosniff');
  // forms post only to the service; the login form's answer redirects to the identity provider
  const formAction = ["'self'", ...(opts.formAction ?? [])].join(' ');
  reply.header('content-security-policy', `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  return reply.code(opts.status ?? 200).type('text/html; charset=utf-8').send(html);
}

const TITULOS_ERRO: Record<number, string> = {
  400: 'Dados inválidos', 403: 'Acesso negado', 404: 'Página não encontrada', 405: 'Ação não permitida', 409: 'Conflito',
  413: 'Arquivo grande demais', 415: 'Formato não aceito', 503: 'Indisponível',
};

/**
 * Whether an error or a 404 is answered as an HTML page: a browser (Accept text/html) outside
 * the machine interfaces. /api, /sync and /webhook keep problem+json, and so does any caller
 * that does not ask for HTML (scripts, curl).
 */
export function querPaginaHtml(req: FastifyRequest): boolean {
  const a = req.headers.accept;
  if (typeof a !== 'string' || !/text\/html/i.test(a)) return false;
  return !/^\/(api|sync|webhook)(\/|\?|$)/.test(req.url);
}

/** The pt-BR error page: what happened and where to go (`voltar`, else the start). */
export function paginaErro(req: FastifyRequest, reply: FastifyReply, status: number, mensagem: string, voltar: string | null = null): FastifyReply {
  return renderPagina(req, reply, 'erro', { titulo: TITULOS_ERRO[status] ?? (status >= 500 ? 'Erro interno' : 'Erro'), status }, { mensagem, voltar, status });
}
