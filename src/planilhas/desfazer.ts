/**
 * Undo of one processing (public.xls_desfazer decides everything), written into its
 * execution log; shared by the API and the detail screen.
 */
import * as db from 'zapatos/db';
import type { AppContext } from '../context.js';
import { type Desfeito, xlsDesfazer } from './db.js';
import { ExecLog } from './execlog.js';

/** The undo, recorded in the processing's execution log (shared with the detail screen's button). */
export async function desfazerRegistrando(ctx: AppContext, id: string, por: string): Promise<Desfeito> {
  const d = await xlsDesfazer(ctx.pool, id, por);
  const r = await db.selectOne('xls_processamento', { id }, { columns: ['log_arquivo'] }).run(ctx.pool);
  if (r) {
    const log = new ExecLog(ctx.config.logsDir, r.log_arquivo);
    const resumo = Object.entries(d.tabelas).map(([t, c]) => `${t}: ${c.removidas} removidas, ${c.restauradas} restauradas, ${c.reinseridas} recolocadas`).join('; ');
    log.line(`importação desfeita por ${por}: ${resumo || 'nenhuma linha'}`);
    await log.close();
  }
  return d;
}
