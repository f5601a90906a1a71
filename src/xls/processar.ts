/**
 * Job `xls_processar` {id}: original -> xlsx reader -> COPY into staging -> SQL merge and
 * outcome, data and status committed together. SQL decides every transition, the batch
 * close, the FK retry and whether to alarm; this module only moves bytes and reports.
 */
import type pg from 'pg';
import type { AppContext } from '../context.js';
import type { JobHandler } from '../jobs/runner.js';
import { CopyBuffer, copyLines, copyText } from '../db/copy.js';
import {
  xlsConcluir, xlsDefinirTipo, xlsFalhar, xlsIgnorar, xlsIniciar, xlsMerge, xlsMergeChunk, xlsStagingPreparar,
  type Aviso, type Desfecho, type ProcessamentoIniciado, type StagingTabela,
} from '../db/xls.js';
import { reportWarning } from '../integrations/errtracker.js';
import { detectType, openWorkbook, readRows, type StagingRow } from '../xlsx/index.js';
import { ExecLog } from './execlog.js';
import { readOriginal } from './storage.js';

/**
 * COPYs the reader's rows into their staging tables in chunks of `chunkLinhas` rows, and after
 * each COPY starts `mergeChunk()` without waiting for it: the database merges one chunk while
 * the reader parses the next. Before the next COPY the previous merge is awaited (one query
 * at a time on the connection; one chunk of COPY text held, outside the JS heap). Readers emit a
 * tab's rows together, so a chunk never mixes staging tables. The first chunk is a fifth of the
 * others, so that the database starts merging sooner. Returns the rows copied per table.
 */
export async function copyStagingEmChunks(client: pg.PoolClient, tabelas: StagingTabela[], rows: AsyncIterable<StagingRow>,
  chunkLinhas: number, mergeChunk: () => Promise<unknown>): Promise<Map<string, number>> {
  const byStaging = new Map(tabelas.map((t) => [t.staging, { ...t, campos: t.colunas.filter((c) => c !== 'linha') }]));
  if ([...byStaging.values()].some((t) => t.colunas[0] !== 'linha')) throw new Error('staging: a primeira coluna deve ser linha');
  const copied = new Map<string, number>();
  let pending: Promise<unknown> | null = null;
  let current = null as (StagingTabela & { campos: string[] }) | null;
  const lot = new CopyBuffer();
  let inLot = 0;

  async function flush(): Promise<void> {
    const n = inLot;
    inLot = 0;
    const target = current;
    if (n === 0 || !target) return;
    if (pending) await pending;
    pending = null;
    await copyLines(client, target.tabela, target.colunas, lot.bytes());
    lot.reset(); // the COPY has completed: the server has every byte
    copied.set(target.staging, (copied.get(target.staging) ?? 0) + n);
    const p = mergeChunk();
    p.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    pending = p;
  }

  for await (const row of rows) {
    if (current?.staging !== row.staging) {
      await flush();
      current = byStaging.get(row.staging) ?? null;
      if (!current) throw new Error(`o leitor produziu linhas para a tabela de staging desconhecida '${row.staging}'`);
    }
    const campos = current.campos;
    const values = row.values;
    let line = String(row.linha);
    for (let i = 0; i < campos.length; i++) line += '\t' + copyText(values[campos[i]!]);
    lot.push(line + '\n');
    // the first chunk is a fifth of the others: the database starts merging sooner
    if (++inLot >= (copied.size === 0 && pending === null ? Math.max(1, Math.ceil(chunkLinhas / 5)) : chunkLinhas)) await flush();
  }
  await flush();
  if (pending) await pending;
  return copied;
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function merge(ctx: AppContext, p: ProcessamentoIniciado, workerId: string, log: ExecLog, bytes: Buffer): Promise<Desfecho> {
  const wb = await openWorkbook(bytes);
  const tipo = p.tipo ?? (await detectType(wb));
  if (!tipo) {
    log.line('tipo não reconhecido: nenhuma assinatura de formats.md casou');
    return xlsIgnorar(ctx.pool, p.id, workerId, 'tipo não reconhecido');
  }
  if (!p.tipo) await xlsDefinirTipo(ctx.pool, p.id, workerId, tipo);
  log.line(`tipo ${tipo}`);
  const reader = readRows(wb, tipo);
  const meta = await reader.meta();
  const client = await ctx.pool.connect();
  try {
    await client.query('begin');
    const tabelas = await xlsStagingPreparar(client, tipo);
    const started = Date.now();
    let chunks = 0;
    const copied = await copyStagingEmChunks(client, tabelas, reader.rows(), ctx.config.xls.chunkLinhas, () => {
      chunks += 1;
      return xlsMergeChunk(client, p.id, meta);
    });
    let total = 0;
    for (const [s, n] of copied) { total += n; log.line(`staging ${s}: ${n} linhas copiadas`); }
    const errors = reader.errors();
    log.line(`leitura concluída: ${total} linhas em ${chunks} chunks em ${Date.now() - started} ms (gravação dos chunks incluída); ${errors.length} linhas rejeitadas`);
    const merged = Date.now();
    for (const e of errors.slice(0, 50)) log.line(`rejeitada: ${e.mensagem}`);
    const r = await xlsMerge(client, p.id, { ...meta, linhas_rejeitadas: errors });
    log.line(`merge: ${r.linhasEnviadas} enviadas, ${r.linhasEfetivas} gravadas, ${r.linhasRemovidas} removidas (fechamento em ${Date.now() - merged} ms)`);
    for (const a of r.avisos) log.line(`aviso [${a.categoria}] ${a.motivo} (${a.quantidade})`);
    const d = await xlsConcluir(client, p.id, workerId);
    await client.query('commit');
    reportVehicleDefence(p, r.avisos);
    return d;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
    await reader.close().catch(() => undefined);
  }
}

/** One warning event per processing with the vehicle-registry reasons (formats.md). */
function reportVehicleDefence(p: ProcessamentoIniciado, avisos: Aviso[]): void {
  const veiculo = avisos.filter((a) => a.categoria === 'veiculo');
  if (veiculo.length === 0) return;
  reportWarning(`defesa do cadastro de veículos: ${veiculo.map((a) => `${a.motivo} (${a.quantidade})`).join('; ')}`,
    { processamentoId: p.id, arquivo: p.arquivo, motivos: veiculo.map((a) => ({ motivo: a.motivo, quantidade: a.quantidade, linhas: a.linhas.slice(0, 20) })) },
    { area: 'xls', tipo: 'defesa_veiculos' });
}

export function xlsProcessarHandler(ctx: AppContext): JobHandler {
  return async (job, { workerId, log: jobLog }) => {
    const id = String(job.payload.id ?? '');
    const p = await xlsIniciar(ctx.pool, id, workerId);
    if (!p) return; // not PENDENTE any more: a stale or duplicate wake-up
    const log = new ExecLog(ctx.config.logsDir, p.logArquivo);
    log.line(`início da execução ${p.execucoes} por ${workerId}: ${p.arquivo} (sha256 ${p.checksum})`);
    let d: Desfecho;
    try {
      const bytes = await readOriginal(ctx, p);
      d = await merge(ctx, p, workerId, log, bytes);
    } catch (err) {
      const sqlstate = (err as { code?: unknown }).code;
      log.line(`falha: ${errMessage(err)}${typeof sqlstate === 'string' ? ` [${sqlstate}]` : ''}`);
      d = await xlsFalhar(ctx.pool, id, workerId, { motivo: errMessage(err), sqlstate: typeof sqlstate === 'string' ? sqlstate : null });
    }
    log.line(`desfecho: ${d.status}${d.motivo ? ` — ${d.motivo}` : ''}${d.alarmar ? ' (alarme)' : ''}${d.conjuntoFechado ? '; lote fechado' : ''}`
      + (d.reprocessados.length ? `; reprocessando ${d.reprocessados.join(', ')}` : ''));
    await log.close();
    if (d.alarmar) {
      jobLog.error({ processamentoId: id, arquivo: p.arquivo, status: d.status, motivo: d.motivo }, `processamento de planilha falhou: ${d.motivo ?? 'sem motivo'}`);
    }
  };
}
