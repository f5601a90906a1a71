/**
 * Job `xls_processar` {id}: original -> xlsx reader -> COPY into staging -> SQL merge and
 * outcome, data and status committed together. SQL decides every transition, the batch
 * close, the FK retry and whether to alarm; this module only moves bytes and reports.
 */
import type pg from 'pg';
import type { AppContext } from '../context.js';
import type { JobHandler } from '../jobs/runner.js';
import { copyRows } from '../db/copy.js';
import {
  xlsConcluir, xlsDefinirTipo, xlsFalhar, xlsIgnorar, xlsIniciar, xlsMerge, xlsStagingPreparar,
  type Aviso, type Desfecho, type ProcessamentoIniciado, type StagingTabela,
} from '../db/xls.js';
import { reportWarning } from '../integrations/errtracker.js';
import { detectType, openWorkbook, readRows, type StagingRow } from '../xlsx/index.js';
import { ExecLog } from './execlog.js';
import { readOriginal } from './storage.js';

/**
 * Splits one stream of rows tagged by staging table into consecutive runs, COPYing each run
 * into its table. Readers emit a tab's rows together (tab 20, then tab 30), so each staging
 * table gets one COPY; a table seen again gets a second COPY.
 */
export async function copyStaging(client: pg.PoolClient, tabelas: StagingTabela[], rows: AsyncIterable<StagingRow>,
  onTable: (staging: string, n: number) => void = () => undefined): Promise<number> {
  const byStaging = new Map(tabelas.map((t) => [t.staging, t]));
  const it = rows[Symbol.asyncIterator]();
  let next = await it.next();
  let total = 0;
  while (!next.done) {
    const staging = next.value.staging;
    const tabela = byStaging.get(staging);
    if (!tabela) throw new Error(`o leitor produziu linhas para a tabela de staging desconhecida '${staging}'`);
    const cols = tabela.colunas;
    async function* run(): AsyncGenerator<Array<string | null>> {
      while (!next.done && next.value.staging === staging) {
        const row = next.value;
        yield cols.map((c) => (c === 'linha' ? String(row.linha) : row.values[c] ?? null));
        next = await it.next();
      }
    }
    const n = await copyRows(client, tabela.tabela, cols, run());
    total += n;
    onTable(staging, n);
  }
  return total;
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
    const total = await copyStaging(client, tabelas, reader.rows(), (s, n) => log.line(`staging ${s}: ${n} linhas copiadas`));
    const errors = reader.errors();
    log.line(`leitura concluída: ${total} linhas em ${Date.now() - started} ms; ${errors.length} linhas rejeitadas`);
    for (const e of errors.slice(0, 50)) log.line(`rejeitada: ${e.mensagem}`);
    const r = await xlsMerge(client, p.id, { ...meta, linhas_rejeitadas: errors });
    log.line(`merge: ${r.linhasEnviadas} enviadas, ${r.linhasEfetivas} gravadas, ${r.linhasRemovidas} removidas`);
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
