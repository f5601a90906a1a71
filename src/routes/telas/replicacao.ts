/**
 * /admin/replicacao: the reset of the replication to the phones on the staff screens
 * (docs/replicacao.md). The list of resets with the start form (motivo, an explicit
 * confirmation and the confirmation secret, the same REPLICATOR_CONFIRM_SECRET as the API's
 * X-Confirm-Nuke), and the detail with each step and, for the failed step, what to do by
 * hand. SQL decides (replicacao_resetar: one EM_ANDAMENTO, 409); a refused form is shown again
 * with its message and the refusal's status. A running reset refreshes itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from '../../errors.js';
import { safeEqual } from '../../plugins/bearer.js';
import { renderPagina } from './render.js';
import { replicacaoResetar } from '../../db/replicacao.js';
import { carregarDetalhe, listarExecucoes } from '../api/replicacao.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Body = Record<string, string | undefined>;

export const PASSOS_DESCRICAO: Record<string, string> = {
  VALIDAR: 'Confere a configuração e as conexões (banco, plataforma de hospedagem).',
  PAUSAR: 'Para o motor de sincronização (plataforma de hospedagem) ou pede a parada manual.',
  AGUARDAR_PARADA: 'Espera todo slot do motor ficar inativo.',
  RESET_SLOT: 'Remove os slots de replicação do motor.',
  DROP_DOCSTORE: 'Apaga o armazenamento do motor (docstore).',
  RECRIAR_PUBLICACAO: 'Recria a publicação com todas as tabelas bi_*.',
  RESUME: 'Retoma o motor de sincronização.',
  AGUARDAR_REPLICACAO: 'Espera um slot do motor ficar ativo de novo.',
  FINALIZAR: 'Avança ultimo_nuke: os aparelhos limpam os dados e sincronizam do zero.',
};

export default async function replicacaoScreens(app: FastifyInstance) {
  const lista = async (req: FastifyRequest, reply: FastifyReply, form: Body = {},
    aviso: { tipo: 'ok' | 'erro' | 'info'; texto: string } | null = null, status = 200) => {
    const page = await listarExecucoes(app.ctx.pool, req.query as Record<string, unknown>);
    const emAndamento = page.content.find((e) => e.status === 'EM_ANDAMENTO') ?? null;
    return renderPagina(req, reply, 'admin/replicacao', {
      titulo: 'Reset da replicação', status, aviso, refresh: emAndamento ? 5 : undefined,
    }, {
      page, form, emAndamento,
      desligado: !app.ctx.config.replicator.confirmSecret,
      estrategia: app.ctx.config.replicator.restart,
      totalPaginas: Math.max(1, Math.ceil(page.totalSize / page.pageable.size)),
    });
  };

  app.get('/admin/replicacao', async (req, reply) => lista(req, reply));

  app.post<{ Body: Body }>('/admin/replicacao', async (req, reply) => {
    const b = req.body ?? {};
    const motivo = (b.motivo ?? '').trim();
    const segredo = app.ctx.config.replicator.confirmSecret;
    if (!segredo) {
      return lista(req, reply, b, { tipo: 'erro', texto: 'O reset da replicação está desligado nesta instalação (REPLICATOR_CONFIRM_SECRET não definida).' }, 503);
    }
    if (motivo.length > 500) {
      return lista(req, reply, b, { tipo: 'erro', texto: `O motivo tem ${motivo.length} caracteres; o máximo é 500.` }, 400);
    }
    if (b.confirmo !== 'sim') {
      return lista(req, reply, b, { tipo: 'erro', texto: 'Marque a confirmação: o reset para a sincronização e faz todos os aparelhos baixarem os dados do zero.' }, 400);
    }
    if (!b.segredo || !safeEqual(b.segredo, segredo)) {
      return lista(req, reply, b, { tipo: 'erro', texto: 'Segredo de confirmação inválido.' }, 403);
    }
    let id: string;
    try {
      id = (await replicacaoResetar(app.ctx.pool, motivo || null, `tela:${req.usuario?.email ?? 'modo desenvolvimento'}`)).id;
    } catch (err) {
      if ((err as { code?: string }).code === 'RR409') {
        return lista(req, reply, b, { tipo: 'erro', texto: 'Já existe um reset em andamento: acompanhe-o abaixo. Só um reset pode rodar por vez.' }, 409);
      }
      throw err;
    }
    return reply.redirect(`/admin/replicacao/${id}?ok=iniciado`, 303);
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/admin/replicacao/:id', async (req, reply) => {
    const id = req.params.id;
    const d = UUID.test(id) ? await carregarDetalhe(app.ctx.pool, id) : null;
    if (!d) throw new HttpProblem(404, 'Não encontrado', `O reset ${id} não existe.`, 'RR404');
    const aviso = req.query.ok === 'iniciado' ? { tipo: 'ok' as const, texto: 'Reset iniciado: os passos aparecem abaixo conforme rodam.' } : null;
    return renderPagina(req, reply, 'admin/replicacao-detalhe', {
      titulo: `Reset da replicação ${d.id.slice(0, 8)}`, aviso, refresh: d.status === 'EM_ANDAMENTO' ? 3 : undefined,
    }, { d, descricoes: PASSOS_DESCRICAO });
  });
}
