/**
 * Area B under Bearer: GET /api/partner/status (state of the webhook, watchdog, contingency
 * and pulls, the learned silence alarm), GET /api/partner/conciliacao (the reconciliation ledger), GET /api/pedidos/{code} and POST /api/pedidos/{code}/enfileirar (release of a
 * CAPTURADO order; the orders console will call the same SQL function).
 */
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import * as db from 'zapatos/db';
import { anyObject, arr, bool, dateTime, int, nullable, num, obj, str, uuid } from '../schemas.js';
import { partnerPedidoEnfileirar, partnerStatus, type Pedido } from './db.js';
import { partnerConciliacaoResumo } from './conciliacao-db.js';
import { HttpProblem } from '../errors.js';
import type { PartnerIntake } from './intake.js';

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string | Date).toISOString());
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const pedidoSchema = obj({
  id: uuid(), code: str(), estado: str(), status: str(), total: nullable(num()), pagoEm: nullable(dateTime()),
  atualizadoNoParceiro: dateTime(),
  cliente: obj({ nome: nullable(str()), email: nullable(str()), documento: nullable(str()) }),
  itens: arr(anyObject()), origem: str(), liberacao: nullable(str()), enfileiradoEm: nullable(dateTime()),
  enfileiradoPor: nullable(str()), criadoEm: dateTime(), atualizadoEm: dateTime(),
});

export function toPedido(p: Pedido) {
  return {
    id: p.id, code: p.code, estado: p.estado, status: p.status, total: numOrNull(p.total), pagoEm: iso(p.pago_em),
    atualizadoNoParceiro: iso(p.atualizado_no_parceiro)!,
    cliente: { nome: p.cliente_nome, email: p.cliente_email, documento: p.cliente_documento },
    itens: Array.isArray(p.itens) ? p.itens : [], origem: p.origem, liberacao: p.liberacao,
    enfileiradoEm: iso(p.enfileirado_em), enfileiradoPor: p.enfileirado_por,
    criadoEm: iso(p.criado_em)!, atualizadoEm: iso(p.atualizado_em)!,
  };
}

const puxadaSchema = obj({
  id: int(), motivo: str(), status: str(), solicitadaEm: dateTime(), concluidaEm: nullable(dateTime()),
  pedidos: int(), erro: nullable(str()),
});

export const statusSchema = obj({
  agora: dateTime(),
  ultimoEvento: nullable(obj({
    id: uuid(), recebidoEm: dateTime(), evento: nullable(str()), code: nullable(str()), situacao: str(), resultado: nullable(str()),
  })),
  silencio: obj({
    desde: nullable(dateTime()), minutosComerciais: nullable(num()), horas: nullable(num()), alertaPrevistoEm: nullable(dateTime()),
    /** the learned silence alarm (partner_silencio_aprendido): what was expected, and when it fires */
    aprendido: nullable(obj({
      base: nullable(str()), motivoFixo: nullable(str()), esperados: nullable(num()), probabilidade: nullable(num()),
      disparaEm: nullable(dateTime()), fixoEm: nullable(dateTime()),
      faixaAtual: nullable(obj({ taxaHora: nullable(num()), dias: int(), tipoDia: int(), hora: int() })),
    })),
  }),
  watchdog: obj({ habilitado: bool(), limiteMinComercial: int(), limiteHoras: int(), monitorandoDesde: nullable(dateTime()) }),
  episodioAberto: nullable(obj({ id: int(), silencioDesde: dateTime(), abertoEm: dateTime(), motivo: str() })),
  ultimoEpisodio: nullable(obj({
    id: int(), silencioDesde: dateTime(), abertoEm: dateTime(), motivo: str(), fechadoEm: nullable(dateTime()),
    retornoEm: nullable(dateTime()), avisoRetorno: nullable(bool()),
  })),
  contingencia: obj({ ligada: bool(), apiConfigurada: bool(), ligadaEm: nullable(dateTime()), ultimaDesligadaEm: nullable(dateTime()) }),
  ultimoPoll: nullable(puxadaSchema),
  ultimaPuxada: nullable(puxadaSchema),
  eventos: obj({ pendentes: int(), revisar: int() }),
  pedidos: obj({ capturados: int(), enfileirados: int(), cancelados: int() }),
  /** the local spool of the replica that answered (each replica has its own) */
  spool: obj({
    replica: str(), habilitado: bool(), ativo: bool(), bancoIndisponivel: bool(), registros: int(), bytes: int(), limiteBytes: int(),
    maisAntigoEm: nullable(dateTime()), idadeSegundos: nullable(num()),
  }),
});

/** The spool part of the status: this replica's, from its intake (not from SQL). */
export function spoolStatus(intake: PartnerIntake | undefined) {
  const st = intake?.estado();
  return {
    replica: hostname(), habilitado: intake?.spool.habilitado ?? false, ativo: st?.ativo ?? false,
    bancoIndisponivel: st?.bancoIndisponivel ?? false, registros: st?.registros ?? 0, bytes: st?.bytes ?? 0,
    limiteBytes: st?.limiteBytes ?? 0, maisAntigoEm: iso(st?.maisAntigoEm ?? null),
    idadeSegundos: st?.idadeSegundos === null || st?.idadeSegundos === undefined ? null : Math.round(st.idadeSegundos * 10) / 10,
  };
}

type J = Record<string, unknown> | null;
const g = (o: J, k: string): unknown => (o ? o[k] : null);

function toPuxada(p: J) {
  if (!p) return null;
  return {
    id: Number(g(p, 'id')), motivo: g(p, 'motivo'), status: g(p, 'status'), solicitadaEm: iso(g(p, 'solicitada_em')),
    concluidaEm: iso(g(p, 'concluida_em')), pedidos: Number(g(p, 'pedidos')), erro: g(p, 'erro') ?? null,
  };
}

/** partner_silencio_aprendido() -> the API's shape (null when the status has none). */
function toAprendido(a: J) {
  if (!a) return null;
  const f = g(a, 'faixa_atual') as J;
  return {
    base: (g(a, 'base') as string | null) ?? null, motivoFixo: (g(a, 'motivo_fixo') as string | null) ?? null,
    esperados: numOrNull(g(a, 'esperados')), probabilidade: numOrNull(g(a, 'probabilidade')),
    disparaEm: iso(g(a, 'dispara_em')), fixoEm: iso(g(a, 'fixo_em')),
    faixaAtual: f ? { taxaHora: numOrNull(g(f, 'taxa_hora')), dias: Number(g(f, 'dias')), tipoDia: Number(g(f, 'tipo_dia')), hora: Number(g(f, 'hora')) } : null,
  };
}

/** One day of the reconciliation ledger (partner_conciliacao_dia, snake_case) -> the API's camelCase shape. */
export function toConciliacaoDia(d: Record<string, unknown>) {
  const n = (k: string) => numOrNull(d[k]);
  const itens = (d.itens ?? {}) as Record<string, Array<Record<string, unknown>>>;
  const lista = (k: string) => (itens[k] ?? []).map((i) => ({
    code: String(i.code), statusPlataforma: (i.status_plataforma as string | undefined) ?? null, statusAqui: (i.status ?? i.status_aqui ?? null) as string | null,
    estadoAqui: (i.estado ?? i.estado_aqui ?? null) as string | null, preenchido: typeof i.preenchido === 'boolean' ? i.preenchido : null,
    erro: (i.erro as string | undefined) ?? null,
  }));
  return {
    dia: String(d.dia), status: String(d.status), motivo: (d.motivo as string | null) ?? null,
    solicitadaEm: iso(d.solicitada_em), conciliadaEm: iso(d.conciliada_em), tentativas: Number(d.tentativas ?? 0), erro: (d.erro as string | null) ?? null,
    naPlataforma: n('na_plataforma'), aqui: n('aqui'), porWebhook: n('por_webhook'), recuperados: n('recuperados'), faltando: n('faltando'),
    preenchidos: n('preenchidos'), faltandoApos: n('faltando_apos'), divergentes: n('divergentes'), ilegiveis: n('ilegiveis'),
    itens: { recuperados: lista('recuperados'), faltando: lista('faltando'), divergentes: lista('divergentes') },
  };
}

const conciliacaoItemSchema = obj({
  code: str(), statusPlataforma: nullable(str()), statusAqui: nullable(str()), estadoAqui: nullable(str()), preenchido: nullable(bool()), erro: nullable(str()),
});
export const conciliacaoDiaSchema = obj({
  dia: str({ format: 'date' }), status: str(), motivo: nullable(str()), solicitadaEm: nullable(dateTime()), conciliadaEm: nullable(dateTime()),
  tentativas: int(), erro: nullable(str()),
  naPlataforma: nullable(int()), aqui: nullable(int()), porWebhook: nullable(int()), recuperados: nullable(int()), faltando: nullable(int()),
  preenchidos: nullable(int()), faltandoApos: nullable(int()), divergentes: nullable(int()), ilegiveis: nullable(int()),
  itens: obj({ recuperados: arr(conciliacaoItemSchema), faltando: arr(conciliacaoItemSchema), divergentes: arr(conciliacaoItemSchema) }),
});

/** YYYY-MM-DD of a real calendar day (years 0001–9999), or null. */
export function diaValido(v: unknown): string | null {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v && v >= '0001-01-01' ? v : null;
}

/** partner_status() (snake_case jsonb, for DBAs) -> the API's camelCase shape. */
export function toStatus(s: Record<string, unknown>) {
  const ue = s.ultimo_evento as J;
  const si = s.silencio as J;
  const wd = s.watchdog as J;
  const ea = s.episodio_aberto as J;
  const ul = s.ultimo_episodio as J;
  const ct = s.contingencia as J;
  const ev = s.eventos as J;
  const pd = s.pedidos as J;
  return {
    agora: iso(s.agora)!,
    ultimoEvento: ue && {
      id: g(ue, 'id'), recebidoEm: iso(g(ue, 'recebido_em')), evento: g(ue, 'evento') ?? null, code: g(ue, 'code') ?? null,
      situacao: g(ue, 'situacao'), resultado: g(ue, 'resultado') ?? null,
    },
    silencio: {
      desde: iso(g(si, 'desde')), minutosComerciais: numOrNull(g(si, 'minutos_comerciais')), horas: numOrNull(g(si, 'horas')),
      alertaPrevistoEm: iso(g(si, 'alerta_previsto_em')),
      aprendido: toAprendido(g(si, 'aprendido') as J),
    },
    watchdog: {
      habilitado: Boolean(g(wd, 'habilitado')), limiteMinComercial: Number(g(wd, 'limite_min_comercial')),
      limiteHoras: Number(g(wd, 'limite_horas')), monitorandoDesde: iso(g(wd, 'monitorando_desde')),
    },
    episodioAberto: ea && { id: Number(g(ea, 'id')), silencioDesde: iso(g(ea, 'silencio_desde')), abertoEm: iso(g(ea, 'aberto_em')), motivo: g(ea, 'motivo') },
    ultimoEpisodio: ul && {
      id: Number(g(ul, 'id')), silencioDesde: iso(g(ul, 'silencio_desde')), abertoEm: iso(g(ul, 'aberto_em')), motivo: g(ul, 'motivo'),
      fechadoEm: iso(g(ul, 'fechado_em')), retornoEm: iso(g(ul, 'retorno_em')), avisoRetorno: (g(ul, 'aviso_retorno') as boolean | null) ?? null,
    },
    contingencia: {
      ligada: Boolean(g(ct, 'ligada')), apiConfigurada: Boolean(g(ct, 'api_configurada')), ligadaEm: iso(g(ct, 'ligada_em')),
      ultimaDesligadaEm: iso(g(ct, 'ultima_desligada_em')),
    },
    ultimoPoll: toPuxada(s.ultimo_poll as J),
    ultimaPuxada: toPuxada(s.ultima_puxada as J),
    eventos: { pendentes: Number(g(ev, 'pendentes')), revisar: Number(g(ev, 'revisar')) },
    pedidos: { capturados: Number(g(pd, 'capturados')), enfileirados: Number(g(pd, 'enfileirados')), cancelados: Number(g(pd, 'cancelados')) },
  };
}

const codeParams = obj({ code: str({ minLength: 1, maxLength: 200 }) });

export default async function partnerApiRoutes(app: FastifyInstance) {
  app.get('/partner/status', { schema: { response: { 200: statusSchema } } }, async () => {
    let st: Record<string, unknown>;
    try {
      st = await partnerStatus(app.ctx.pool);
    } catch (err) {
      // the database is what is down: say what this replica's spool holds, in the problem
      const sp = spoolStatus(app.ctx.partnerIntake);
      throw new HttpProblem(503, 'Banco indisponível',
        `o banco não respondeu (${(err as Error).message}); spool local desta réplica (${sp.replica}): ${sp.registros} evento(s)` +
        `${sp.maisAntigoEm ? `, o mais antigo recebido em ${sp.maisAntigoEm}` : ''}`, undefined, { spool: sp });
    }
    return { ...toStatus(st), spool: spoolStatus(app.ctx.partnerIntake) };
  });

  // the reconciliation ledger from `desde` (default: the last 30 days), newest first
  app.get<{ Querystring: { desde?: string; ate?: string } }>('/partner/conciliacao', {
    schema: {
      querystring: obj({ desde: str({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), ate: str({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) }, { required: [] }),
      response: { 200: obj({ dias: arr(conciliacaoDiaSchema) }) },
    },
  }, async (req) => {
    const desde = req.query.desde === undefined ? null : diaValido(req.query.desde);
    const ate = req.query.ate === undefined ? null : diaValido(req.query.ate);
    if ((req.query.desde !== undefined && !desde) || (req.query.ate !== undefined && !ate)) {
      throw new HttpProblem(400, 'Requisição inválida', 'desde e ate são dias do calendário (AAAA-MM-DD, anos 0001 a 9999)');
    }
    const dias = await partnerConciliacaoResumo(app.ctx.pool, desde, ate);
    return { dias: dias.map(toConciliacaoDia) };
  });

  app.get<{ Params: { code: string } }>('/pedidos/:code', {
    schema: { params: codeParams, response: { 200: pedidoSchema } },
  }, async (req) => {
    const row = await db.selectOne('partner_pedido', { code: req.params.code }).run(app.ctx.pool);
    if (!row) throw new HttpProblem(404, 'Não encontrado', `pedido ${req.params.code} não encontrado`, 'PD404');
    return toPedido(row as unknown as Pedido);
  });

  app.post<{ Params: { code: string } }>('/pedidos/:code/enfileirar', {
    schema: { params: codeParams, response: { 200: pedidoSchema } },
  }, async (req) => {
    const row = await partnerPedidoEnfileirar(app.ctx.pool, req.params.code, 'api');
    req.log.info({ code: row.code }, 'pedido enfileirado pela API');
    return toPedido(row);
  });
}
