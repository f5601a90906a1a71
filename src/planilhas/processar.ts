/**
 * Job `xls_processar` {id}: original -> xlsx reader -> COPY into staging -> SQL merge and
 * outcome, data and status committed together. SQL decides every transition, the batch
 * close, the FK retry and whether to alarm; this module only moves bytes and reports.
 */
import type pg from 'pg';
import type { AppContext } from '../context.js';
import type { JobHandler } from '../jobs/runner.js';
import {
  XL_TRANSITORIA, xlsConcluir, xlsDefinirTipo, xlsFalhar, xlsIgnorar, xlsIniciar, xlsMerge, xlsMergeChunk, xlsProgresso, xlsStagingPreparar,
  type Aviso, type Desfecho, type ProcessamentoIniciado, type ResultadoMerge, type StagingTabela,
} from './db.js';
import { reportWarning } from '../integrations/errtracker.js';
import { type RowError, type StagingRow, type TipoPlanilha, WorkbookError } from '../xlsx/index.js';
import { ExecLog } from './execlog.js';
import { IsolatedParse } from './isolated-parse.js';
import { gravarChunks, chunksCopia } from './chunks.js';
import { readOriginalToFile } from './storage.js';
import { ObjectStoreUnavailable } from '../integrations/objstore.js';
import { dbUnavailable, withDbRetry } from '../db/unavailable.js';
import { TempDir } from './temp-file.js';

/**
 * COPYs the reader's rows into their staging tables in chunks of `chunkLinhas` rows, and after
 * each COPY starts `mergeChunk()` without waiting for it: the database merges one chunk while
 * the reader parses the next (chunks.ts). In the service the two halves run in different
 * threads (the parse worker cuts the chunks, the job COPYs them: isolated-parse.ts); this
 * one-thread form is the same contract. Returns the rows copied per table.
 */
export function copyStagingEmChunks(client: pg.PoolClient, tabelas: StagingTabela[], rows: AsyncIterable<StagingRow>,
  chunkLinhas: number, mergeChunk: () => Promise<unknown>): Promise<Map<string, number>> {
  return gravarChunks(client, tabelas, chunksCopia(tabelas, rows, chunkLinhas), mergeChunk);
}

/**
 * The progress report of a run: after each chunk the rows read so far go to SQL
 * (xls_progresso) on a pool connection of their own, in autocommit (the merge transaction
 * commits only at the end). Never waited for by the merge; one report in flight at a time,
 * the latest count wins; a failed report is only logged.
 */
function relatorProgresso(ctx: AppContext, id: string, workerId: string, onError: (err: unknown) => void) {
  let inFlight: Promise<void> | null = null;
  let proximo: number | null = null;
  const enviar = (n: number): void => {
    inFlight = xlsProgresso(ctx.pool, id, workerId, n).then(() => undefined, onError).finally(() => {
      inFlight = null;
      if (proximo !== null) { const m = proximo; proximo = null; enviar(m); }
    });
  };
  return {
    reportar(linhas: number): void { if (inFlight) proximo = linhas; else enviar(linhas); },
    /** Waits for the reports still going (the last count lands while the run is PROCESSANDO). */
    async esvaziar(): Promise<void> { while (inFlight) await inFlight; },
  };
}

/** What the run learnt before it failed: the reader's invalid rows stay on the ERRO. */
interface Leitura { erros: RowError[] }

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The parse worker of one original, with the service's limits. */
export function abrirLeitura(ctx: AppContext, original: Buffer | string, tipo: TipoPlanilha | null): IsolatedParse {
  return new IsolatedParse(original, {
    tipo,
    limits: { ...ctx.config.xls.limits, maxCellChars: ctx.config.xls.maxCellChars, maxBiffBytes: ctx.config.xls.maxBiffBytes },
    chunkLinhas: ctx.config.xls.chunkLinhas,
    heapMb: ctx.config.xls.leituraHeapMb,
    tempoMaxMs: ctx.config.xls.leituraTempoMaxMs,
  });
}

/**
 * The original is opened, detected and read in a worker thread (isolated-parse.ts): a file
 * that kills the parse ends this processing in ERRO (WorkbookError), nothing else.
 */
async function merge(ctx: AppContext, p: ProcessamentoIniciado, workerId: string, log: ExecLog, original: Buffer | string, leitura: Leitura): Promise<Desfecho> {
  const reader = abrirLeitura(ctx, original, p.tipo);
  try {
    return await mergeIsolated(ctx, p, workerId, log, reader, leitura);
  } finally {
    await reader.close();
  }
}

async function mergeIsolated(ctx: AppContext, p: ProcessamentoIniciado, workerId: string, log: ExecLog, reader: IsolatedParse, leitura: Leitura): Promise<Desfecho> {
  const tipo = await reader.tipo();
  log.line(`formato ${reader.formato} (lido pelo conteúdo)`);
  if (!tipo) {
    log.line('tipo não reconhecido: nenhuma assinatura de tipo casou (docs/formatos.md)');
    return xlsIgnorar(ctx.pool, p.id, workerId, 'tipo não reconhecido');
  }
  if (!p.tipo) await xlsDefinirTipo(ctx.pool, p.id, workerId, tipo);
  log.line(`tipo ${tipo}`);
  // the fencing token of this run: the merge entry check and xls_concluir refuse an older run
  const meta = { ...await reader.meta(), execucao: p.execucoes };
  const client = await ctx.pool.connect();
  try {
    await client.query('begin');
    // a worker stopped mid-merge (SIGSTOP, a frozen VM) must not hold the processing's lock
    // and the bi_* tables for ever: Postgres ends its transaction after this idle time
    await client.query(`select set_config('idle_in_transaction_session_timeout', $1, true)`, [`${ctx.config.xls.mergeOciosoMaxMs}ms`]);
    const progresso = relatorProgresso(ctx, p.id, workerId, (err) => log.line(`progresso não registrado: ${errMessage(err)}`));
    const { r } = await mergeNaTransacao(client, p.id, tipo, meta, reader, log, {
      aoChunk: (lidas) => progresso.reportar(lidas),
      // the last count lands while the run is PROCESSANDO; the reader's invalid rows stay on an ERRO
      antesDoFim: async (errors) => { await progresso.esvaziar(); leitura.erros = errors; },
    });
    const d = await xlsConcluir(client, p.id, workerId, { execucao: p.execucoes });
    await client.query('commit');
    reportVehicleDefence(p, r.avisos);
    return d;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The merge of one processing inside the caller's transaction: staging, the reader's chunks
 * COPYed and merged while it reads the next, then xls_merge. Shared by the job (which
 * commits) and the preview (POST /api/xls/simular, which rolls back; meta.simular = true).
 */
export async function mergeNaTransacao(client: pg.PoolClient, id: string, tipo: TipoPlanilha, meta: Record<string, unknown>,
  reader: IsolatedParse, log: ExecLog | null,
  o: { aoChunk?: (linhasAteAgora: number) => void; antesDoFim?: (errors: RowError[]) => Promise<void> } = {}): Promise<{ r: ResultadoMerge; linhasLidas: number; errors: RowError[] }> {
  const tabelas = await xlsStagingPreparar(client, tipo);
  // The readers trim every text cell and give null for an empty one (src/xlsx/cells.ts, every
  // text parser), so the merge need not do it again (docs/xls-merge.md, "staging_aparado").
  meta = { ...meta, staging_aparado: true };
  const started = Date.now();
  let chunks = 0;
  const copied = await gravarChunks(client, tabelas, reader.chunks(tabelas), (lidas) => {
    chunks += 1;
    o.aoChunk?.(lidas);
    return xlsMergeChunk(client, id, meta);
  });
  let total = 0;
  for (const [s, n] of copied) { total += n; log?.line(`staging ${s}: ${n} linhas copiadas`); }
  const errors = reader.errors();
  await o.antesDoFim?.(errors);
  log?.line(`leitura concluída: ${total} linhas em ${chunks} chunks em ${Date.now() - started} ms (gravação dos chunks incluída); ${errors.length} linhas rejeitadas`);
  const merged = Date.now();
  for (const e of errors.slice(0, 50)) log?.line(`rejeitada: ${e.mensagem}`);
  const r = await xlsMerge(client, id, { ...meta, linhas_rejeitadas: errors });
  log?.line(`merge: ${r.linhasEnviadas} enviadas, ${r.linhasEfetivas} gravadas, ${r.linhasRemovidas} removidas (fechamento em ${Date.now() - merged} ms)`);
  for (const a of r.avisos) log?.line(`aviso [${a.categoria}] ${a.motivo} (${a.quantidade})`);
  return { r, linhasLidas: total, errors };
}

/** One warning event per processing with the vehicle-registry reasons (docs/formatos.md, RELATORIO18). */
function reportVehicleDefence(p: ProcessamentoIniciado, avisos: Aviso[]): void {
  const veiculo = avisos.filter((a) => a.categoria === 'veiculo');
  if (veiculo.length === 0) return;
  reportWarning(`defesa do cadastro de veículos: ${veiculo.map((a) => `${a.motivo} (${a.quantidade})`).join('; ')}`,
    { processamentoId: p.id, arquivo: p.arquivo, motivos: veiculo.map((a) => ({ motivo: a.motivo, quantidade: a.quantidade, linhas: a.linhas.slice(0, 20) })) },
    { area: 'xls', tipo: 'defesa_veiculos' });
}

export function planilhasJobHandler(ctx: AppContext): JobHandler {
  return async (job, { workerId, log: jobLog }) => {
    const id = String(job.payload.id ?? '');
    const p = await xlsIniciar(ctx.pool, id, workerId);
    if (!p) return; // not PENDENTE any more: a stale or duplicate wake-up
    const log = new ExecLog(ctx.config.logsDir, p.logArquivo);
    log.line(`início da execução ${p.execucoes} por ${workerId}: ${p.arquivo} (sha256 ${p.checksum})`);
    let d: Desfecho;
    let tmp: TempDir | null = null;
    const leitura: Leitura = { erros: [] };
    try {
      // from the object store the original is streamed to a temporary file, opened by path
      tmp = await TempDir.create('bi-original-');
      const original = await readOriginalToFile(ctx, p, tmp.file('.original'));
      d = await merge(ctx, p, workerId, log, original, leitura);
    } catch (err) {
      // XL415: the file is not a readable spreadsheet (the screens say: save it again from Excel);
      // the object store or the database unreachable is transient: SQL retries it by itself
      const banco = dbUnavailable(err);
      const code = err instanceof WorkbookError ? 'XL415'
        : err instanceof ObjectStoreUnavailable || banco ? XL_TRANSITORIA : (err as { code?: unknown }).code;
      const sqlstate = typeof code === 'string' ? code : null;
      const motivo = banco ? `banco de dados indisponível durante o processamento: ${errMessage(err)}` : errMessage(err);
      log.line(`falha: ${motivo}${sqlstate ? ` [${sqlstate}]` : ''}`);
      // the ERRO is written once the database answers again (a restart, a failover)
      d = await withDbRetry(() => xlsFalhar(ctx.pool, id, workerId, { motivo, sqlstate, linhasRejeitadas: leitura.erros, execucao: p.execucoes }),
        { onRetry: () => jobLog.warn({ processamentoId: id }, 'banco indisponível: nova tentativa de registrar a falha do processamento') });
    } finally {
      await tmp?.remove();
    }
    log.line(`desfecho: ${d.status}${d.motivo ? ` — ${d.motivo}` : ''}${d.alarmar ? ' (alarme)' : ''}${d.conjuntoFechado ? '; conjunto fechado' : ''}`
      + (d.reprocessados.length ? `; reprocessando ${d.reprocessados.join(', ')}` : ''));
    await log.close();
    if (d.alarmar) {
      jobLog.error({ processamentoId: id, arquivo: p.arquivo, status: d.status, motivo: d.motivo }, `processamento de planilha falhou: ${d.motivo ?? 'sem motivo'}`);
    }
  };
}
