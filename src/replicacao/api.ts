/**
 * Reset of the replication to the phones (docs/replicacao.md), thin over SQL:
 *   POST /api/transporte/admin/resetar-replicator        start (Bearer + X-Confirm-Nuke) -> 202 | 409
 *   GET  /api/transporte/admin/resetar-replicator/{id}   one execution, its steps, the manual recovery
 *   GET  /api/comercial/admin/nuke-replication           Page of executions, iniciado_em descending
 *   GET  /api/transporte/admin/replicacao/saude          replication health: the engine's probe and each slot (saude.ts)
 *   GET  /api/transporte/admin/replicacao/paridade       parity now: what the engine serves against Postgres, per table (paridade.ts)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { HttpProblem } from '../errors.js';
import { safeEqual } from '../web/bearer.js';
import { pageQueryProperties, pageSchema, parsePageRequest, toPage } from '../web/page.js';
import { arr, bool, dateTime, int, num, nullable, obj, str, uuid } from '../schemas.js';
import { replicacaoInstrucoes, replicacaoResetar, type Execucao, type PassoRow } from './db.js';
import { carregarSaude } from './saude.js';
import { paridadeAgora } from './paridade.js';

const execucaoProperties = {
  id: uuid(),
  status: str(),
  stepAtual: nullable(str()),
  stepFalho: nullable(str()),
  erroMensagem: nullable(str()),
  motivo: nullable(str()),
  solicitante: nullable(str()),
  estrategia: nullable(str()),
  reinicioManual: { type: 'boolean' },
  slotsRemovidos: arr(str()),
  slotNovo: nullable(str()),
  ultimoNuke: nullable(str()),
  iniciadoEm: dateTime(),
  finalizadoEm: nullable(dateTime()),
};
export const execucaoSchema = obj(execucaoProperties);
export const passoSchema = obj({
  step: str(), ordem: int(), status: str(), mensagem: nullable(str()), iniciadoEm: dateTime(), finalizadoEm: nullable(dateTime()),
});
export const detalheSchema = obj({ ...execucaoProperties, passos: arr(passoSchema), instrucoes: nullable(str()) });

export const saudeSchema = obj({
  verificadoEm: dateTime(),
  situacao: obj({ nivel: str({ enum: ['ok', 'atencao', 'erro'] }), titulo: str(), texto: str() }),
  motor: obj({ configurado: bool(), acessivel: nullable(bool()), httpStatus: nullable(int()), erro: nullable(str()), duracaoMs: nullable(int()) }),
  slots: arr(obj({
    slotName: str(), active: bool(), activePid: nullable(int()), confirmedFlushLsn: nullable(str()), currentLsn: nullable(str()),
    lagBytes: nullable(num()), retainedBytes: nullable(num()),
    writeLagSeconds: nullable(num()), flushLagSeconds: nullable(num()), replayLagSeconds: nullable(num()),
    walStatus: nullable(str()), safeWalSize: nullable(num()), inactiveSince: nullable(dateTime()), inactiveAtLeast: nullable(bool()),
  })),
});

export const paridadeSchema = obj({
  verificadoEm: dateTime(), conferida: bool(), motivo: nullable(str()), checkpoint: nullable(str()), slot: nullable(str()), igual: bool(),
  tabelas: arr(obj({ tabela: str(), postgres: int(), motor: int(), igual: bool() })),
});

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

export function toExecucao(r: Execucao) {
  return {
    id: r.id,
    status: r.status,
    stepAtual: r.step_atual,
    stepFalho: r.step_falho,
    erroMensagem: r.erro_mensagem,
    motivo: r.motivo,
    solicitante: r.solicitante,
    estrategia: r.estrategia,
    reinicioManual: r.estrategia === 'manual',
    slotsRemovidos: r.slots_removidos ?? [],
    slotNovo: r.slot_novo,
    ultimoNuke: r.ultimo_nuke,
    iniciadoEm: iso(r.iniciado_em)!,
    finalizadoEm: iso(r.finalizado_em),
  };
}

export function toPasso(p: PassoRow) {
  return {
    step: p.step, ordem: p.ordem, status: p.status, mensagem: p.mensagem,
    iniciadoEm: iso(p.iniciado_em)!, finalizadoEm: iso(p.finalizado_em),
  };
}

/** One execution with its steps and, when it failed, what to do by hand. Null when unknown. */
export async function carregarDetalhe(pool: pg.Pool, id: string) {
  const { rows } = await pool.query<Execucao>('select * from public.xls_resetar_replicator where id = $1', [id]);
  const r = rows[0];
  if (!r) return null;
  const passos = await pool.query<PassoRow>('select * from public.xls_resetar_replicator_passo where execucao_id = $1 order by ordem', [id]);
  const instrucoes = r.status === 'ERRO' ? await replicacaoInstrucoes(pool, r.step_falho ?? r.step_atual, r.estrategia) : null;
  return { ...toExecucao(r), passos: passos.rows.map(toPasso), instrucoes };
}

export async function listarExecucoes(pool: pg.Pool, query: Record<string, unknown>) {
  const page = parsePageRequest(query);
  const [rows, total] = await Promise.all([
    pool.query<Execucao>('select * from public.xls_resetar_replicator order by iniciado_em desc, id desc limit $1 offset $2', [page.size, page.offset]),
    pool.query<{ n: number }>('select count(*)::int n from public.xls_resetar_replicator'),
  ]);
  return toPage(page, rows.rows.map(toExecucao), Number(total.rows[0]!.n), { property: 'iniciadoEm', direction: 'DESC' });
}

/** X-Confirm-Nuke against REPLICATOR_CONFIRM_SECRET (constant time); unset secret -> 503. */
export function exigirConfirmacao(secret: string | null, header: unknown): void {
  if (!secret) {
    throw new HttpProblem(503, 'Serviço indisponível', 'reset da replicação desligado: REPLICATOR_CONFIRM_SECRET não está definida nesta instalação');
  }
  if (typeof header !== 'string' || header === '') {
    throw new HttpProblem(403, 'Proibido', 'confirmação ausente: envie o cabeçalho X-Confirm-Nuke com o segredo de confirmação');
  }
  if (!safeEqual(header, secret)) throw new HttpProblem(403, 'Proibido', 'segredo de confirmação (X-Confirm-Nuke) inválido');
}

export default async function replicacaoRoutes(app: FastifyInstance) {
  // the body is optional: an empty JSON body is no body (encapsulated in this plugin)
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, {});
    try { done(null, JSON.parse(text)); } catch {
      const err = new HttpProblem(400, 'Requisição inválida', 'corpo JSON inválido');
      done(err, undefined);
    }
  });

  app.post<{ Body: { motivo?: string | null } | undefined }>('/transporte/admin/resetar-replicator', {
    schema: {
      body: { type: ['object', 'null'], additionalProperties: false, properties: { motivo: nullable(str({ maxLength: 500 })) } },
      response: { 202: execucaoSchema },
    },
    preValidation: async (req: FastifyRequest) => {
      exigirConfirmacao(app.ctx.config.replicator.confirmSecret, req.headers['x-confirm-nuke']);
      // before the schema, which would coerce a number to text ({"motivo": 123} -> "123")
      const motivo = (req.body as Record<string, unknown> | null | undefined)?.motivo;
      if (motivo !== undefined && motivo !== null && typeof motivo !== 'string') {
        throw new HttpProblem(400, 'Requisição inválida', 'motivo deve ser um texto (string JSON) ou null');
      }
    },
  }, async (req, reply: FastifyReply) => {
    const exec = await replicacaoResetar(app.ctx.pool, req.body?.motivo ?? null, 'api');
    return reply.code(202).header('location', `/api/transporte/admin/resetar-replicator/${exec.id}`).send(toExecucao(exec));
  });

  app.get<{ Params: { id: string } }>('/transporte/admin/resetar-replicator/:id', {
    schema: { params: obj({ id: uuid() }), response: { 200: detalheSchema } },
  }, async (req) => {
    const d = await carregarDetalhe(app.ctx.pool, req.params.id);
    if (!d) throw new HttpProblem(404, 'Não encontrado', `reset ${req.params.id} não existe`, 'RR404');
    return d;
  });

  app.get('/comercial/admin/nuke-replication', {
    // the old limit/offset are accepted and ignored
    schema: { querystring: { type: 'object', properties: { ...pageQueryProperties, limit: {}, offset: {} } }, response: { 200: pageSchema(execucaoSchema) } },
  }, async (req) => listarExecucoes(app.ctx.pool, req.query as Record<string, unknown>));

  app.get('/transporte/admin/replicacao/saude', {
    schema: { response: { 200: saudeSchema } },
  }, async () => carregarSaude(app.ctx.pool, app.ctx.config.replicator));

  app.get('/transporte/admin/replicacao/paridade', {
    schema: { response: { 200: paridadeSchema } },
  }, async () => paridadeAgora(app.ctx.pool, app.ctx.config.replicator));
}
