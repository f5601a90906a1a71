/**
 * The reconciliation of a day of orders (area B; docs/webhook.md, "Reconciliation"). SQL
 * decides everything (partner_conciliar); this job only fetches the platform's pages of the
 * day, with the client and limits of the poll, and hands the whole list to SQL:
 *  - partner_conciliar {dia}: enqueued by partner_conciliacao_solicitar (pg_cron each business
 *    day for the days since the previous one; a DBA or the API for any past day).
 * A failure goes back to the queue with backoff; when the job gives up (the platform
 * unreachable for the whole window of its attempts) SQL marks the day INACESSIVEL and raises the
 * notice 'conciliacao_incompleta' (error tracker, e-mail), like the watchdog's.
 */
import type { AppContext } from '../context.js';
import type { Job, JobContext, JobHandler } from '../jobs/runner.js';
import type { Alerta } from './db.js';
import { partnerConciliacaoFalhar, partnerConciliacaoIniciar, partnerConciliar } from './conciliacao-db.js';
import { fetchOrdersCreatedPage } from './partner.js';

export const CONCILIACAO_JOB_KIND = 'partner_conciliar';
export const ASSUNTO_CONCILIACAO = 'Conciliação de pedidos incompleta';

function diaDoJob(job: Job): string {
  const dia = job.payload.dia;
  if (typeof dia !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dia)) throw new Error(`job ${job.kind} ${job.id} sem payload.dia`);
  return dia;
}

export function partnerConciliacaoHandler(ctx: AppContext): JobHandler {
  const { pool, config } = ctx;
  const cfg = config.partner;
  return async (job: Job, jctx: JobContext): Promise<void> => {
    const dia = diaDoJob(job);
    const inicio = await partnerConciliacaoIniciar(pool, dia);
    const pedidos: unknown[] = [];
    try {
      if (!cfg.apiUrl || !cfg.apiToken) throw new Error('PARTNER_API_URL/PARTNER_API_TOKEN não configuradas nesta réplica');
      const api = { apiUrl: cfg.apiUrl, apiToken: cfg.apiToken, apiTimeoutMs: cfg.apiTimeoutMs };
      for (let page = 1; ; page++) {
        if (page > cfg.apiMaxPages) {
          // a list cut short would prove nothing: the day is not reconciled
          throw new Error(`a lista do dia ${dia} passa de PARTNER_API_MAX_PAGES (${cfg.apiMaxPages}) páginas`);
        }
        const res = await fetchOrdersCreatedPage(api, new Date(inicio.desde), new Date(inicio.ate), page, jctx.signal);
        pedidos.push(...res.data);
        if (page >= res.totalPages || res.data.length === 0) break;
      }
    } catch (err) {
      const definitiva = job.attempts >= job.max_attempts;
      await partnerConciliacaoFalhar(pool, dia, err instanceof Error ? err.message : String(err), definitiva)
        .catch((e) => jctx.log.warn({ err: e }, 'falha ao registrar a falha da conciliação'));
      throw err;
    }
    const v = await partnerConciliar(pool, dia, pedidos);
    const log = v.status === 'CONCILIADO' ? jctx.log.info.bind(jctx.log) : jctx.log.warn.bind(jctx.log);
    log({ dia, status: v.status, naPlataforma: v.na_plataforma, aqui: v.aqui, porWebhook: v.por_webhook,
      recuperados: v.recuperados, faltando: v.faltando, preenchidos: v.preenchidos, faltandoApos: v.faltando_apos,
      divergentes: v.divergentes }, 'conciliação de pedidos do dia concluída');
  };
}

function diaBr(dia: unknown): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(dia ?? ''));
  return m ? `${m[3]}/${m[2]}/${m[1]}` : String(dia);
}

/** The error tracker's message: one per day and status (the SDK drops an event identical to the previous one). */
export function mensagemConciliacao(a: Alerta): string {
  const d = a.dados as Record<string, unknown>;
  if (d.status === 'INACESSIVEL') return `Conciliação de pedidos de ${diaBr(d.dia)} impossível: plataforma inacessível (${String(d.erro ?? '')})`;
  return `Conciliação de pedidos de ${diaBr(d.dia)} incompleta: ${Number(d.faltando_apos ?? 0)} pedido(s) da plataforma faltando após o preenchimento`
    + (Number(d.ilegiveis ?? 0) > 0 ? `, ${Number(d.ilegiveis)} registro(s) sem código` : '');
}

export function textoConciliacao(a: Alerta): string {
  const d = a.dados as Record<string, unknown>;
  const c = (a.conciliacao ?? {}) as Record<string, unknown>;
  if (d.status === 'INACESSIVEL') {
    return [
      `Não foi possível conciliar os pedidos de ${diaBr(d.dia)}: a API REST da plataforma de pedidos não respondeu durante`,
      'todas as tentativas do job (a última falha está abaixo). Sem a lista da plataforma, não há como provar que todos',
      'os pedidos do dia estão aqui.',
      '',
      `Última falha: ${String(d.erro ?? '—')}`,
      '',
      'O próximo dia útil pede esse dia de novo; para pedir agora, no psql:',
      `  select partner_conciliacao_solicitar('${String(d.dia)}');`,
    ].join('\n');
  }
  const codigos = Array.isArray(d.codigos) ? (d.codigos as unknown[]).map(String) : [];
  return [
    `A conciliação dos pedidos de ${diaBr(d.dia)} não fechou: ${Number(d.na_plataforma ?? c.na_plataforma ?? 0)} na plataforma, `
      + `${Number(d.aqui ?? c.aqui ?? 0)} aqui, ${Number(d.faltando_apos ?? 0)} faltando mesmo após o preenchimento`
      + (Number(d.ilegiveis ?? 0) > 0 ? ` e ${Number(d.ilegiveis)} registro(s) da lista sem código.` : '.'),
    '',
    codigos.length > 0 ? `Pedidos faltando (a plataforma os lista, mas não puderam ser gravados): ${codigos.join(', ')}` : '',
    'O motivo de cada um está em partner_conciliacao_item (coluna erro):',
    `  select * from partner_conciliacao_item where dia = '${String(d.dia)}' and tipo = 'faltando' and not preenchido;`,
    '',
    'Depois de corrigir (por exemplo com partner_pedido_observar), concilie o dia de novo:',
    `  select partner_conciliacao_solicitar('${String(d.dia)}');`,
  ].join('\n');
}
