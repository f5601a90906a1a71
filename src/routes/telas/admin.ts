/**
 * /admin (panel) and /admin/configuracoes: list, create, edit and delete of bi_configuracao.
 * SQL decides (configuracao_criar / configuracao_definir / configuracao_remover): 404 >
 * 403 > 400, and 409 when the row changed since the form was opened (the form carries the
 * row's atualizado_em as its version). A refused form is shown again with its message and
 * the status of the refusal; system keys are read-only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as db from 'zapatos/db';
import { HttpProblem } from '../../errors.js';
import { configuracaoDefinir } from '../../db/functions.js';
import { configuracaoCriar, configuracaoRemover } from '../../db/telas.js';
import { renderPagina } from './render.js';
import { ADMIN_LINKS } from './nav.js';

export const TIPOS_CONFIG = ['string', 'integer', 'boolean', 'duration'] as const;
export const DICAS_TIPO: Record<string, string> = {
  string: 'Texto livre.',
  integer: 'Número inteiro, sem pontos nem vírgulas (ex.: 7000).',
  boolean: 'true ou false.',
  duration: 'Duração ISO-8601 (PT30S, P1DT2H) ou “30 seconds”, “5 min”, “2 h”.',
};

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

  const lista = async (req: FastifyRequest, reply: FastifyReply, aviso: { tipo: 'ok' | 'erro'; texto: string } | null = null, status = 200) => {
    const rows = await db.select('bi_configuracao', db.all, { order: { by: 'chave', direction: 'ASC' } }).run(app.ctx.pool);
    const ok = (req.query as Record<string, string>).ok;
    const okTexto = ok === 'criada' ? 'Configuração criada.' : ok === 'salva' ? 'Configuração salva.' : ok === 'removida' ? 'Configuração removida.' : null;
    return renderPagina(req, reply, 'admin/configuracoes', {
      titulo: 'Configurações', status, aviso: aviso ?? (okTexto ? { tipo: 'ok', texto: okTexto } : null),
    }, { rows: rows.map((r) => ({ ...r, versao: versaoIso(r.atualizado_em) })) });
  };

  app.get('/admin/configuracoes', async (req, reply) => lista(req, reply));

  const formNova = (req: FastifyRequest, reply: FastifyReply, valores: Body, erro: string | null, status = 200) =>
    renderPagina(req, reply, 'admin/configuracao-nova', { titulo: 'Nova configuração', status, aviso: erro ? { tipo: 'erro', texto: erro } : null },
      { v: valores, tipos: TIPOS_CONFIG, dicas: DICAS_TIPO });

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
    return renderPagina(req, reply, 'admin/configuracao-editar', {
      titulo: `Configuração ${row.chave}`, status, aviso: erro ? { tipo: 'erro', texto: erro } : null,
    }, { row, valor: valor ?? row.valor, versao: versao ?? versaoIso(row.atualizado_em), dica: DICAS_TIPO[row.tipo] ?? '' });
  };

  app.get<{ Params: { chave: string } }>('/admin/configuracoes/:chave', async (req, reply) => formEditar(req, reply, req.params.chave, null, null, null));

  app.post<{ Params: { chave: string }; Body: Body }>('/admin/configuracoes/:chave', async (req, reply) => {
    const b = req.body ?? {};
    try {
      await configuracaoDefinir(app.ctx.pool, req.params.chave, b.valor ?? '', b.versao || null);
    } catch (err) {
      const st = sqlStatus(err);
      if (st === 400) return formEditar(req, reply, req.params.chave, b.valor ?? '', b.versao ?? null, (err as Error).message, 400);
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
    try {
      await configuracaoRemover(app.ctx.pool, req.params.chave, b.versao || null);
    } catch (err) {
      if (sqlStatus(err) === 409) {
        return lista(req, reply, { tipo: 'erro', texto: `A configuração ${req.params.chave} foi alterada por outra pessoa depois que você abriu a página; nada foi removido. Confira o valor atual.` }, 409);
      }
      throw err;
    }
    return reply.redirect('/admin/configuracoes?ok=removida', 303);
  });
}
