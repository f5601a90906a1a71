/**
 * Receipt of an upload (POST /api/xls/processar), from the upload written to a temporary
 * file: plan it from the archive's directory (hostile input is refused here, before anything
 * is inflated or stored), then in ONE transaction let SQL decide each entry (ENFILEIRADO /
 * REPROCESSANDO / DUPLICADO / IGNORADO), one entry at a time: extract it to a temporary file
 * while hashing it, check it, receive it, put it in the object store (streamed from the file)
 * before COMMIT, next entry. A loose xlsx is checked (every part inflated) while SQL receives
 * it and the store takes it; a refusal removes the object again before the rollback. When the
 * store is down the transaction rolls back: 503 and no row stays. After the COMMIT the files
 * enqueued for processing are kept on this host for their processing (originais-locais.ts);
 * the others are deleted (an entry at once, so a batch holds one entry on disk at a time
 * beyond those kept).
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AppContext } from '../context.js';
import { HttpProblem } from '../errors.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { ArchiveError, type ArchiveLimits } from '../xlsx/index.js';
import { FileSource } from '../xlsx/source.js';
import { resolveLimits } from '../xlsx/limits.js';
import { type TempFile, TempDir, writeTempFile } from './temp-file.js';
import { checkArchive, extractEntryToFile, planUpload, verifyIgnored } from './upload.js';
import { xlsConjuntoAbrir, xlsConjuntoRecebido, xlsReceber, xlsReceberIgnorado, type ReciboItem } from './db.js';
import { writesColumn, writesObjectStore } from './storage.js';
import { limparNome, tipoDownload } from './nomes.js';
import { MAX_ARQUIVOS, MAX_BYTES, guardarOriginal } from './originais-locais.js';
import { extensaoDoConteudo } from '../xlsx/open.js';
import type pg from 'pg';

export interface Recibo {
  conjuntoId: string | null;
  total: number;
  itens: ReciboItem[];
}

export interface Uploader {
  id: string;
  nome: string;
}


/** What SQL answered for an entry that a processing will read (a new one, or one reprocessed). */
const vaiProcessar = (status: string) => status === 'ENFILEIRADO' || status === 'REPROCESSANDO';

/** A name as SQL stores it: controls and bidi controls stripped (never empty). */
const nomeEntrada = (nome: string) => limparNome(nome) || '(sem nome)';

/** Receives one file (loose or entry): SQL decides; the bytes go where SQL asks. */
async function receberArquivo(ctx: AppContext, client: pg.PoolClient, arquivo: string, file: TempFile,
  conjuntoId: string | null, uploader: Uploader | null | undefined, verificacao: Promise<void> = Promise.resolve()): Promise<ReciboItem> {
  const storeObjects = writesObjectStore(ctx);
  // the format by content (not by name): the object key keeps its extension
  const fonte = await FileSource.open(file.path);
  const extensao = await extensaoDoConteudo(fonte).finally(() => fonte.close());
  const r = await xlsReceber(client, {
    extensao,
    arquivo, checksum: file.sha256, tamanhoBytes: file.size,
    objetoBucket: storeObjects ? ctx.objstore!.bucket : null,
    // the legacy column (PSQL modes) is COPYed from the file to the server: never held here
    arquivoBytes: writesColumn(ctx) ? { path: file.path, size: file.size } : null,
    conjuntoId, uploaderId: uploader?.id, uploaderNome: uploader?.nome,
  });
  if (r.armazenarObjeto && r.objetoChave) {
    // stored while the archive check still inflates the file: a refused file's object is
    // removed again before the rollback (the key is the file's checksum: these bytes only)
    const put = ctx.objstore!.put(r.objetoChave, createReadStream(file.path), file.size, tipoDownload(arquivo, extensao));
    const [v, g] = await Promise.allSettled([verificacao, put]);
    if (v.status === 'rejected') {
      // best effort: the refusal (400/413) is what the client must see, even with the store failing now
      if (g.status === 'fulfilled') await ctx.objstore!.remove(r.objetoChave).catch(() => undefined);
      throw v.reason;
    }
    if (g.status === 'rejected') throw g.reason;
  } else {
    await verificacao;
  }
  return { arquivo: r.arquivo, processamentoId: r.processamentoId, status: r.status, motivo: r.motivo };
}

/**
 * `upload`: the temporary file written by the route (path, size, SHA-256) — the API's upload, or the
 * batch the manual import page packed from its parts — or bytes already in memory (tests),
 * written to one here first.
 */
export async function receberUpload(ctx: AppContext, filename: string, input: TempFile | Buffer,
  opts: { uploader?: Uploader | null; limits?: Partial<ArchiveLimits>; tmp?: TempDir } = {}): Promise<{ recibo: Recibo; enfileirados: number }> {
  const tmp = opts.tmp ?? await TempDir.create();
  let source: FileSource | null = null;
  let client: pg.PoolClient | null = null;
  let verificacao: Promise<void> | null = null;
  // the files received for a processing, kept on this host after the commit (originais-locais.ts)
  const guardar: Array<{ path: string; file: TempFile }> = [];
  try {
    const upload = Buffer.isBuffer(input) ? await writeTempFile((async function* () { yield input; })(), tmp.file('.upload')) : input;
    source = await FileSource.open(upload.path);
    const plan = await planUpload(source, filename, opts.limits);
    // a loose xlsx is checked whole (every part inflated) while SQL receives it and the object
    // store takes it; nothing commits before the check passed (a non-zip is received as is: it ends ERRO)
    if (plan.kind === 'arquivo' && plan.zip) {
      verificacao = checkArchive(source, resolveLimits(opts.limits), null).then(() => undefined);
      verificacao.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    }

    client = await ctx.pool.connect();
    await client.query('begin');
    let recibo: Recibo;
    if (plan.kind === 'arquivo') {
      const item = await receberArquivo(ctx, client, nomeEntrada(plan.arquivo), upload, null, opts.uploader, verificacao ?? undefined);
      verificacao = null;
      recibo = { conjuntoId: null, total: 1, itens: [item] };
      if (vaiProcessar(item.status)) guardar.push({ path: upload.path, file: upload });
    } else {
      const conjuntoId = await xlsConjuntoAbrir(client, { arquivo: nomeEntrada(filename), uploaderId: opts.uploader?.id, uploaderNome: opts.uploader?.nome });
      for (const p of plan.entries) {
        if (!p.processar) {
          await verifyIgnored(source, p.entry);
          await xlsReceberIgnorado(client, conjuntoId, nomeEntrada(p.arquivo), p.motivo);
          continue;
        }
        const path = tmp.file('.entrada');
        const file = await extractEntryToFile(source, p.entry, path, opts.limits).catch(async (err: unknown) => {
          await rm(path, { force: true });
          throw err;
        });
        const item = await receberArquivo(ctx, client, nomeEntrada(p.arquivo), file, conjuntoId, opts.uploader);
        // kept for its processing only within the local store's bounds; else removed at once (one entry on disk at a time)
        if (vaiProcessar(item.status) && ctx.config.xls.originaisLocais !== null && guardar.length < MAX_ARQUIVOS
            && guardar.reduce((n, g) => n + g.file.size, file.size) <= MAX_BYTES) {
          guardar.push({ path, file });
        } else {
          await rm(path, { force: true });
        }
      }
      const r = await xlsConjuntoRecebido(client, conjuntoId);
      recibo = { conjuntoId: r.conjuntoId, total: r.total, itens: r.itens };
    }
    await client.query('commit');
    for (const g of guardar) await guardarOriginal(ctx.config.xls.originaisLocais, g.path, g.file.sha256, g.file.size);
    const enfileirados = recibo.itens.filter((i) => vaiProcessar(i.status)).length;
    return { recibo, enfileirados };
  } catch (err) {
    await verificacao?.catch(() => undefined); // its reads end before the file is removed
    if (client) await client.query('rollback').catch(() => undefined);
    if (err instanceof ArchiveError) throw new HttpProblem(err.status, err.status === 413 ? 'Conteúdo grande demais' : 'Arquivo recusado', err.message, err.code);
    if (err instanceof ObjectStoreUnavailable) {
      throw new HttpProblem(503, 'Serviço indisponível', 'o armazenamento de arquivos está indisponível; nada foi gravado, reenvie em instantes', undefined, { retryAfter: 30 });
    }
    throw err;
  } finally {
    client?.release();
    await source?.close();
    if (!opts.tmp) await tmp.remove();
  }
}
