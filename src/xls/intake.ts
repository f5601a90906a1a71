/**
 * Receipt of an upload (POST /api/xls/processar): inspect the archive (hostile input never
 * gets further), then in ONE transaction let SQL decide each entry (ENFILEIRADO /
 * REPROCESSANDO / DUPLICADO / IGNORADO) and put the bytes SQL asks for in the object store
 * before COMMIT. When the store is down the transaction rolls back: 503 and nothing stays.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { HttpProblem } from '../errors.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { inspectUpload, ArchiveError, type ArchiveLimits } from '../xlsx/index.js';
import { xlsConjuntoAbrir, xlsConjuntoRecebido, xlsReceber, xlsReceberIgnorado, type ReciboItem } from '../db/xls.js';
import { writesColumn, writesObjectStore } from './storage.js';

export interface Recibo {
  conjuntoId: string | null;
  total: number;
  itens: ReciboItem[];
}

export interface Uploader {
  id: string;
  nome: string;
}

export async function receberUpload(ctx: AppContext, filename: string, bytes: Buffer,
  opts: { uploader?: Uploader | null; limits?: Partial<ArchiveLimits> } = {}): Promise<{ recibo: Recibo; enfileirados: number }> {
  let inspected;
  try {
    inspected = await inspectUpload(bytes, filename, opts.limits);
  } catch (err) {
    if (err instanceof ArchiveError) throw new HttpProblem(err.status, err.status === 413 ? 'Conteúdo grande demais' : 'Arquivo recusado', err.message);
    throw err;
  }
  const storeObjects = writesObjectStore(ctx);
  const client = await ctx.pool.connect();
  try {
    await client.query('begin');
    const conjuntoId = inspected.kind === 'zip'
      ? await xlsConjuntoAbrir(client, { arquivo: filename, uploaderId: opts.uploader?.id, uploaderNome: opts.uploader?.nome })
      : null;
    const itens: ReciboItem[] = [];
    for (const entry of inspected.entries) {
      if (!entry.ok) {
        itens.push(await xlsReceberIgnorado(client, conjuntoId!, entry.arquivo, entry.motivo));
        continue;
      }
      const checksum = createHash('sha256').update(entry.bytes).digest('hex');
      const r = await xlsReceber(client, {
        arquivo: entry.arquivo, checksum, tamanhoBytes: entry.bytes.length,
        objetoBucket: storeObjects ? ctx.objstore!.bucket : null,
        arquivoBytes: writesColumn(ctx) ? entry.bytes : null,
        conjuntoId, uploaderId: opts.uploader?.id, uploaderNome: opts.uploader?.nome,
      });
      if (r.armazenarObjeto && r.objetoChave) {
        await ctx.objstore!.put(r.objetoChave, entry.bytes, entry.bytes.length,
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      }
      itens.push({ arquivo: r.arquivo, processamentoId: r.processamentoId, status: r.status, motivo: r.motivo });
    }
    const recibo: Recibo = conjuntoId
      ? await xlsConjuntoRecebido(client, conjuntoId)
      : { conjuntoId: null, total: itens.length, itens };
    await client.query('commit');
    const enfileirados = recibo.itens.filter((i) => i.status === 'ENFILEIRADO' || i.status === 'REPROCESSANDO').length;
    return { recibo: { conjuntoId: recibo.conjuntoId, total: recibo.total, itens: recibo.itens }, enfileirados };
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    if (err instanceof ObjectStoreUnavailable) {
      throw new HttpProblem(503, 'Serviço indisponível', 'o armazenamento de arquivos está indisponível; nada foi gravado, reenvie em instantes', undefined, { retryAfter: 30 });
    }
    throw err;
  } finally {
    client.release();
  }
}
