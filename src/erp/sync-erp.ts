/**
 * POST /sync/erp: price and stock from the partner ERP. The edge authenticates (Bearer
 * ERP_SYNC_ACCESS_TOKEN), checks the envelope ({items: [1..200 objects]}) and the optional
 * Idempotency-Key, then calls public.erp_sync(), which decides, writes (real mode) and
 * audits. Errors are problem+json; the response keys are snake_case as the spec writes them.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from '../errors.js';
import { erpSync, erpSyncRecusaRegistrar } from './db.js';
import { arr, bool, int, nullable, num, obj, str } from '../schemas.js';
import { checkJson } from '../json-safe.js';

export const ERP_SYNC_MAX_ITEMS = 200;

const itemResult = obj({
  idx: int(),
  ean: nullable(str()),
  sku: str(),
  preco_recebido: num(),
  preco_cheio_recebido: num(),
  estoque_recebido: nullable(int()),
  preco_atual: nullable(num()),
  preco_cheio_atual: nullable(num()),
  estoque_atual: int(),
  vai_atualizar_preco: bool(),
  vai_atualizar_estoque: bool(),
});

export const erpSyncResponseSchema = obj({
  dry_run: bool(),
  recebidos: int(),
  casados: int(),
  atualizados: int(),
  nao_encontrados: arr(str()),
  ambiguos: arr(obj({ idx: int(), ean: str(), skus: arr(str()) })),
  erros: arr(obj({ idx: int(), erro: str() })),
  itens: arr(itemResult),
});

const invalid = (campo: string, detail: string) =>
  new HttpProblem(400, 'Requisição inválida', detail, undefined, { campo });

/** The envelope rules (docs/erp-sync.md, "HTTP contract"); the items themselves are judged in SQL. */
export function checkEnvelope(body: unknown): Record<string, unknown>[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid('corpo', 'o corpo deve ser um objeto JSON {"items": [...]}');
  }
  const items = (body as { items?: unknown }).items;
  if (items === undefined || items === null) throw invalid('items', 'campo items ausente: envie {"items": [...]} com 1 a 200 itens');
  if (!Array.isArray(items)) throw invalid('items', 'campo items deve ser uma lista de itens');
  if (items.length === 0) throw invalid('items', 'campo items está vazio: envie de 1 a 200 itens');
  if (items.length > ERP_SYNC_MAX_ITEMS) {
    throw new HttpProblem(413, 'Conteúdo grande demais',
      `items tem ${items.length} itens; o limite é ${ERP_SYNC_MAX_ITEMS} por requisição (recomendado: lotes de 100)`,
      undefined, { campo: 'items', limite: ERP_SYNC_MAX_ITEMS, recebidos: items.length });
  }
  const bad = items.findIndex((it) => it === null || typeof it !== 'object' || Array.isArray(it));
  if (bad >= 0) throw invalid(`items[${bad}]`, `items[${bad}] deve ser um objeto {ean ou sku, preco_cheio, preco_desconto, estoque}`);
  // depth, NUL and lone surrogates refused; ±Infinity (1e400) made a string that SQL judges invalid
  const problem = checkJson(items, 'items');
  if (problem) throw invalid(problem.campo, `${problem.campo} ${problem.motivo}`);
  return items as Record<string, unknown>[];
}

export function idempotencyKey(req: FastifyRequest): string | null {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  if (!/^[\x20-\x7e]{1,255}$/.test(key)) {
    throw invalid('Idempotency-Key', 'cabeçalho Idempotency-Key deve ter de 1 a 255 caracteres ASCII visíveis');
  }
  return key;
}

export default async function erpSyncRoute(app: FastifyInstance) {
  // JSON only (another content type is 415); a body that is not JSON is a 400 naming the body.
  app.removeAllContentTypeParsers();
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, raw, done) => {
    const body = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (body.trim() === '') {
      done(invalid('corpo', 'corpo vazio: envie {"items": [...]}'), undefined);
      return;
    }
    defaultJson(req, body, (err, parsed) => {
      if (err) done(invalid('corpo', `o corpo não é JSON válido: ${err.message}`), undefined);
      else done(null, parsed);
    });
  });

  // Refused calls (400, 413, 422) leave an audit row (erp_sync_recusa_registrar), written
  // before the answer leaves; a 401 leaves none (anyone could fill the table).
  app.addHook('onSend', async (req, reply, payload) => {
    if (![400, 413, 422].includes(reply.statusCode)) return payload;
    let detalhe = '';
    try { detalhe = String((JSON.parse(String(payload)) as { detail?: unknown }).detail ?? ''); } catch { /* not a problem body */ }
    const body = req.body as { items?: unknown } | undefined;
    const items = body && typeof body === 'object' && Array.isArray(body.items) ? body.items : null;
    const rawKey = req.headers['idempotency-key'];
    const key = rawKey === undefined ? null : (Array.isArray(rawKey) ? rawKey.join(',') : rawKey).trim();
    await erpSyncRecusaRegistrar(app.ctx.pool, reply.statusCode, detalhe, items, key, app.ctx.config.erpSync.dryRun)
      .catch((err: unknown) => req.log.error({ err }, 'falha ao auditar a recusa de POST /sync/erp'));
    return payload;
  });

  app.post('/erp', {
    schema: { response: { 200: erpSyncResponseSchema } },
  }, async (req) => {
    const items = checkEnvelope(req.body);
    const key = idempotencyKey(req);
    const { dryRun } = app.ctx.config.erpSync;
    return erpSync(app.ctx.pool, items, dryRun, key);
  });
}
