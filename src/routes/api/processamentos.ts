/**
 * Report API of the spreadsheet processings (thin over SQL; docs/xls-sql.md):
 * list, detail, execution log, and the three reprocess buttons. No file bytes anywhere.
 */
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';
import { HttpProblem } from '../../errors.js';
import { pageQueryProperties, pageSchema, parsePageRequest, toPage } from '../../plugins/page.js';
import { arr, dateTime, int, nullable, obj, str, uuid } from '../../schemas.js';
import {
  STATUS_PROCESSAMENTO, TIPOS_PLANILHA, type StatusProcessamento, type TipoPlanilha,
  xlsReprocessar, xlsReprocessarConjunto, xlsReprocessarErros,
} from '../../db/xls.js';

type Col = s.xls_processamento.Column;
const LIST_COLUMNS = [
  'id', 'status', 'tipo', 'arquivo', 'checksum', 'recebido_em', 'iniciado_em', 'finalizado_em', 'conjunto_id',
  'linhas_enviadas', 'linhas_efetivas', 'linhas_removidas', 'erro_mensagem',
] satisfies Col[];

const DETAIL_COLUMNS = [
  'id', 'status', 'tipo', 'arquivo', 'checksum', 'recebido_em', 'iniciado_em', 'finalizado_em', 'conjunto_id',
  'linhas_enviadas', 'linhas_efetivas', 'linhas_removidas', 'erro_mensagem', 'objeto_bucket', 'objeto_chave', 'objeto_tamanho_bytes', 'log_arquivo', 'avisos', 'linhas_rejeitadas',
  'uploader_id', 'uploader_nome',
] satisfies Col[];

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
});

const reprocessadosSchema = obj({ reprocessados: arr(uuid()) });
const idParams = obj({ id: uuid() });

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

type ListRow = s.xls_processamento.JSONSelectable;

function toItem(r: Pick<ListRow, (typeof LIST_COLUMNS)[number]>) {
  return {
    id: r.id,
    status: r.status,
    tipo: r.tipo,
    arquivo: r.arquivo,
    checksum: r.checksum,
    recebidoEm: iso(r.recebido_em)!,
    iniciadoEm: iso(r.iniciado_em),
    finalizadoEm: iso(r.finalizado_em),
    conjuntoId: r.conjunto_id,
    linhasEnviadas: r.linhas_enviadas,
    linhasEfetivas: r.linhas_efetivas,
    linhasRemovidas: r.linhas_removidas,
    erroMensagem: r.erro_mensagem,
  };
}

function naoEncontrado(id: string): HttpProblem {
  return new HttpProblem(404, 'Não encontrado', `processamento ${id} não existe`, 'XL404');
}

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
    const where: s.xls_processamento.Whereable = {};
    if (req.query.tipo) where.tipo = req.query.tipo;
    if (req.query.status) where.status = req.query.status;
    const [rows, total] = await Promise.all([
      db.select('xls_processamento', where, {
        columns: LIST_COLUMNS,
        order: [{ by: 'recebido_em', direction: 'DESC' }, { by: 'id', direction: 'DESC' }],
        limit: page.size, offset: page.offset,
      }).run(pool()),
      db.count('xls_processamento', where).run(pool()),
    ]);
    return toPage(page, rows.map(toItem), Number(total), { property: 'recebidoEm', direction: 'DESC' });
  });

  app.get<{ Params: { id: string } }>('/comercial/processamentos/:id', {
    schema: { params: idParams, response: { 200: detailSchema } },
  }, async (req) => {
    const r = await db.selectOne('xls_processamento', { id: req.params.id }, { columns: DETAIL_COLUMNS }).run(pool());
    if (!r) throw naoEncontrado(req.params.id);
    let conjunto = null;
    if (r.conjunto_id) {
      const [lote, itens] = await Promise.all([
        db.selectOne('xls_conjunto_lote', { id: r.conjunto_id }, { columns: ['id', 'total'] }).run(pool()),
        db.select('xls_conjunto_item', { conjunto_id: r.conjunto_id }, {
          columns: ['arquivo', 'processamento_id', 'status', 'motivo'], order: { by: 'ordem', direction: 'ASC' },
        }).run(pool()),
      ]);
      if (lote) {
        conjunto = {
          id: lote.id, total: lote.total,
          itens: itens.map((i) => ({ arquivo: i.arquivo, processamentoId: i.processamento_id, status: i.status, motivo: i.motivo })),
        };
      }
    }
    return {
      ...toItem(r),
      objetoBucket: r.objeto_bucket,
      objetoChave: r.objeto_chave,
      objetoTamanhoBytes: r.objeto_tamanho_bytes === null ? null : Number(r.objeto_tamanho_bytes),
      logArquivo: r.log_arquivo,
      avisos: r.avisos,
      linhasRejeitadas: r.linhas_rejeitadas,
      uploader: r.uploader_id === null && r.uploader_nome === null ? null : { id: r.uploader_id, nome: r.uploader_nome },
      conjunto,
    };
  });

  app.get<{ Params: { id: string } }>('/comercial/processamentos/:id/logs', {
    schema: { params: idParams, response: { 200: { type: 'string', description: 'o log de execução, text/plain' } } },
  }, async (req, reply) => {
    const r = await db.selectOne('xls_processamento', { id: req.params.id }, { columns: ['log_arquivo'] }).run(pool());
    if (!r) throw naoEncontrado(req.params.id);
    const base = resolve(app.ctx.config.logsDir);
    const path = resolve(base, r.log_arquivo);
    if (!path.startsWith(base + sep)) throw new HttpProblem(404, 'Não encontrado', `log do processamento ${req.params.id} fora do diretório de logs`);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new HttpProblem(404, 'Não encontrado', `o processamento ${req.params.id} ainda não tem log de execução`);
      }
      throw err;
    }
    return reply.type('text/plain; charset=utf-8').send(text);
  });

  app.post<{ Params: { id: string } }>('/comercial/processamentos/:id/reprocessar', {
    schema: { params: idParams, response: { 202: reprocessadosSchema } },
  }, async (req, reply) => {
    const ids = await xlsReprocessar(pool(), req.params.id);
    return reply.code(202).send({ reprocessados: ids });
  });

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
