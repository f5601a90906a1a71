/**
 * /admin (panel) and /admin/configuracoes: list, create, edit and delete of bi_configuracao.
 * SQL decides (configuracao_criar / configuracao_definir / configuracao_remover): 404 >
 * 403 > 400, and 409 when the row changed since the form was opened (the form carries the
 * row's atualizado_em as its version). A refused form is shown again with its message and
 * the status of the refusal; system keys are read-only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as db from 'zapatos/db';
import { HttpProblem } from '../errors.js';
import { configuracaoCriar, configuracaoDefinir, configuracaoRemover } from './db.js';
import { formatos, renderPagina } from '../web/render.js';
import { ADMIN_LINKS } from '../web/nav.js';
import { versaoDoFormulario } from '../web/telas.js';

export const TIPOS_CONFIG = ['string', 'integer', 'boolean', 'duration'] as const;
/** The types as staff read them (the stored code stays the option's value). */
export const NOMES_TIPO: Record<string, string> = { string: 'Texto', integer: 'Número inteiro', boolean: 'Sim ou não', duration: 'Duração' };
export const DICAS_TIPO: Record<string, string> = {
  string: 'Texto livre.',
  integer: 'Número inteiro, sem pontos nem vírgulas (ex.: 7000).',
  boolean: '“sim” ou “não” (guardado como true ou false).',
  duration: 'Ex.: “30 s”, “5 minutos”, “2 horas”, “1 dia” (também ISO-8601: PT30S, P1DT2H).',
};

const UNIDADES: Record<string, [string, string]> = {
  Y: ['ano', 'anos'], W: ['semana', 'semanas'], D: ['dia', 'dias'], H: ['hora', 'horas'], S: ['segundo', 'segundos'],
  ms: ['milissegundo', 'milissegundos'], s: ['segundo', 'segundos'], min: ['minuto', 'minutos'], h: ['hora', 'horas'], d: ['dia', 'dias'],
};
const plural = (n: string, u: [string, string]) => `${n.replace('.', ',')} ${Number(n) === 1 ? u[0] : u[1]}`;

/** A stored duration (ISO-8601 or an interval literal) in Portuguese words; the text itself when unknown. */
export function duracaoEmPalavras(v: string): string {
  const iso = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(v);
  if (iso) {
    const partes: string[] = [];
    const [, a, me, se, d, h, mi, sg] = iso;
    if (a) partes.push(plural(a, UNIDADES.Y!));
    if (me) partes.push(plural(me, ['mês', 'meses']));
    if (se) partes.push(plural(se, UNIDADES.W!));
    if (d) partes.push(plural(d, UNIDADES.D!));
    if (h) partes.push(plural(h, UNIDADES.H!));
    if (mi) partes.push(plural(mi, ['minuto', 'minutos']));
    if (sg) partes.push(plural(sg, UNIDADES.S!));
    return partes.length ? partes.join(' e ') : v;
  }
  const lit = /^(\d+) ?(ms|milliseconds?|s|seconds?|min|minutes?|h|hours?|d|days?)$/.exec(v);
  if (!lit) return v;
  const u = lit[2]!.replace(/s$/, '').replace(/^millisecond$/, 'ms').replace(/^second$/, 's').replace(/^minute$/, 'min').replace(/^hour$/, 'h').replace(/^day$/, 'd');
  return plural(lit[1]!, UNIDADES[u] ?? UNIDADES[lit[2]!] ?? ['', '']);
}

const INSTANTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** A configuration value as staff read it: dates pt-BR (the epoch is "nunca"), durations and booleans in words. */
export function valorEmPalavras(tipo: string, valor: string): string {
  if (tipo === 'duration') return duracaoEmPalavras(valor);
  if (tipo === 'boolean') return valor === 'true' ? 'sim' : valor === 'false' ? 'não' : valor;
  if (tipo === 'integer' && /^-?\d+$/.test(valor)) return new Intl.NumberFormat('pt-BR').format(BigInt(valor));
  if (tipo === 'string' && INSTANTE.test(valor)) {
    const t = Date.parse(valor);
    if (t === 0) return 'nunca';
    if (Number.isFinite(t)) return formatos.dataHora(valor);
  }
  return valor;
}

/** Which field of the form a CF400/CF409 message is about (shown beside it). */
function campoDoErro(mensagem: string): 'chave' | 'tipo' | 'valor' {
  return /^chave|já existe/.test(mensagem) ? 'chave' : /^tipo/.test(mensagem) ? 'tipo' : 'valor';
}
const CORRIJA = 'Nada foi gravado: corrija o campo indicado abaixo.';

type Body = Record<string, string | undefined>;
const versaoIso = (v: string | Date): string => new Date(v).toISOString();


function sqlStatus(err: unknown): number | null {
  const code = (err as { code?: string }).code;
  return typeof code === 'string' && /^CF\d{3}$/.test(code) ? Number(code.slice(2)) : null;
}

async function carregar(app: FastifyInstance, chave: string) {
  const row = await db.selectOne('bi_configuracao', { chave }).run(app.ctx.pool);
  if (!row) throw new HttpProblem(404, 'Não encontrado', `A chave de configuração “${chave}” não existe.`, 'CF404');
  return row;
}

export default async function adminScreens(app: FastifyInstance) {
  app.get('/admin', async (req, reply) => renderPagina(req, reply, 'admin/painel', { titulo: 'Administração' }, { links: ADMIN_LINKS }));

  const lista = async (req: FastifyRequest, reply: FastifyReply, banner: { tipo: 'ok' | 'erro'; texto: string } | null = null, status = 200) => {
    const rows = await db.select('bi_configuracao', db.all, { order: { by: 'chave', direction: 'ASC' } }).run(app.ctx.pool);
    const ok = (req.query as Record<string, string>).ok;
    const okTexto = ok === 'criada' ? 'Configuração criada.' : ok === 'salva' ? 'Configuração salva.' : ok === 'removida' ? 'Configuração removida.' : null;
    return renderPagina(req, reply, 'admin/configuracoes', {
      titulo: 'Configurações', status, banner: banner ?? (okTexto ? { tipo: 'ok', texto: okTexto } : null),
    }, { rows: rows.map((r) => ({ ...r, versao: versaoIso(r.atualizado_em), exibido: valorEmPalavras(r.tipo, r.valor), tipoNome: NOMES_TIPO[r.tipo] ?? r.tipo })) });
  };

  app.get('/admin/configuracoes', async (req, reply) => lista(req, reply));

  const formNova = (req: FastifyRequest, reply: FastifyReply, valores: Body, erro: string | null, status = 200) =>
    renderPagina(req, reply, 'admin/configuracao-nova', { titulo: 'Nova configuração', status, banner: erro ? { tipo: 'erro', texto: CORRIJA } : null },
      { v: valores, tipos: TIPOS_CONFIG, nomes: NOMES_TIPO, dicas: DICAS_TIPO, erro: erro ? { campo: campoDoErro(erro), texto: erro } : null });

  app.get('/admin/configuracoes/nova', async (req, reply) => formNova(req, reply, { tipo: 'string' }, null));

  app.post<{ Body: Body }>('/admin/configuracoes', async (req, reply) => {
    const b = req.body ?? {};
    try {
      await configuracaoCriar(app.ctx.pool, { chave: (b.chave ?? '').trim(), valor: b.valor ?? '', tipo: b.tipo ?? '', descricao: b.descricao ?? null });
    } catch (err) {
      const st = sqlStatus(err);
      if (st) return formNova(req, reply, b, (err as Error).message, st);
      throw err;
    }
    return reply.redirect('/admin/configuracoes?ok=criada', 303);
  });

  const formEditar = async (req: FastifyRequest, reply: FastifyReply, chave: string, valor: string | null, versao: string | null, erro: string | null, status = 200) => {
    const row = await carregar(app, chave);
    // a 409 replaces the value with the current one: its message is for the whole form
    const doCampo = erro !== null && status === 400;
    return renderPagina(req, reply, 'admin/configuracao-editar', {
      titulo: `Configuração ${row.chave}`, status, banner: erro ? { tipo: 'erro', texto: doCampo ? CORRIJA : erro } : null,
    }, {
      row, valor: valor ?? row.valor, versao: versao ?? versaoIso(row.atualizado_em), dica: DICAS_TIPO[row.tipo] ?? '',
      tipoNome: NOMES_TIPO[row.tipo] ?? row.tipo, exibido: valorEmPalavras(row.tipo, row.valor), erroValor: doCampo ? erro : null,
    });
  };

  app.get<{ Params: { chave: string } }>('/admin/configuracoes/:chave', async (req, reply) => formEditar(req, reply, req.params.chave, null, null, null));

  /**
   * A malformed version (never written by the form) keeps SQL's order of refusals: the key
   * must exist (404) and not be a system key (403) before the form is refused (400).
   */
  const versaoRecusada = async (chave: string, acao: string) => {
    const row = await carregar(app, chave);
    if (row.sistema) throw new HttpProblem(403, 'Proibido', `A chave ${chave} é do sistema e não pode ser ${acao}.`, 'CF403');
    throw new HttpProblem(400, 'Requisição inválida', 'A versão do formulário é inválida. Abra a configuração de novo e salve.', 'CF400');
  };

  app.post<{ Params: { chave: string }; Body: Body }>('/admin/configuracoes/:chave', async (req, reply) => {
    const b = req.body ?? {};
    const versao = versaoDoFormulario(b.versao);
    if (versao === 'invalida') return versaoRecusada(req.params.chave, 'alterada');
    try {
      await configuracaoDefinir(app.ctx.pool, req.params.chave, b.valor ?? '', versao);
    } catch (err) {
      const st = sqlStatus(err);
      if (st === 400) return formEditar(req, reply, req.params.chave, b.valor ?? '', versao, (err as Error).message, 400);
      if (st === 409) {
        return formEditar(req, reply, req.params.chave, null, null,
          'Esta configuração foi alterada por outra pessoa depois que você abriu o formulário. O valor atual está abaixo; revise e salve de novo.', 409);
      }
      throw err; // 404 / 403: error page
    }
    return reply.redirect('/admin/configuracoes?ok=salva', 303);
  });

  app.post<{ Params: { chave: string }; Body: Body }>('/admin/configuracoes/:chave/remover', async (req, reply) => {
    const b = req.body ?? {};
    const versao = versaoDoFormulario(b.versao);
    if (versao === 'invalida') return versaoRecusada(req.params.chave, 'removida');
    try {
      await configuracaoRemover(app.ctx.pool, req.params.chave, versao);
    } catch (err) {
      if (sqlStatus(err) === 409) {
        return lista(req, reply, { tipo: 'erro', texto: `A configuração ${req.params.chave} foi alterada por outra pessoa depois que você abriu a página; nada foi removido. Confira o valor atual.` }, 409);
      }
      throw err;
    }
    return reply.redirect('/admin/configuracoes?ok=removida', 303);
  });
}
