/**
 * Job handlers of area B. SQL decides (partner_tick, partner_webhook_receber); these do
 * the part that needs the network or the process, each job claimed once across replicas:
 *  - partner_normalizar: normalise the stored webhook events in batches (pure SQL, run
 *    here so that it never runs on the request path; one job at a time, coalesced by the
 *    intake; per-event retries are SQL's);
 *  - partner_puxar {id}: one pull of orders from the platform's REST API, page by page;
 *  - partner_aviso {id}: one alerta (table partner_aviso): log line, error-tracker event, e-mails;
 *  - partner_conciliar {dia}: the reconciliation of a day (./conciliacao.ts).
 */
import type { AppContext } from '../context.js';
import type { Job, JobContext, JobHandler } from '../jobs/runner.js';
import {
  partnerAvisoCarregar, partnerAvisoEnvioResultado, partnerAvisoMarcar, partnerPuxadaConcluir, partnerPuxadaFalhar,
  partnerNormalizarConcluir, partnerPuxadaIniciar, partnerPuxadaPagina, partnerWebhookNormalizarLote, type Alerta,
  type PaginaContagem,
} from './db.js';
import { fetchOrdersPage } from './partner.js';
import { createMailer, type Mailer } from './mail.js';
import { flushErrtracker } from '../integrations/errtracker.js';
import { ASSUNTO_PARADO, ASSUNTO_VOLTOU, esperadosTexto, quando, textoParado, textoVoltou } from './textos.js';
import { ASSUNTO_CONCILIACAO, CONCILIACAO_JOB_KIND, mensagemConciliacao, partnerConciliacaoHandler, textoConciliacao } from './conciliacao.js';

/** Events per transaction of the normalisation job (a batch is normalised as sets: the more a batch holds, the less CPU an event; docs/webhook.md, "Normalisation as sets"). */
export const NORMALIZAR_LOTE = 200;

export const LOG_REVISAR = 'eventos do webhook guardados e marcados para revisão';
export const LOG_CONTINGENCIA_LIGADA = 'Contingência de pedidos LIGADA';
export const LOG_CONTINGENCIA_DESLIGADA = 'Contingência de pedidos DESLIGADA';

function jobId(job: Job): string | number {
  const id = job.payload.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`job ${job.kind} ${job.id} sem payload.id`);
  return id;
}

export function partnerJobHandlers(ctx: AppContext, deps: { mailer?: Mailer | null } = {}): Record<string, JobHandler> {
  const { pool, config } = ctx;
  const cfg = config.partner;
  let mailer: Mailer | null | undefined = deps.mailer;
  const getMailer = () => (mailer === undefined ? (mailer = createMailer(config.mail)) : mailer);
  const webhookUrl = cfg.webhookPublicUrl ?? '{base_url}/webhook/partner';

  /** The one coalescing normalisation job: batches until SQL says the queue is empty. */
  async function normalizar(job: Job, jctx: JobContext): Promise<void> {
    for (;;) {
      if (jctx.signal.aborted) throw new Error('normalização interrompida: encerrando');
      const { tratados, revisar } = await partnerWebhookNormalizarLote(pool, NORMALIZAR_LOTE);
      if (revisar > 0) jctx.log.warn({ revisar }, LOG_REVISAR);
      if (tratados > 0) continue;
      if (await partnerNormalizarConcluir(pool, jctx.workerId, job.id)) break;
    }
  }

  async function puxar(job: Job, jctx: JobContext): Promise<void> {
    const id = Number(jobId(job));
    const inicio = await partnerPuxadaIniciar(pool, id);
    if (inicio.status === 'CONCLUIDA') return;
    const total: PaginaContagem = { criado: 0, atualizado: 0, obsoleto: 0, repetido: 0, invalido: 0 };
    let paginas = 0;
    try {
      if (!cfg.apiUrl || !cfg.apiToken) throw new Error('PARTNER_API_URL/PARTNER_API_TOKEN não configuradas nesta réplica');
      const api = { apiUrl: cfg.apiUrl, apiToken: cfg.apiToken, apiTimeoutMs: cfg.apiTimeoutMs };
      for (let page = 1; page <= cfg.apiMaxPages; page++) {
        const res = await fetchOrdersPage(api, new Date(inicio.atualizado_desde), page, jctx.signal);
        const c = await partnerPuxadaPagina(pool, id, res.data);
        for (const k of Object.keys(total) as Array<keyof PaginaContagem>) total[k] += Number(c[k] ?? 0);
        paginas += 1;
        if (page >= res.totalPages || res.data.length === 0) break;
      }
      await partnerPuxadaConcluir(pool, id);
    } catch (err) {
      const definitiva = job.attempts >= job.max_attempts;
      await partnerPuxadaFalhar(pool, id, err instanceof Error ? err.message : String(err), definitiva)
        .catch((e) => jctx.log.warn({ err: e }, 'falha ao registrar a falha da puxada'));
      throw err;
    }
    const log = total.criado > 0 ? jctx.log.info.bind(jctx.log) : jctx.log.debug.bind(jctx.log);
    log({ puxadaId: id, motivo: inicio.motivo, desde: inicio.atualizado_desde, paginas, ...total }, 'puxada de pedidos concluída');
    if (total.invalido > 0) jctx.log.warn({ puxadaId: id, invalidos: total.invalido }, 'puxada de pedidos ignorou pedidos ilegíveis');
  }

  async function enviarEmails(a: Alerta, assunto: string, texto: string, jctx: JobContext): Promise<void> {
    if (a.pendentes.length === 0) {
      if (a.tipo === 'webhook_parado') jctx.log.warn({ avisoId: a.id }, 'aviso "Webhook parado" sem destinatários ativos (tabela destinatario)');
      return;
    }
    const m = getMailer();
    if (!m) {
      for (const email of a.pendentes) await partnerAvisoEnvioResultado(pool, a.id, email, 'SMTP_URL não configurada');
      jctx.log.warn({ avisoId: a.id, destinatarios: a.pendentes.length }, `e-mail "${assunto}" não enviado: SMTP_URL não configurada`);
      return;
    }
    const falhas: string[] = [];
    for (const email of a.pendentes) {
      try {
        await m.send({ to: email, subject: assunto, text: texto });
        await partnerAvisoEnvioResultado(pool, a.id, email, null);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        falhas.push(`${email}: ${msg}`);
        await partnerAvisoEnvioResultado(pool, a.id, email, msg);
      }
    }
    if (falhas.length > 0) throw new Error(`falha ao enviar "${assunto}" a ${falhas.length} destinatário(s): ${falhas.join('; ')}`);
  }

  async function alerta(job: Job, jctx: JobContext): Promise<void> {
    const a = await partnerAvisoCarregar(pool, Number(jobId(job)));
    if (!a || a.concluido_em) return;
    const d = a.dados;
    switch (a.tipo) {
      case 'contingencia_ligada':
        if (!a.registrado_em) {
          jctx.log.warn({ avisoId: a.id, silencioDesde: d.silencio_desde, minutosComerciais: d.minutos_comerciais }, LOG_CONTINGENCIA_LIGADA);
        }
        break;
      case 'contingencia_desligada':
        if (!a.registrado_em) jctx.log.info({ avisoId: a.id, retornoEm: d.retorno_em }, LOG_CONTINGENCIA_DESLIGADA);
        break;
      case 'webhook_parado':
        if (!a.registrado_em) {
          // ERROR logs reach the error tracker (src/integrations/errtracker.ts)
          jctx.log.error({ alerta: 'webhook_parado', avisoId: a.id, episodioId: (a.episodio as { id?: number } | null)?.id,
            silencioDesde: d.silencio_desde, ultimoEvento: d.ultimo_evento, minutosComerciais: d.minutos_comerciais,
            horas: d.horas, motivo: d.motivo },
          // one message per episode: the tracker SDK drops an event identical to the previous one
          `Webhook parado desde ${quando(d.ultimo_evento ?? d.silencio_desde)} (episódio ${(a.episodio as { id?: number } | null)?.id ?? a.id})${d.motivo === 'ritmo_aprendido' ? ` — ${esperadosTexto(d)}` : ''}: recadastre o webhook na plataforma de pedidos`);
          await flushErrtracker(5_000);
          await partnerAvisoMarcar(pool, a.id, 'rastreador');
        }
        break;
      case 'webhook_voltou':
        if (!a.registrado_em) jctx.log.info({ avisoId: a.id, retornoEm: d.retorno_em }, 'Webhook voltou a funcionar');
        break;
      case 'conciliacao_incompleta':
        if (!a.registrado_em) {
          jctx.log.error({ alerta: 'conciliacao_incompleta', avisoId: a.id, dia: d.dia, status: d.status }, mensagemConciliacao(a));
          await flushErrtracker(5_000);
          await partnerAvisoMarcar(pool, a.id, 'rastreador');
        }
        break;
    }
    if (!a.registrado_em) await partnerAvisoMarcar(pool, a.id, 'registrado');
    if (a.tipo === 'webhook_parado') await enviarEmails(a, ASSUNTO_PARADO, textoParado(a, webhookUrl), jctx);
    if (a.tipo === 'webhook_voltou') await enviarEmails(a, ASSUNTO_VOLTOU, textoVoltou(a), jctx);
    if (a.tipo === 'conciliacao_incompleta') await enviarEmails(a, ASSUNTO_CONCILIACAO, textoConciliacao(a), jctx);
    await partnerAvisoMarcar(pool, a.id, 'concluido');
  }

  return { partner_normalizar: normalizar, partner_puxar: puxar, partner_aviso: alerta,
    [CONCILIACAO_JOB_KIND]: partnerConciliacaoHandler(ctx) };
}
