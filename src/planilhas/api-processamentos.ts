/**
 * Report API of the spreadsheet processings (thin over SQL; docs/xls-sql.md):
 * list, detail, execution log, and the three reprocess buttons. No file bytes anywhere.
 */
import type { FastifyInstance } from 'fastify';
import * as db from 'zapatos/db';
import { consultaMedida } from './lenta.js';
import { detalheProcessamento, lerLog, listarProcessamentos, naoEncontrado } from './consulta.js';
import { HttpProblem } from '../errors.js';
import { pageQueryProperties, pageSchema, parsePageRequest, toPage } from '../web/page.js';
import { anyObject, arr, bool, dateTime, int, nullable, obj, str, uuid } from '../schemas.js';
import {
  OPERACOES, STATUS_PROCESSAMENTO, type Operacao, type StatusProcessamento,
  xlsAlteracoes, xlsAprovarExclusoes, xlsReprocessar, xlsReprocessarConjunto, xlsReprocessarErros,
} from './db.js';
import { desfazerRegistrando } from './desfazer.js';
import { TIPOS_PLANILHA, type TipoPlanilha } from '../xlsx/types.js';

const itemProperties = {
  id: uuid(),
  status: str(),
  tipo: nullable(str()),
  arquivo: str(),
  checksum: str(),
  recebidoEm: dateTime(),
  iniciadoEm: nullable(dateTime()),
  finalizadoEm: nullable(dateTime()),
  conjuntoId: nullable(uuid()),
  linhasEnviadas: nullable(int()),
  linhasEfetivas: nullable(int()),
  linhasRemovidas: nullable(int()),
  erroMensagem: nullable(str()),
};
const itemSchema = obj(itemProperties);

const reciboItemSchema = obj({ arquivo: str(), processamentoId: nullable(uuid()), status: str(), motivo: nullable(str()) });

const detailSchema = obj({
  ...itemProperties,
  objetoBucket: nullable(str()),
  objetoChave: nullable(str()),
  objetoTamanhoBytes: nullable(int()),
  logArquivo: str(),
  avisos: arr(obj({
    categoria: str(), motivo: str(), quantidade: int(),
    linhas: arr(obj({ aba: nullable(str()), linha: int(), valor: nullable(str()) })),
  })),
  linhasRejeitadas: arr(obj({
    aba: nullable(str()), linha: int(), campo: nullable(str()), valor: nullable(str()), mensagem: str(),
  })),
  uploader: nullable(obj({ id: nullable(str()), nome: nullable(str()) })),
  conjunto: nullable(obj({ id: uuid(), total: int(), itens: arr(reciboItemSchema) })),
  desfeitoEm: nullable(dateTime()),
  desfeitoPor: nullable(str()),
  exclusaoRetida: bool(),
  exclusoesAprovadasEm: nullable(dateTime()),
  exclusoesAprovadasPor: nullable(str()),
  alteracoesExpiradasEm: nullable(dateTime()),
});

const alteracaoSchema = obj({
  seq: int(), tabela: str(), operacao: str({ enum: [...OPERACOES] }), chave: anyObject(), antes: nullable(anyObject()), depois: nullable(anyObject()),
});
const desfeitoSchema = obj({
  id: uuid(), desfeitoEm: dateTime(), desfeitoPor: str(),
  tabelas: { type: 'object', additionalProperties: obj({ removidas: int(), restauradas: int(), reinseridas: int() }) },
});

const reprocessadosSchema = obj({ reprocessados: arr(uuid()) });
const idParams = obj({ id: uuid() });

export default async function processamentosRoutes(app: FastifyInstance) {
  const pool = () => app.ctx.pool;

  app.get<{ Querystring: { tipo?: TipoPlanilha; status?: StatusProcessamento } & Record<string, unknown> }>('/comercial/processamentos', {
    schema: {
      querystring: {
        type: 'object',
        // an empty value (a form's "all" option) means no filter
        properties: { ...pageQueryProperties, tipo: { type: 'string', enum: ['', ...TIPOS_PLANILHA] }, status: { type: 'string', enum: ['', ...STATUS_PROCESSAMENTO] } },
      },
      response: { 200: pageSchema(itemSchema) },
    },
  }, async (req) => {
    const page = parsePageRequest(req.query);
    const { itens, total } = await consultaMedida(app.ctx, req.log, 'lista de processamentos',
      () => listarProcessamentos(pool(), { tipo: req.query.tipo, status: req.query.status }, page));
    return toPage(page, itens, total, { property: 'recebidoEm', direction: 'DESC' });
  });
  app.get<{ Params: { id: string } }>('/comercial/processamentos/:id', {
    schema: { params: idParams, response: { 200: detailSchema } },
  }, async (req) => consultaMedida(app.ctx, req.log, 'detalhe de processamento', () => detalheProcessamento(pool(), req.params.id)));

  app.get<{ Params: { id: string } }>('/comercial/processamentos/:id/logs', {
    schema: { params: idParams, response: { 200: { type: 'string', description: 'o log de execução, text/plain' } } },
  }, async (req, reply) => {
    const r = await db.selectOne('xls_processamento', { id: req.params.id }, { columns: ['log_arquivo'] }).run(pool());
    if (!r) throw naoEncontrado(req.params.id);
    const text = await lerLog(app.ctx.config.logsDir, req.params.id, r.log_arquivo);
    if (text === null) throw new HttpProblem(404, 'Não encontrado', `o processamento ${req.params.id} ainda não tem log de execução`);
    return reply.type('text/plain; charset=utf-8').send(text);
  });

  // body optional: {"aprovarExclusoes": true} approves the removals the mass-deletion guard held
  app.post<{ Params: { id: string }; Body: { aprovarExclusoes?: boolean } | undefined }>('/comercial/processamentos/:id/reprocessar', {
    schema: {
      params: idParams,
      body: { anyOf: [{ type: 'null' }, { type: 'object', properties: { aprovarExclusoes: { type: 'boolean' } }, additionalProperties: false }] },
      response: { 202: reprocessadosSchema },
    },
  }, async (req, reply) => {
    const ids = req.body?.aprovarExclusoes === true
      ? await xlsAprovarExclusoes(pool(), req.params.id, 'api')
      : await xlsReprocessar(pool(), req.params.id);
    return reply.code(202).send({ reprocessados: ids });
  });

  app.get<{ Params: { id: string }; Querystring: { tabela?: string; operacao?: Operacao } & Record<string, unknown> }>('/comercial/processamentos/:id/alteracoes', {
    schema: {
      params: idParams,
      querystring: {
        type: 'object',
        properties: { ...pageQueryProperties, tabela: { type: 'string', pattern: '^(|bi_[a-z0-9_]{1,60})$' }, operacao: { type: 'string', enum: ['', ...OPERACOES] } },
      },
      response: { 200: pageSchema(alteracaoSchema) },
    },
  }, async (req) => {
    const page = parsePageRequest(req.query);
    const r = await xlsAlteracoes(pool(), req.params.id, {
      tabela: req.query.tabela || null, operacao: req.query.operacao || null, limite: page.size, deslocamento: page.offset,
    });
    return toPage(page, r.itens, r.total, { property: 'seq', direction: 'ASC' });
  });

  app.post<{ Params: { id: string } }>('/comercial/processamentos/:id/desfazer', {
    schema: { params: idParams, response: { 200: desfeitoSchema } },
  }, async (req) => desfazerRegistrando(app.ctx, req.params.id, 'api'));

  app.post<{ Params: { id: string } }>('/comercial/conjuntos/:id/reprocessar-erros', {
    schema: { params: idParams, response: { 202: reprocessadosSchema } },
  }, async (req, reply) => {
    const ids = await xlsReprocessarConjunto(pool(), req.params.id);
    return reply.code(202).send({ reprocessados: ids });
  });

  app.post<{ Querystring: { tipo?: TipoPlanilha } }>('/comercial/processamentos/reprocessar-erros', {
    schema: {
      querystring: { type: 'object', properties: { tipo: { type: 'string', enum: ['', ...TIPOS_PLANILHA] } } },
      response: { 202: reprocessadosSchema },
    },
  }, async (req, reply) => {
    const ids = await xlsReprocessarErros(pool(), req.query.tipo || null);
    return reply.code(202).send({ reprocessados: ids });
  });
}

