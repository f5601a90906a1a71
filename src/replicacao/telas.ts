/**
 * /admin/replicacao: the replication to the phones on the staff screens (docs/replicacao.md):
 * first the health panel (the engine reachable or not, each slot and its lag: saude.ts), then
 * the reset. The list of resets with the start form (motivo, an explicit
 * confirmation and the confirmation secret, the same REPLICATOR_CONFIRM_SECRET as the API's
 * X-Confirm-Nuke), and the detail with each step and, for the failed step, what to do by
 * hand. SQL decides (replicacao_resetar: one EM_ANDAMENTO, 409); a refused form is shown again
 * with its message and the refusal's status. A running reset refreshes itself.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { marked } from 'marked';
import { HttpProblem } from '../errors.js';
import { projectRoot } from '../paths.js';
import { safeEqual } from '../web/bearer.js';
import { formatos, renderPagina } from '../web/render.js';
import { replicacaoResetar } from './db.js';
import { carregarDetalhe, listarExecucoes } from './api.js';
import { carregarSaude, saudeTela } from './saude.js';
import { paridadeAgora } from './paridade.js';

/** The reset's motivo: at most this many characters (code points) on the screen, the API and in SQL. */
export const MOTIVO_MAX = 500;

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
  VERIFICAR_PARIDADE: 'Espera a cópia inicial do motor e confere, tabela a tabela, que ele serve o mesmo que o Postgres.',
  FINALIZAR: 'Avança ultimo_nuke: os aparelhos limpam os dados e sincronizam do zero.',
};

/** The ten steps in their order (replicacao_passo's ordem). */
export const PASSOS = Object.keys(PASSOS_DESCRICAO);

/** Statuses as staff read them: the execution's, and each step's. */
export const STATUS_EXECUCAO: Record<string, string> = { EM_ANDAMENTO: 'Em andamento', SUCESSO: 'Concluído', ERRO: 'Falhou' };
export const STATUS_PASSO: Record<string, string> = {
  EM_ANDAMENTO: 'em andamento', SUCESSO: 'concluído', AVISO: 'concluído com aviso', PULADO: 'pulado', ERRO: 'falhou',
  AGUARDANDO: 'aguardando', NAO_EXECUTADO: 'não executado',
};

type Detalhe = NonNullable<Awaited<ReturnType<typeof carregarDetalhe>>>;

/** The ten steps with their state: the recorded ones as recorded, the others waiting (running) or not run (ended). */
export function dezPassos(d: Detalhe) {
  return PASSOS.map((step, i) => {
    const p = d.passos.find((x) => x.step === step);
    const status = p?.status ?? (d.status === 'EM_ANDAMENTO' ? 'AGUARDANDO' : 'NAO_EXECUTADO');
    return { ordem: i + 1, step, status, rotulo: STATUS_PASSO[status] ?? status, mensagem: p?.mensagem ?? null,
      iniciadoEm: p?.iniciadoEm ?? null, finalizadoEm: p?.finalizadoEm ?? null, descricao: PASSOS_DESCRICAO[step] ?? '' };
  });
}

/** docs/replicacao.md as HTML (read once): headings get ids (links to a section), tables scroll inside their box. */
let runbookHtml: Promise<string> | null = null;
export function runbook(): Promise<string> {
  runbookHtml ??= readFile(join(projectRoot, 'docs', 'replicacao.md'), 'utf8').then((md) => {
    const html = marked.parse(md.replace(/^# .*\n/, ''), { async: false }) as string;
    return html
      .replace(/<h([1-6])>([\s\S]*?)<\/h\1>/g, (_m, n: string, t: string) => `<h${Math.min(6, Number(n) + 1)} id="${ancora(t)}">${t}</h${Math.min(6, Number(n) + 1)}>`)
      .replace(/<pre>/g, '<pre tabindex="0">')
      .replace(/<table>/g, '<div class="doc-tabela" tabindex="0" role="region" aria-label="Tabela"><table>')
      .replace(/<\/table>/g, '</table></div>');
  });
  runbookHtml.catch(() => { runbookHtml = null; });
  return runbookHtml;
}

/** The id of a heading: its text without tags, lower case, words joined by '-'. */
export function ancora(html: string): string {
  return html.replace(/<[^>]+>/g, '').toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')
    .replace(/&[a-z]+;|&#\d+;/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
export const RUNBOOK_SECAO = 'what-to-do-by-hand-after-each-failure-runbook';

export default async function replicacaoScreens(app: FastifyInstance) {
  const lista = async (req: FastifyRequest, reply: FastifyReply, form: Body = {},
    banner: { tipo: 'ok' | 'erro' | 'info'; texto: string } | null = null, status = 200) => {
    // the list's sections, each with its own data: the health panel, then the resets
    // and, when asked (?paridade=1), the parity table
    const q = req.query as Record<string, unknown>;
    const [page, saude, paridade] = await Promise.all([
      listarExecucoes(app.ctx.pool, q),
      carregarSaude(app.ctx.pool, app.ctx.config.replicator),
      // parity on demand only (it reads every synced table and the engine's storage)
      q.paridade === '1' ? paridadeAgora(app.ctx.pool, app.ctx.config.replicator) : Promise.resolve(null),
    ]);
    const emAndamento = page.content.find((e) => e.status === 'EM_ANDAMENTO') ?? null;
    return renderPagina(req, reply, 'replicacao/lista', {
      titulo: 'Reset da replicação', status, banner, refresh: emAndamento ? 5 : undefined,
    }, {
      saude: saudeTela(saude, formatos.dataHora),
      paridade,
      page, form, emAndamento, statusExecucao: STATUS_EXECUCAO, passosStatus: STATUS_PASSO,
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
    // characters as SQL counts them (char_length: code points), the same limit as the API
    const caracteres = [...motivo].length;
    if (caracteres > MOTIVO_MAX) {
      return lista(req, reply, b, { tipo: 'erro', texto: `O motivo tem ${caracteres} caracteres; o máximo é ${MOTIVO_MAX}.` }, 400);
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

  app.get('/admin/replicacao/runbook', async (req, reply) => renderPagina(req, reply, 'replicacao/runbook', {
    titulo: 'Replicação para os celulares: o runbook',
  }, { html: await runbook() }));

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/admin/replicacao/:id', async (req, reply) => {
    const id = req.params.id;
    const d = UUID.test(id) ? await carregarDetalhe(app.ctx.pool, id) : null;
    if (!d) throw new HttpProblem(404, 'Não encontrado', `O reset ${id} não existe.`, 'RR404');
    const rodando = d.status === 'EM_ANDAMENTO';
    // the start banner only while it runs; the page refreshes to its own address (without ?ok=)
    const banner = req.query.ok === 'iniciado' && rodando ? { tipo: 'ok' as const, texto: 'Reset iniciado: os passos aparecem abaixo conforme rodam.' } : null;
    return renderPagina(req, reply, 'replicacao/detalhe', {
      titulo: `Reset da replicação de ${formatos.dataHora(d.iniciadoEm)}`, banner,
      refresh: rodando ? `3; url=/admin/replicacao/${d.id}` : undefined,
    }, { d, passos: dezPassos(d), statusExecucao: STATUS_EXECUCAO, runbook: `/admin/replicacao/runbook#${RUNBOOK_SECAO}` });
  });
}
