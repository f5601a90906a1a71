/**
 * /destinatarios: the contacts that receive 'Webhook parado' / 'Webhook voltou a
 * funcionar' (table destinatario). SQL decides (destinatario_salvar / destinatario_remover:
 * DS404 > DS400 > DS409); a refused form is shown again with its message and status.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as db from 'zapatos/db';
import { HttpProblem } from '../errors.js';
import { destinatarioRemover, destinatarioSalvar } from './db.js';
import { renderPagina } from '../web/render.js';
import { versaoDoFormulario } from '../web/telas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Body = Record<string, string | undefined>;

function dsStatus(err: unknown): number | null {
  const code = (err as { code?: string }).code;
  return typeof code === 'string' && /^DS\d{3}$/.test(code) ? Number(code.slice(2)) : null;
}

function idDe(id: string): string {
  if (!UUID.test(id)) throw new HttpProblem(404, 'Não encontrado', `destinatário ${id} não existe`, 'DS404');
  return id;
}

export default async function destinatariosScreens(app: FastifyInstance) {
  const lista = async (req: FastifyRequest, reply: FastifyReply, novo: Body = {}, erro: string | null = null, status = 200) => {
    const rows = await db.select('destinatario', db.all, { order: [{ by: 'email', direction: 'ASC' }] }).run(app.ctx.pool);
    const ok = (req.query as Record<string, string>).ok;
    const okTexto = ok === 'adicionado' ? 'Destinatário adicionado.' : ok === 'salvo' ? 'Destinatário salvo.' : ok === 'removido' ? 'Destinatário removido.' : null;
    return renderPagina(req, reply, 'destinatarios/lista', {
      titulo: 'Destinatários dos alertas', status,
      banner: erro ? { tipo: 'erro', texto: erro } : okTexto ? { tipo: 'ok', texto: okTexto } : null,
    }, { rows, novo });
  };

  app.get('/destinatarios', async (req, reply) => lista(req, reply));

  app.post<{ Body: Body }>('/destinatarios', async (req, reply) => {
    const b = req.body ?? {};
    try {
      await destinatarioSalvar(app.ctx.pool, { id: null, email: b.email ?? '', nome: b.nome ?? null, ativo: true, versaoEsperada: null });
    } catch (err) {
      const st = dsStatus(err);
      if (st === 400 || st === 409) return lista(req, reply, b, (err as Error).message, st);
      throw err;
    }
    return reply.redirect('/destinatarios?ok=adicionado', 303);
  });

  const formEditar = async (req: FastifyRequest, reply: FastifyReply, id: string, valores: Body | null, erro: string | null, status = 200) => {
    const row = await db.selectOne('destinatario', { id }).run(app.ctx.pool);
    if (!row) throw new HttpProblem(404, 'Não encontrado', `destinatário ${id} não existe`, 'DS404');
    return renderPagina(req, reply, 'destinatarios/editar', { titulo: `Destinatário ${row.email}`, status, banner: erro ? { tipo: 'erro', texto: erro } : null }, {
      row,
      v: valores ?? { email: row.email, nome: row.nome ?? '', ativo: row.ativo ? 'true' : '' },
      versao: new Date(row.atualizado_em).toISOString(),
    });
  };

  app.get<{ Params: { id: string } }>('/destinatarios/:id', async (req, reply) => formEditar(req, reply, idDe(req.params.id), null, null));

  app.post<{ Params: { id: string }; Body: Body }>('/destinatarios/:id', async (req, reply) => {
    const id = idDe(req.params.id);
    const b = req.body ?? {};
    const versao = versaoDoFormulario(b.versao);
    if (versao === 'invalida') {
      // 404 before 400, as destinatario_salvar orders them
      if (!(await db.selectOne('destinatario', { id }).run(app.ctx.pool))) throw new HttpProblem(404, 'Não encontrado', `destinatário ${id} não existe`, 'DS404');
      throw new HttpProblem(400, 'Requisição inválida', 'A versão do formulário é inválida. Abra o destinatário de novo e salve.', 'DS400');
    }
    try {
      await destinatarioSalvar(app.ctx.pool, { id, email: b.email ?? '', nome: b.nome ?? null, ativo: b.ativo === 'true', versaoEsperada: versao });
    } catch (err) {
      const st = dsStatus(err);
      if (st === 400) return formEditar(req, reply, id, b, (err as Error).message, 400);
      if (st === 409) return formEditar(req, reply, id, /outra pessoa/.test((err as Error).message) ? null : b, (err as Error).message, 409);
      throw err;
    }
    return reply.redirect('/destinatarios?ok=salvo', 303);
  });

  app.post<{ Params: { id: string } }>('/destinatarios/:id/remover', async (req, reply) => {
    await destinatarioRemover(app.ctx.pool, idDe(req.params.id));
    return reply.redirect('/destinatarios?ok=removido', 303);
  });
}
