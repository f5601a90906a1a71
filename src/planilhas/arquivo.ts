/**
 * GET /processamentos/{id}/arquivo: the original spreadsheet, from the object store or the
 * legacy column depending on the storage mode, with an RFC 6266 Content-Disposition.
 * Takes a screen session (the view guard: modes and rejections of docs/screens.md) or, for
 * scripts, the API Bearer token.
 */
import type { FastifyInstance } from 'fastify';
import * as db from 'zapatos/db';
import { HttpProblem } from '../errors.js';
import { obj, uuid } from '../schemas.js';
import { type ExtensaoPlanilha, extensaoDaChave, nomeDownload, tipoDownload } from './nomes.js';
import { extensaoDoConteudo } from '../xlsx/open.js';
import { bearerToken, requireBearer } from '../web/bearer.js';
import { viewGuard } from '../web/guard.js';
import { openOriginal, OriginalUnavailable } from './storage.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';

/** RFC 6266 / RFC 5987: an ASCII fallback plus the exact UTF-8 name. */
export function contentDisposition(filename: string, extensao: ExtensaoPlanilha | null = null): string {
  const base = nomeDownload(filename, extensao);
  const ascii = base.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(base).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export default async function arquivoRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string } }>('/processamentos/:id/arquivo', {
    onRequest: async (req, reply) => {
      if (bearerToken(req) !== undefined) return requireBearer(() => app.ctx.config.apiToken)(req, reply);
      return viewGuard(req, reply);
    },
    schema: { params: obj({ id: uuid() }) },
  }, async (req, reply) => {
    const p = await db.selectOne('xls_processamento', { id: req.params.id }, { columns: ['id', 'arquivo', 'objeto_chave', 'objeto_tamanho_bytes'] }).run(app.ctx.pool);
    if (!p) throw new HttpProblem(404, 'Não encontrado', `processamento ${req.params.id} não existe`);
    let body;
    try {
      body = await openOriginal(app.ctx, { id: p.id, objetoChave: p.objeto_chave });
    } catch (err) {
      if (err instanceof ObjectStoreUnavailable) throw new HttpProblem(503, 'Serviço indisponível', 'o armazenamento de arquivos está indisponível; tente de novo em instantes');
      if (err instanceof OriginalUnavailable) throw new HttpProblem(404, 'Não encontrado', err.message);
      throw err;
    }
    // the format: the extension of the object key (read from the content at receipt), or the bytes of the column
    const extensao = extensaoDaChave(p.objeto_chave) ?? (Buffer.isBuffer(body) ? await extensaoDoConteudo(body) : null);
    reply.header('content-disposition', contentDisposition(p.arquivo, extensao));
    reply.header('cache-control', 'private, no-store');
    reply.type(tipoDownload(p.arquivo, extensao));
    if (p.objeto_tamanho_bytes !== null && !Buffer.isBuffer(body)) reply.header('content-length', String(p.objeto_tamanho_bytes));
    return reply.send(body);
  });
}
