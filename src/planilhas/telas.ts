/**
 * /processamentos (list with status, tipo, file name and date filters, Page rules of the API;
 * each row says why: the failure's summary or the warnings), /processamentos/{id} (detail in
 * staff words: the failure with its next step, refused rows as a table, progress while it
 * runs, the execution log retold, technical details folded; download, reprocess buttons for
 * ERRO; a 409 is shown as a message on the detail, not as an error page),
 * /processamentos/conjuntos/{id} (a batch: each entry's outcome and a summary line) and
 * /processamentos/recusas (uploads refused before anything was stored). A running
 * processing refreshes itself. Words: palavras.ts; explanations and type names: SQL.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from '../errors.js';
import { PAGE_MAX_SIZE, parsePageRequest } from '../web/page.js';
import {
  STATUS_PROCESSAMENTO, type Aviso, type StatusProcessamento,
  OPERACOES, type Operacao, xlsAlteracoes, xlsAprovarExclusoes,
  xlsReprocessar, xlsReprocessarConjunto, xlsReprocessarErros,
} from './db.js';
import { desfazerRegistrando } from './desfazer.js';
import { TIPOS_PLANILHA, type TipoPlanilha } from '../xlsx/types.js';
import { conjuntoTela, detalheTela, lerLog, listarParaTela, listarRecusas } from './consulta.js';
import { contagem, renderPagina } from '../web/render.js';
import { consultaMedida } from './lenta.js';
import { FILTRO_STATUS, logAmigavel, palavras } from './palavras.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function filtro<T extends string>(nome: string, v: unknown, validos: readonly T[]): T | '' {
  const s = Array.isArray(v) ? String(v[v.length - 1]) : v === undefined ? '' : String(v);
  if (s === '') return '';
  if (!(validos as readonly string[]).includes(s)) throw new HttpProblem(400, 'Requisição inválida', `filtro ${nome} desconhecido: '${s}'`);
  return s as T;
}

const DIA = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A day filter (yyyy-mm-dd, the value of an <input type="date">); '' when absent. A real day
 * of the years 0001 to 9999 (the year 0000 exists in JavaScript, not in Postgres: it is a 400,
 * never a query that fails).
 */
function dia(nome: string, v: unknown): string {
  const s = Array.isArray(v) ? String(v[v.length - 1]) : v === undefined ? '' : String(v).trim();
  if (s === '') return '';
  const d = new Date(`${s}T00:00:00Z`);
  if (!DIA.test(s) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) {
    throw new HttpProblem(400, 'Requisição inválida', `data "${nome}" inválida: use o seletor de data (dia/mês/ano)`);
  }
  if (s < '0001-01-01') {
    throw new HttpProblem(400, 'Requisição inválida', `data "${nome}" fora do intervalo aceito (do ano 1 ao ano 9999): use o seletor de data (dia/mês/ano)`);
  }
  return s;
}

function texto(v: unknown, max: number): string {
  const s = Array.isArray(v) ? String(v[v.length - 1]) : v === undefined ? '' : String(v);
  return s.trim().slice(0, max);
}

function idDe(req: FastifyRequest<{ Params: { id: string } }>): string {
  if (!UUID.test(req.params.id)) throw new HttpProblem(404, 'Não encontrado', `processamento ${req.params.id} não existe`);
  return req.params.id;
}

const AVISOS_OK: Record<string, string> = {
  um: 'Reprocessamento solicitado: o processamento voltou para a fila.',
  aprovado: 'Exclusões aprovadas: a importação voltou para a fila e será aplicada mesmo removendo as linhas que o arquivo não traz.',
  desfeito: 'Importação desfeita: as linhas que ela inseriu, alterou ou removeu voltaram a ser como eram antes dela.',
};

/** Who acts on a screen: the session's e-mail (or the development mode's name). */
const quem = (req: FastifyRequest) => req.usuario?.email ?? 'desenvolvimento';

/** The change-set section of the detail: one page, filters by table and operation. */
async function alteracoesDaPagina(app: FastifyInstance, id: string, q: Record<string, string>) {
  const operacao = (OPERACOES as readonly string[]).includes(q.aoperacao ?? '') ? q.aoperacao as Operacao : null;
  const tabela = /^bi_[a-z0-9_]{1,60}$/.test(q.atabela ?? '') ? q.atabela! : null;
  const pagina = /^\d{1,6}$/.test(q.apagina ?? '') ? Number(q.apagina) : 0;
  const tamanho = 20;
  const r = await xlsAlteracoes(app.ctx.pool, id, { tabela, operacao, limite: tamanho, deslocamento: pagina * tamanho });
  return { ...r, tabela, operacao, pagina, paginas: Math.max(1, Math.ceil(r.total / tamanho)), operacoes: OPERACOES };
}

async function detalhe(app: FastifyInstance, req: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string> }>, reply: FastifyReply,
  banner: { tipo: 'ok' | 'erro' | 'info'; texto: string } | null = null, status = 200) {
  const id = idDe(req);
  const p = await consultaMedida(app.ctx, req.log, 'detalhe de processamento', () => detalheTela(app.ctx.pool, id));
  const log = await lerLog(app.ctx.config.logsDir, id, p.logArquivo).catch(() => null);
  const rodando = p.status === 'PENDENTE' || p.status === 'PROCESSANDO';
  const okMsg = req.query.ok ? (req.query.ok === 'conjunto' ? `Reprocessamento solicitado: ${contagem(req.query.n)} processamento(s) em ERRO do conjunto voltaram para a fila.` : AVISOS_OK[req.query.ok] ?? null) : null;
  // the log names files, not ids; the failure in the summary's words (no zip internals)
  const nomes = new Map<string, string>([[p.id, p.arquivo]]);
  for (const i of p.conjunto?.itens ?? []) if (i.processamentoId) nomes.set(i.processamentoId, i.arquivo);
  if (p.tipo && p.tipoNome) nomes.set(`tipo:${p.tipo}`, p.tipoNome);
  if (p.falha) nomes.set('falha', p.falha.resumo);
  return renderPagina(req, reply, 'processamentos/detalhe', {
    titulo: p.arquivo, status, refresh: rodando ? 3 : undefined,
    banner: banner ?? (okMsg ? { tipo: 'ok', texto: okMsg } : null),
  }, {
    p, w: palavras, rodando, log: log === null ? null : logAmigavel(log, nomes),
    situacao: palavras.situacao(p.status, p.avisos.length, p.erroAnterior),
    veiculos: p.tipo === 'RELATORIO18' ? p.avisos.filter((a) => a.categoria === 'veiculo' || /ve[ií]culo/i.test(a.motivo)) : null,
    decorrido: p.iniciadoEm ? Date.parse(p.agora) - Date.parse(p.iniciadoEm) : null,
    alt: await alteracoesDaPagina(app, id, req.query),
  });
}

export default async function processamentosScreens(app: FastifyInstance) {
  app.get<{ Querystring: Record<string, unknown> }>('/processamentos', async (req, reply) => {
    const status = filtro<StatusProcessamento>('status', req.query.status, STATUS_PROCESSAMENTO);
    const tipo = filtro<TipoPlanilha>('tipo', req.query.tipo, TIPOS_PLANILHA);
    const arquivo = texto(req.query.arquivo, 200);
    const de = dia('de', req.query.de);
    const ate = dia('até', req.query.ate);
    if (de && ate && de > ate) throw new HttpProblem(400, 'Requisição inválida', 'o período está invertido: a data "de" vem depois da data "até"');
    const page = parsePageRequest(req.query);
    const { itens, total } = await consultaMedida(app.ctx, req.log, 'lista de processamentos', () => listarParaTela(app.ctx.pool, { status, tipo, arquivo, de, ate }, page));
    const paginas = Math.max(1, Math.ceil(total / page.size));
    const q = (req.query as Record<string, string>);
    const okMsg = q.ok === 'erros' ? `Reprocessamento solicitado: ${contagem(q.n)} processamento(s) em ERRO voltaram para a fila.` : null;
    const { rows: tipos } = await app.ctx.pool.query<{ tipo: string; nome: string }>('select tipo, public.xls_tipo_nome(tipo) as nome from app.xls_tipo order by nome');
    return renderPagina(req, reply, 'processamentos/lista', {
      titulo: 'Processamentos', banner: okMsg ? { tipo: 'ok', texto: okMsg } : null,
      refresh: itens.some((i) => i.status === 'PENDENTE' || i.status === 'PROCESSANDO') ? 10 : undefined,
    }, {
      itens, total, page, paginas, status, tipo, arquivo, de, ate, w: palavras, statusValidos: FILTRO_STATUS,
      tiposValidos: tipos.filter((t) => (TIPOS_PLANILHA as readonly string[]).includes(t.tipo)),
      filtrado: Boolean(status || tipo || arquivo || de || ate),
      tamanhos: [20, 50, PAGE_MAX_SIZE],
    });
  });

  app.get<{ Querystring: Record<string, unknown> }>('/processamentos/recusas', async (req, reply) => {
    const page = parsePageRequest(req.query);
    const { itens, total } = await listarRecusas(app.ctx.pool, page);
    return renderPagina(req, reply, 'processamentos/recusas', { titulo: 'Envios recusados' }, {
      itens, total, page, paginas: Math.max(1, Math.ceil(total / page.size)), w: palavras,
    });
  });

  app.get<{ Params: { id: string } }>('/processamentos/conjuntos/:id', async (req, reply) => {
    if (!UUID.test(req.params.id)) throw new HttpProblem(404, 'Não encontrado', `conjunto ${req.params.id} não existe`);
    const c = await conjuntoTela(app.ctx.pool, req.params.id);
    if (!c) throw new HttpProblem(404, 'Não encontrado', 'este conjunto de arquivos não existe');
    const rodando = c.itens.some((i) => i.status === 'PENDENTE' || i.status === 'PROCESSANDO');
    return renderPagina(req, reply, 'processamentos/conjunto', {
      titulo: `Conjunto ${c.arquivo ?? palavras.quando(c.recebidoEm)}`, refresh: rodando ? 5 : undefined,
    }, { c, w: palavras, resumo: palavras.resumoConjunto(c.itens), rodando });
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/processamentos/:id', async (req, reply) => detalhe(app, req, reply));

  app.post<{ Params: { id: string }; Querystring: Record<string, string> }>('/processamentos/:id/reprocessar', async (req, reply) => {
    const id = idDe(req);
    try {
      await xlsReprocessar(app.ctx.pool, id);
    } catch (err) {
      if ((err as { code?: string }).code === 'XL409') {
        return detalhe(app, req, reply, { tipo: 'erro', texto: 'Não reprocessado: só um processamento em ERRO pode ser reprocessado (o status mudou; um clique duplo não faz mal).' }, 409);
      }
      throw err;
    }
    return reply.redirect(`/processamentos/${id}?ok=um`, 303);
  });

  // "Aplicar mesmo assim": a person approves the removals the mass-deletion guard held
  app.post<{ Params: { id: string }; Querystring: Record<string, string> }>('/processamentos/:id/aprovar-exclusoes', async (req, reply) => {
    const id = idDe(req);
    try {
      await xlsAprovarExclusoes(app.ctx.pool, id, quem(req));
    } catch (err) {
      if ((err as { code?: string }).code === 'XL409') {
        return detalhe(app, req, reply, { tipo: 'erro', texto: 'Nada a aprovar: esta importação não está retida pela trava de exclusão em massa.' }, 409);
      }
      throw err;
    }
    return reply.redirect(`/processamentos/${id}?ok=aprovado`, 303);
  });

  // "Desfazer esta importação", after the confirmation box is ticked
  app.post<{ Params: { id: string }; Body: { confirmar?: unknown }; Querystring: Record<string, string> }>('/processamentos/:id/desfazer', async (req, reply) => {
    const id = idDe(req);
    if (req.body?.confirmar !== 'sim') {
      return detalhe(app, req, reply, { tipo: 'erro', texto: 'Nada foi desfeito: marque a confirmação "Sim, desfazer esta importação" antes de enviar.' }, 400);
    }
    try {
      await desfazerRegistrando(app.ctx, id, quem(req));
    } catch (err) {
      if ((err as { code?: string }).code === 'XL409') {
        return detalhe(app, req, reply, { tipo: 'erro', texto: `Não foi desfeita: ${(err as Error).message}.` }, 409);
      }
      throw err;
    }
    return reply.redirect(`/processamentos/${id}?ok=desfeito`, 303);
  });

  // the errors of the processing's conjunto (the zip batch) back to the queue; reprocessar-lote is
  // the path of forms rendered before the rename
  for (const path of ['/processamentos/:id/reprocessar-conjunto', '/processamentos/:id/reprocessar-lote']) {
    app.post<{ Params: { id: string }; Body: { conjuntoId?: string }; Querystring: Record<string, string> }>(path, async (req, reply) => {
      const id = idDe(req);
      const conjuntoId = req.body?.conjuntoId;
      if (typeof conjuntoId !== 'string' || !UUID.test(conjuntoId)) throw new HttpProblem(400, 'Requisição inválida', 'conjunto (conjuntoId) ausente ou inválido');
      const ids = await xlsReprocessarConjunto(app.ctx.pool, conjuntoId);
      if (ids.length === 0) {
        return detalhe(app, req, reply, { tipo: 'erro', texto: 'Nenhum processamento do conjunto está em ERRO: nada foi reprocessado.' }, 409);
      }
      return reply.redirect(`/processamentos/${id}?ok=conjunto&n=${ids.length}`, 303);
    });
  }

  app.post<{ Body: { tipo?: string } }>('/processamentos/reprocessar-erros', async (req, reply) => {
    const tipo = filtro<TipoPlanilha>('tipo', req.body?.tipo, TIPOS_PLANILHA);
    const ids = await xlsReprocessarErros(app.ctx.pool, tipo || null);
    return reply.redirect(`/processamentos?status=ERRO${tipo ? `&tipo=${tipo}` : ''}&ok=erros&n=${ids.length}`, 303);
  });
}
