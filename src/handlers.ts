/**
 * The job kinds this process handles: the one list that puts the areas' handlers together
 * (each area's live in its folder). The jobs kernel (src/jobs/) knows none of them.
 */
import type { AppContext } from './context.js';
import type { JobHandler } from './jobs/runner.js';
import { sendMessage } from './integrations/bot.js';
import { partnerJobHandlers } from './pedidos/jobs.js';
import { planilhasJobHandler } from './planilhas/processar.js';
import { PLANILHAS_JOB_KIND } from './planilhas/db.js';
import { REPLICACAO_JOB_KIND } from './replicacao/db.js';
import { replicacaoJobHandler } from './replicacao/jobs.js';

export function jobHandlers(ctx: AppContext): Record<string, JobHandler> {
  return {
    ...partnerJobHandlers(ctx),
    [PLANILHAS_JOB_KIND]: planilhasJobHandler(ctx),
    [REPLICACAO_JOB_KIND]: replicacaoJobHandler(ctx),
    /** app.notificar_bot(texto): one message to the configured chat. */
    bot_mensagem: async (job, { signal, log }) => {
      const texto = String(job.payload.texto ?? '');
      if (!ctx.config.bot) {
        log.info({ texto }, 'bot desligado (BOT_TOKEN ausente): mensagem descartada');
        return;
      }
      await sendMessage(ctx.config.bot, texto, signal);
    },
  };
}
