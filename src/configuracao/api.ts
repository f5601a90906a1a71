/** /api/comercial/configuracoes: bi_configuracao for scripts (the screen comes with /admin). */
import type { FastifyInstance } from 'fastify';
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';
import { bool, dateTime, nullable, obj, str } from '../schemas.js';
import { pageQueryProperties, pageSchema, parsePageRequest, toPage } from '../web/page.js';
import { configuracaoDefinir } from './db.js';

const configuracao = obj({
  chave: str(), valor: str(), tipo: str(), sistema: bool(), descricao: nullable(str()), atualizadoEm: dateTime(),
});

export function toConfiguracao(r: s.bi_configuracao.JSONSelectable | s.bi_configuracao.Selectable) {
  return {
    chave: r.chave,
    valor: r.valor,
    tipo: r.tipo,
    sistema: r.sistema,
    descricao: r.descricao,
    atualizadoEm: new Date(r.atualizado_em as string | Date).toISOString(),
  };
}

export default async function configuracoesRoutes(app: FastifyInstance) {
  app.get('/comercial/configuracoes', {
    schema: { querystring: { type: 'object', properties: pageQueryProperties }, response: { 200: pageSchema(configuracao) } },
  }, async (req) => {
    const page = parsePageRequest(req.query as Record<string, unknown>);
    const [rows, total] = await Promise.all([
      db.select('bi_configuracao', db.all, { order: { by: 'chave', direction: 'ASC' }, limit: page.size, offset: page.offset }).run(app.ctx.pool),
      db.count('bi_configuracao', db.all).run(app.ctx.pool),
    ]);
    return toPage(page, rows.map(toConfiguracao), Number(total), { property: 'chave', direction: 'ASC' });
  });

  app.put<{ Params: { chave: string }; Body: { valor: string; versaoEsperada?: string | null } }>('/comercial/configuracoes/:chave', {
    schema: {
      params: obj({ chave: str({ maxLength: 63 }) }),
      body: { type: 'object', required: ['valor'], additionalProperties: false,
        properties: { valor: str({ maxLength: 10_000 }), versaoEsperada: nullable(str({ format: 'date-time' })) } },
      response: { 200: configuracao },
    },
  }, async (req) => {
    const row = await configuracaoDefinir(app.ctx.pool, req.params.chave, req.body.valor, req.body.versaoEsperada ?? null);
    return toConfiguracao(row);
  });
}
