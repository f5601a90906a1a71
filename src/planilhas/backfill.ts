/**
 * Optional startup backfill (APP_STORAGE_BACKFILL_ENABLED, `app.storage.backfill.enabled`):
 * copies legacy originals that live only in the database column to the object store, so
 * reads can come from the store. Runs before recovery; idempotent (content-addressed keys,
 * and SQL records each row once); a failing row is logged and the others go on. Does
 * nothing in PSQL mode. In OBJSTORE mode the column is emptied once the copy is recorded.
 */
import type { FastifyBaseLogger } from 'fastify';
import * as db from 'zapatos/db';
import type { AppContext } from '../context.js';

export interface BackfillResult {
  copiados: number;
  falhas: number;
}

export async function backfillStorage(ctx: AppContext, log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>): Promise<BackfillResult> {
  const result: BackfillResult = { copiados: 0, falhas: 0 };
  if (ctx.config.storage.mode === 'PSQL' || !ctx.objstore) return result;
  const limparColuna = ctx.config.storage.mode === 'OBJSTORE';
  let after: string | null = null;
  for (;;) {
    const batch: Array<{ id: string; objeto_chave: string }> = await db.sql<db.SQL, Array<{ id: string; objeto_chave: string }>>`
      select id, objeto_chave from public.xls_backfill_pendentes(100, ${db.param(after)}::uuid)`.run(ctx.pool);
    if (batch.length === 0) break;
    for (const row of batch) {
      after = row.id;
      try {
        const [r] = await db.sql<db.SQL, Array<{ b: Buffer }>>`
          select arquivo_bytes as b from public.xls_processamento where id = ${db.param(row.id)}::uuid`.run(ctx.pool);
        if (!r?.b) continue;
        await ctx.objstore.put(row.objeto_chave, r.b, r.b.length);
        await db.sql`select public.xls_backfill_registrar(${db.param(row.id)}::uuid, ${db.param(ctx.objstore.bucket)}, ${db.param(limparColuna)})`.run(ctx.pool);
        result.copiados += 1;
      } catch (err) {
        result.falhas += 1;
        log.error({ err, processamentoId: row.id }, 'backfill: falha ao copiar o original para o object store; seguindo com os demais');
      }
    }
  }
  log.info(result, 'backfill do armazenamento concluído');
  return result;
}
