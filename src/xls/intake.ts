/**
 * Receipt of an upload (POST /api/xls/processar), from the upload spooled to a temporary
 * file: plan it from the archive's directory (hostile input is refused here, before anything
 * is inflated or stored), then in ONE transaction let SQL decide each entry (ENFILEIRADO /
 * REPROCESSANDO / DUPLICADO / IGNORADO), one entry at a time: extract it to a temporary file
 * while hashing it, check it, receive it, put it in the object store (streamed from the file)
 * before COMMIT, delete the file, next entry. When the store is down the transaction rolls
 * back: 503 and no row stays.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { AppContext } from '../context.js';
import { HttpProblem } from '../errors.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { ArchiveError, type ArchiveLimits } from '../xlsx/index.js';
import { FileSource } from '../xlsx/source.js';
import { resolveLimits } from '../xlsx/limits.js';
import { type Spooled, TempDir, spool } from './spool.js';
import { checkArchive, extractEntryToFile, planUpload, verifyIgnored } from './upload.js';
import { xlsConjuntoAbrir, xlsConjuntoRecebido, xlsReceber, xlsReceberIgnorado, type ReciboItem } from '../db/xls.js';
import { writesColumn, writesObjectStore } from './storage.js';
import { limparNome, tipoDownload } from './nomes.js';
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


/** A name as SQL stores it: controls and bidi controls stripped (never empty). */
const nomeEntrada = (nome: string) => limparNome(nome) || '(sem nome)';

/** Receives one file (loose or entry): SQL decides; the bytes go where SQL asks. */
async function receberArquivo(ctx: AppContext, client: pg.PoolClient, arquivo: string, file: Spooled,
  conjuntoId: string | null, uploader: Uploader | null | undefined): Promise<ReciboItem> {
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
    await ctx.objstore!.put(r.objetoChave, createReadStream(file.path), file.size, tipoDownload(arquivo, extensao));
  }
  return { arquivo: r.arquivo, processamentoId: r.processamentoId, status: r.status, motivo: r.motivo };
}

/**
 * `upload`: the file spooled by the route (path, size, SHA-256) — the API's upload, or the
 * batch the manual import page packed from its parts — or bytes already in memory (tests),
 * spooled here first.
 */
export async function receberUpload(ctx: AppContext, filename: string, input: Spooled | Buffer,
  opts: { uploader?: Uploader | null; limits?: Partial<ArchiveLimits>; tmp?: TempDir } = {}): Promise<{ recibo: Recibo; enfileirados: number }> {
  const tmp = opts.tmp ?? await TempDir.create();
  let source: FileSource | null = null;
  let client: pg.PoolClient | null = null;
  try {
    const upload = Buffer.isBuffer(input) ? await spool((async function* () { yield input; })(), tmp.file('.upload')) : input;
    source = await FileSource.open(upload.path);
    const plan = await planUpload(source, filename, opts.limits);
    // a loose xlsx is checked whole before the transaction (a non-zip is received as is: it ends ERRO)
    if (plan.kind === 'arquivo' && plan.zip) await checkArchive(source, resolveLimits(opts.limits), null);

    client = await ctx.pool.connect();
    await client.query('begin');
    let recibo: Recibo;
    if (plan.kind === 'arquivo') {
      const item = await receberArquivo(ctx, client, nomeEntrada(plan.arquivo), upload, null, opts.uploader);
      recibo = { conjuntoId: null, total: 1, itens: [item] };
    } else {
      const conjuntoId = await xlsConjuntoAbrir(client, { arquivo: nomeEntrada(filename), uploaderId: opts.uploader?.id, uploaderNome: opts.uploader?.nome });
      for (const p of plan.entries) {
        if (!p.processar) {
          await verifyIgnored(source, p.entry);
          await xlsReceberIgnorado(client, conjuntoId, nomeEntrada(p.arquivo), p.motivo);
          continue;
        }
        const path = tmp.file('.entrada');
        try {
          const file = await extractEntryToFile(source, p.entry, path, opts.limits);
          await receberArquivo(ctx, client, nomeEntrada(p.arquivo), file, conjuntoId, opts.uploader);
        } finally {
          await rm(path, { force: true });
        }
      }
      const r = await xlsConjuntoRecebido(client, conjuntoId);
      recibo = { conjuntoId: r.conjuntoId, total: r.total, itens: r.itens };
    }
    await client.query('commit');
    const enfileirados = recibo.itens.filter((i) => i.status === 'ENFILEIRADO' || i.status === 'REPROCESSANDO').length;
    return { recibo, enfileirados };
  } catch (err) {
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
