/**
 * Orders console (/pedidos): the webhook's health in words and colour, orders by local state
 * (CAPTURADO / ENFILEIRADO / CANCELADO) with Enfileirar offered only on a paid CAPTURADO order
 * (app.partner_status_pago decides; otherwise the button is disabled and says why), and the
 * events the normalisation could not read (/pedidos/revisar). Every POST answers with a
 * redirect (303) whose query carries a code (`aviso=enfileirado&pedido=P-1`): the banner's
 * text is the server's, and the order is named only when it exists.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';
import { HttpProblem } from '../errors.js';
import { partnerWebhookReprocessar } from './db.js';
import { parsePageRequest } from '../web/page.js';
import { partnerPedidoEnfileirar, partnerStatus } from './db.js';
import { diaValido, spoolStatus, toConciliacaoDia, toStatus } from './api.js';
import { partnerConciliacaoDia, partnerConciliacaoResumo, partnerConciliacaoSolicitar } from './conciliacao-db.js';
import { formatos, renderPagina } from '../web/render.js';

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

const fmt = (d: string | null): string => formatos.dataHora(d);

type Status = ReturnType<typeof toStatus>;

/** The webhook's health for the coloured box: ok (green), atencao (yellow), erro (red). */
export function saudeDoWebhook(st: Status): { nivel: 'ok' | 'atencao' | 'erro'; titulo: string; texto: string } {
  if (st.episodioAberto) {
    return { nivel: 'erro', titulo: 'Webhook parado', texto: `Nenhum evento desde ${fmt(st.episodioAberto.silencioDesde)}. Recadastre o webhook no painel da plataforma de pedidos.` };
  }
  if (!st.ultimoEvento) return { nivel: 'atencao', titulo: 'Nenhum evento recebido ainda', texto: 'A plataforma de pedidos ainda não enviou nenhum evento a este serviço.' };
  if (st.silencio.alertaPrevistoEm) {
    return { nivel: 'atencao', titulo: 'Webhook em silêncio', texto: `Sem eventos desde ${fmt(st.silencio.desde)}; o alerta sai em ${fmt(st.silencio.alertaPrevistoEm)} se nada chegar.` };
  }
  if (!st.watchdog.habilitado) return { nivel: 'atencao', titulo: 'Webhook recebendo, vigilância desligada', texto: `Último evento em ${fmt(st.ultimoEvento.recebidoEm)}; nenhum alerta de silêncio será enviado.` };
  return { nivel: 'ok', titulo: 'Webhook funcionando', texto: `Último evento em ${fmt(st.ultimoEvento.recebidoEm)}.` };
}

/** This replica's local spool of the webhook in one sentence for staff (null: nothing to say). */
export function spoolEmPalavras(sp: ReturnType<typeof spoolStatus>): { texto: string; alerta: boolean } {
  if (!sp.habilitado) return { texto: `Spool local do webhook desligado nesta réplica (${sp.replica}): com o banco fora do ar o webhook responde 503.`, alerta: false };
  if (sp.registros === 0) return { texto: `Spool local do webhook vazio nesta réplica (${sp.replica}).`, alerta: false };
  const mb = (n: number) => (n / (1024 * 1024)).toLocaleString('pt-BR', { maximumFractionDigits: 1 });
  return {
    texto: `Spool local do webhook nesta réplica (${sp.replica}): ${sp.registros} evento(s) aguardando o banco, o mais antigo recebido em ${fmt(sp.maisAntigoEm)} ` +
      `(há ${Math.round(sp.idadeSegundos ?? 0)} s); ${mb(sp.bytes)} MB de ${mb(sp.limiteBytes)} MB.${sp.bancoIndisponivel ? ' O banco ainda não aceita o reenvio.' : ' Reenviando ao banco.'}`,
    alerta: true,
  };
}

/** partner_status() in sentences for staff. */
export function statusEmPalavras(st: Status): string[] {
  const f: string[] = [];
  f.push(st.ultimoEvento
    ? `Último evento do webhook recebido em ${fmt(st.ultimoEvento.recebidoEm)}${st.ultimoEvento.evento ? ` (${st.ultimoEvento.evento}${st.ultimoEvento.code ? `, pedido ${st.ultimoEvento.code}` : ''})` : ''}.`
    : 'Nenhum evento do webhook foi recebido ainda.');
  f.push(st.watchdog.habilitado
    ? `Vigilância ligada: alerta após ${st.watchdog.limiteMinComercial} minutos comerciais ou ${st.watchdog.limiteHoras} horas sem eventos.`
    : 'Vigilância do webhook desligada nesta instalação: nenhum alerta de silêncio será enviado (a equipe técnica liga na configuração do serviço).');
  if (st.silencio.desde) {
    f.push(`Sem eventos desde ${fmt(st.silencio.desde)}: ${Math.round(st.silencio.minutosComerciais ?? 0)} minutos comerciais (${Math.round(st.silencio.horas ?? 0)} horas corridas).${st.silencio.alertaPrevistoEm ? ` O alerta sai em ${fmt(st.silencio.alertaPrevistoEm)} se nada chegar.` : ''}`);
  }
  f.push(st.episodioAberto
    ? `Alerta aberto em ${fmt(st.episodioAberto.abertoEm)}: webhook parado desde ${fmt(st.episodioAberto.silencioDesde)}.`
    : st.ultimoEpisodio?.fechadoEm ? `Último alerta encerrado em ${fmt(st.ultimoEpisodio.fechadoEm)}: o webhook voltou a funcionar.` : 'Nenhum alerta de webhook parado em aberto.');
  f.push(st.contingencia.ligada
    ? `Contingência ligada desde ${fmt(st.contingencia.ligadaEm)}: pedidos são puxados pela API a cada poucos minutos.`
    : st.contingencia.apiConfigurada ? 'Contingência desligada.' : 'Contingência e consulta periódica indisponíveis: a API da plataforma não está configurada.');
  if (st.ultimoPoll) f.push(`Última consulta periódica: ${fmt(st.ultimoPoll.solicitadaEm)}, ${String(st.ultimoPoll.status).toLowerCase()}, ${st.ultimoPoll.pedidos} pedido(s)${st.ultimoPoll.erro ? ` (erro: ${st.ultimoPoll.erro})` : ''}.`);
  f.push(`Eventos aguardando leitura: ${st.eventos.pendentes}.`);
  return f;
}

type Dia = ReturnType<typeof toConciliacaoDia>;
const diaCurto = (dia: string) => `${dia.slice(8, 10)}/${dia.slice(5, 7)}`;
const diaLongo = (dia: string) => `${dia.slice(8, 10)}/${dia.slice(5, 7)}/${dia.slice(0, 4)}`;

/** One line of the ledger for staff: "27/11: 312 na plataforma, 312 aqui, 3 recuperados pela consulta, 0 faltando". */
export function linhaConciliacao(d: Dia): { texto: string; nivel: 'ok' | 'atencao' | 'erro' } {
  const dia = diaCurto(d.dia);
  if (d.status === 'INACESSIVEL') return { texto: `${dia}: a plataforma não respondeu${d.erro ? ` (${d.erro})` : ''}; nova tentativa automática`, nivel: 'erro' };
  if (d.status === 'EM_ANDAMENTO' || d.status === 'PENDENTE' || d.naPlataforma === null) return { texto: `${dia}: conciliação em andamento`, nivel: 'atencao' };
  const partes = [`${d.naPlataforma} na plataforma`, `${d.aqui} aqui`, `${d.recuperados ?? 0} recuperados pela consulta`, `${d.faltandoApos ?? d.faltando ?? 0} faltando`];
  if ((d.preenchidos ?? 0) > 0) partes.push(`${d.preenchidos} trazidos agora`);
  if ((d.divergentes ?? 0) > 0) partes.push(`${d.divergentes} com status diferente`);
  const nivel = (d.faltandoApos ?? 0) > 0 || d.status === 'INCOMPLETO' ? 'erro' : (d.divergentes ?? 0) > 0 ? 'atencao' : 'ok';
  return { texto: `${dia}: ${partes.join(', ')}`, nivel };
}

/** The learned silence alarm of the current slot in one sentence for staff. */
export function ritmoEmPalavras(st: Status): string {
  const a = st.silencio.aprendido;
  if (!a) return 'Ritmo de pedidos: sem dados.';
  if (a.base === 'fixo' || a.base === null) {
    const motivo = a.motivoFixo === 'desligado' ? 'o alarme aprendido está desligado' : 'ainda não há histórico suficiente para esta faixa';
    const taxa = a.faixaAtual?.taxaHora != null ? ` Nesta faixa costumam chegar ~${fmtNum(a.faixaAtual.taxaHora)} pedidos por hora.` : '';
    return `Alarme de silêncio pelos limites fixos (${motivo}).${taxa}`;
  }
  const taxa = a.faixaAtual?.taxaHora != null ? `~${fmtNum(a.faixaAtual.taxaHora)} pedidos por hora nesta faixa` : 'sem histórico nesta faixa';
  const desde = st.silencio.desde ? ` Esperados ~${fmtNum(a.esperados ?? 0)} pedidos desde ${fmt(st.silencio.desde)}.` : '';
  const dispara = a.disparaEm ? ` O alarme aprendido dispara em ${fmt(a.disparaEm)}, antes do limite fixo.` : '';
  return `Ritmo esperado: ${taxa}.${desde}${dispara}`;
}
const fmtNum = (n: number) => n.toLocaleString('pt-BR', { maximumFractionDigits: 1 });

/** The banners a redirect may ask for: `?aviso=<code>&pedido=<code of an existing order>`. */
const BANNERS: Record<string, { tipo: 'ok' | 'erro'; texto: (pedido: string | null) => string }> = {
  enfileirado: { tipo: 'ok', texto: (p) => `Pedido ${p ?? ''} enfileirado.` },
  'nao-pago': { tipo: 'erro', texto: (p) => `Pedido ${p ?? ''} não enfileirado: ainda não está pago na plataforma.` },
  'ja-tratado': { tipo: 'erro', texto: (p) => `Pedido ${p ?? ''} não enfileirado: ele já saiu de CAPTURADO (enfileirado ou cancelado por outra pessoa ou pela plataforma).` },
  'nao-encontrado': { tipo: 'erro', texto: () => 'Pedido não enfileirado: ele não existe (o código mudou ou foi digitado à mão).' },
  'evento-reenviado': { tipo: 'ok', texto: () => 'Evento enviado de novo para leitura.' },
  'evento-ja-lido': { tipo: 'erro', texto: () => 'O evento não estava mais a revisar: nada foi feito.' },
  'conciliacao-pedida': { tipo: 'ok', texto: () => 'Conciliação do dia pedida: o resultado aparece aqui em instantes.' },
  'conciliacao-em-curso': { tipo: 'ok', texto: () => 'A conciliação deste dia já está na fila.' },
  'conciliacao-dia-invalido': { tipo: 'erro', texto: () => 'Escolha um dia anterior a hoje para conciliar.' },
};
const BANNER_DO_ERRO: Record<string, string> = { PD404: 'nao-encontrado', PD409: 'ja-tratado', PD422: 'nao-pago' };

export default async function pedidosScreens(app: FastifyInstance) {
  const bannerDaQuery = async (q: Record<string, unknown>) => {
    const a = typeof q.aviso === 'string' ? BANNERS[q.aviso] : undefined;
    if (!a) return null;
    // the order is named only when it exists (never text copied from the address)
    const code = typeof q.pedido === 'string' && q.pedido.length <= 200
      ? (await db.selectOne('partner_pedido', { code: q.pedido }, { columns: ['code'] }).run(app.ctx.pool))?.code ?? null : null;
    return { tipo: a.tipo, texto: a.texto(code).replace(/\s+/g, ' ') };
  };

  app.get('/pedidos', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const estado = estadoDe(q.estado);
    const page = parsePageRequest(q);
    const [st, rows, total, banner, ledger] = await Promise.all([
      partnerStatus(app.ctx.pool),
      db.sql<s.partner_pedido.SQL, Array<s.partner_pedido.JSONSelectable & { pago: boolean }>>`
        select ${db.cols(['code', 'estado', 'status', 'total', 'pago_em', 'cliente_nome', 'atualizado_no_parceiro', 'enfileirado_em', 'enfileirado_por'])},
               app.partner_status_pago(${'status'}) as pago
          from ${'partner_pedido'} where ${{ estado }}
         order by ${'atualizado_no_parceiro'} desc, ${'code'} asc limit ${db.param(page.size)} offset ${db.param(page.offset)}`.run(app.ctx.pool),
      db.count('partner_pedido', { estado }).run(app.ctx.pool),
      bannerDaQuery(q),
      partnerConciliacaoResumo(app.ctx.pool, null),
    ]);
    const s = toStatus(st);
    const conciliacao = ledger.map(toConciliacaoDia).map((d) => ({ dia: d.dia, ...linhaConciliacao(d) }));
    return renderPagina(req, reply, 'pedidos/console', { titulo: 'Console de pedidos', banner }, {
      estado, estados: ESTADOS, rows, total: Number(total), page, paginas: Math.max(1, Math.ceil(Number(total) / page.size)),
      frases: statusEmPalavras(s), saude: saudeDoWebhook(s), ritmo: ritmoEmPalavras(s), conciliacao, spool: spoolEmPalavras(spoolStatus(app.ctx.partnerIntake)), statusPlataforma: STATUS_PLATAFORMA, contagens: s.pedidos, revisar: s.eventos.revisar,
    });
  });

  app.post<{ Params: { code: string } }>('/pedidos/:code/enfileirar', async (req, reply) => {
    const code = req.params.code;
    let banner = 'enfileirado';
    try {
      await partnerPedidoEnfileirar(app.ctx.pool, code, req.usuario?.email ?? 'console');
    } catch (err) {
      const c = (err as { code?: string }).code;
      if (!c || !BANNER_DO_ERRO[c]) throw err;
      req.log.info({ code, err: c }, 'pedido não enfileirado');
      banner = BANNER_DO_ERRO[c]!;
    }
    return reply.redirect(`/pedidos?estado=CAPTURADO&aviso=${banner}&pedido=${encodeURIComponent(code)}`, 303);
  });

  /** One day of the reconciliation ledger: the recovered, missing and divergent orders. */
  app.get<{ Params: { dia: string } }>('/pedidos/conciliacao/:dia', async (req, reply) => {
    const dia = diaValido(req.params.dia);
    if (!dia) throw new HttpProblem(404, 'Não encontrado', 'Este dia não existe no calendário.');
    const r = await partnerConciliacaoDia(app.ctx.pool, dia);
    if (!r) throw new HttpProblem(404, 'Não encontrado', `O dia ${diaLongo(dia)} ainda não foi conciliado.`);
    const d = toConciliacaoDia(r);
    return renderPagina(req, reply, 'pedidos/conciliacao', { titulo: `Conciliação de ${diaLongo(dia)}` }, {
      d, linha: linhaConciliacao(d), statusPlataforma: STATUS_PLATAFORMA,
    });
  });

  /** Asks for one past day's reconciliation (the job fetches that day's orders from the platform). */
  app.post('/pedidos/conciliacao', async (req, reply) => {
    const dia = diaValido((req.body as Record<string, unknown> | undefined)?.dia);
    let banner = 'conciliacao-pedida';
    if (!dia) {
      banner = 'conciliacao-dia-invalido';
    } else {
      try {
        if ((await partnerConciliacaoSolicitar(app.ctx.pool, dia)) === null) banner = 'conciliacao-em-curso';
      } catch (err) {
        if ((err as { code?: string }).code !== 'PW400') throw err;
        banner = 'conciliacao-dia-invalido';
      }
    }
    return reply.redirect(`/pedidos?aviso=${banner}#conciliacao`, 303);
  });

  /** The webhook's events the normalisation could not read (situacao REVISAR), newest first. */
  app.get('/pedidos/revisar', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const page = parsePageRequest(q);
    const where = { situacao: 'REVISAR' };
    const [rows, total, banner] = await Promise.all([
      db.sql<s.partner_webhook.SQL, Array<{ id: string; recebido_em: string; evento: string | null; code: string | null; resultado: string | null; detalhe: string | null; corpo: string }>>`
        select ${'id'}, ${'recebido_em'}, ${'evento'}, ${'code'}, ${'resultado'}, ${'detalhe'},
               encode(substring(${'corpo'} from 1 for 300), 'escape') as corpo
          from ${'partner_webhook'} where ${where}
         order by ${'recebido_em'} desc limit ${db.param(page.size)} offset ${db.param(page.offset)}`.run(app.ctx.pool),
      db.count('partner_webhook', where).run(app.ctx.pool),
      bannerDaQuery(q),
    ]);
    return renderPagina(req, reply, 'pedidos/revisar', { titulo: 'Eventos a revisar', banner }, {
      rows, total: Number(total), page, paginas: Math.max(1, Math.ceil(Number(total) / page.size)), motivos: MOTIVOS_REVISAR,
    });
  });

  app.post<{ Params: { id: string } }>('/pedidos/revisar/:id/reprocessar', async (req, reply) => {
    if (!UUID.test(req.params.id)) throw new HttpProblem(404, 'Não encontrado', 'Este evento não existe.', 'PW404');
    let banner = 'evento-reenviado';
    try {
      await partnerWebhookReprocessar(app.ctx.pool, req.params.id);
    } catch (err) {
      if ((err as { code?: string }).code !== 'PW409') throw err;
      banner = 'evento-ja-lido';
    }
    return reply.redirect(`/pedidos/revisar?aviso=${banner}`, 303);
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why an event is REVISAR (partner_webhook.resultado), in words, with the next step. */
export const MOTIVOS_REVISAR: Record<string, string> = {
  json_invalido: 'O corpo não é JSON válido. Guarde o evento para a equipe técnica; a plataforma pode reenviar o pedido.',
  formato_desconhecido: 'JSON em um formato que o serviço não conhece. Avise a equipe técnica.',
  evento_desconhecido: 'Tipo de evento que o serviço não trata. Avise a equipe técnica se ele importar.',
  pedido_invalido: 'O pedido do evento tem dados que não puderam ser lidos (ex.: valor ou data). Confira o pedido na plataforma.',
  erro_interno: 'Falhou várias vezes por um erro do serviço. Tente de novo; se voltar, avise a equipe técnica.',
};
