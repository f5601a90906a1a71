/**
 * Orders console (/pedidos): orders by local state (CAPTURADO / ENFILEIRADO / CANCELADO)
 * with the Enfileirar button (partner_pedido_enfileirar: PD404 / PD409 / PD422 shown as a
 * message), and the watchdog status of GET /api/partner/status in words.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as db from 'zapatos/db';
import { HttpProblem } from '../../errors.js';
import { parsePageRequest } from '../../plugins/page.js';
import { partnerPedidoEnfileirar, partnerStatus } from '../../db/partner.js';
import { toStatus } from '../api/partner.js';
import { renderPagina } from './render.js';

/** The platform's order statuses in words for staff (the code stays visible next to it). */
export const STATUS_PLATAFORMA: Record<string, string> = {
  waiting_payment: 'aguardando pagamento', received: 'pago', cancelled: 'cancelado', refused: 'recusado',
  invoiced: 'faturado', shipped: 'enviado', delivered: 'entregue',
};

export const ESTADOS = ['CAPTURADO', 'ENFILEIRADO', 'CANCELADO'] as const;
type Estado = (typeof ESTADOS)[number];

function estadoDe(v: unknown): Estado {
  const s = v === undefined || v === '' ? 'CAPTURADO' : String(v);
  if (!(ESTADOS as readonly string[]).includes(s)) throw new HttpProblem(400, 'Requisição inválida', `estado desconhecido: '${s}' (CAPTURADO, ENFILEIRADO ou CANCELADO)`);
  return s as Estado;
}

const fmt = (d: string | null): string => (d ? new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }).format(new Date(d)) : '—');

/** partner_status() in sentences for staff. */
export function statusEmPalavras(st: ReturnType<typeof toStatus>): string[] {
  const f: string[] = [];
  f.push(st.ultimoEvento
    ? `Último evento do webhook recebido em ${fmt(st.ultimoEvento.recebidoEm)}${st.ultimoEvento.evento ? ` (${st.ultimoEvento.evento}${st.ultimoEvento.code ? `, pedido ${st.ultimoEvento.code}` : ''})` : ''}.`
    : 'Nenhum evento do webhook foi recebido ainda.');
  f.push(st.watchdog.habilitado
    ? `Vigilância ligada: alerta após ${st.watchdog.limiteMinComercial} minutos comerciais ou ${st.watchdog.limiteHoras} horas sem eventos.`
    : 'Vigilância do webhook desligada (PARTNER_WATCHDOG_HABILITADO): nenhum alerta de silêncio será enviado.');
  if (st.silencio.desde) {
    f.push(`Sem eventos desde ${fmt(st.silencio.desde)}: ${Math.round(st.silencio.minutosComerciais ?? 0)} minutos comerciais (${Math.round(st.silencio.horas ?? 0)} horas corridas).${st.silencio.alertaPrevistoEm ? ` O alerta sai em ${fmt(st.silencio.alertaPrevistoEm)} se nada chegar.` : ''}`);
  }
  f.push(st.episodioAberto
    ? `ALERTA: webhook parado desde ${fmt(st.episodioAberto.silencioDesde)} (alerta aberto em ${fmt(st.episodioAberto.abertoEm)}). Recadastre o webhook no painel da plataforma.`
    : st.ultimoEpisodio?.fechadoEm ? `Último alerta encerrado em ${fmt(st.ultimoEpisodio.fechadoEm)}: o webhook voltou a funcionar.` : 'Nenhum alerta de webhook parado em aberto.');
  f.push(st.contingencia.ligada
    ? `Contingência LIGADA desde ${fmt(st.contingencia.ligadaEm)}: pedidos são puxados pela API a cada poucos minutos.`
    : st.contingencia.apiConfigurada ? 'Contingência desligada.' : 'Contingência e poll indisponíveis: a API da plataforma não está configurada.');
  if (st.ultimoPoll) f.push(`Último poll: ${fmt(st.ultimoPoll.solicitadaEm)}, ${String(st.ultimoPoll.status).toLowerCase()}, ${st.ultimoPoll.pedidos} pedido(s)${st.ultimoPoll.erro ? ` (erro: ${st.ultimoPoll.erro})` : ''}.`);
  f.push(`Eventos pendentes de normalização: ${st.eventos.pendentes}; a revisar: ${st.eventos.revisar}.`);
  return f;
}

export default async function pedidosScreens(app: FastifyInstance) {
  const pagina = async (req: FastifyRequest, reply: FastifyReply, aviso: { tipo: 'ok' | 'erro'; texto: string } | null, status = 200) => {
    const q = req.query as Record<string, unknown>;
    const estado = estadoDe(q.estado);
    const page = parsePageRequest(q);
    const [st, rows, total] = await Promise.all([
      partnerStatus(app.ctx.pool),
      db.select('partner_pedido', { estado }, {
        columns: ['code', 'estado', 'status', 'total', 'pago_em', 'cliente_nome', 'atualizado_no_parceiro', 'enfileirado_em', 'enfileirado_por'],
        order: [{ by: 'atualizado_no_parceiro', direction: 'DESC' }, { by: 'code', direction: 'ASC' }], limit: page.size, offset: page.offset,
      }).run(app.ctx.pool),
      db.count('partner_pedido', { estado }).run(app.ctx.pool),
    ]);
    const s = toStatus(st);
    const ok = typeof q.ok === 'string' ? `Pedido ${q.ok} enfileirado.` : null;
    return renderPagina(req, reply, 'pedidos/console', { titulo: 'Console de pedidos', status, aviso: aviso ?? (ok ? { tipo: 'ok', texto: ok } : null) }, {
      estado, estados: ESTADOS, rows, total: Number(total), page, paginas: Math.max(1, Math.ceil(Number(total) / page.size)),
      frases: statusEmPalavras(s), statusPlataforma: STATUS_PLATAFORMA, alerta: Boolean(s.episodioAberto), contagens: s.pedidos,
    });
  };

  app.get('/pedidos', async (req, reply) => pagina(req, reply, null));

  app.post<{ Params: { code: string } }>('/pedidos/:code/enfileirar', async (req, reply) => {
    const code = req.params.code;
    try {
      await partnerPedidoEnfileirar(app.ctx.pool, code, req.usuario?.email ?? 'console');
    } catch (err) {
      const c = (err as { code?: string }).code;
      if (c === 'PD409' || c === 'PD422' || c === 'PD404') {
        return pagina(req, reply, { tipo: 'erro', texto: `Pedido ${code} não enfileirado: ${(err as Error).message}.` }, Number(c.slice(2)));
      }
      throw err;
    }
    return reply.redirect(`/pedidos?estado=CAPTURADO&ok=${encodeURIComponent(code)}`, 303);
  });
}
