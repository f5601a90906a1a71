/**
 * Preview of an upload (POST /api/xls/simular): the same input, limits and refusals as the
 * receipt (recebimento.ts), then every spreadsheet is parsed in the isolated worker and merged
 * exactly as the job would, inside ONE transaction that is rolled back: what it would
 * insert, change and remove is read from the change set the merge records
 * (public.xls_simular_resumo). Nothing is stored: no processing, no object, no batch.
 * The entries of a batch are applied in the batch's order of precedence (the master report
 * first), each behind a savepoint, so a META sees the sellers its batch's RELATORIO18 brings.
 */
import { rm } from 'node:fs/promises';
import type pg from 'pg';
import type { AppContext } from '../context.js';
import { HttpProblem } from '../errors.js';
import { ArchiveError, type ArchiveLimits, WorkbookError } from '../xlsx/index.js';
import { FileSource } from '../xlsx/source.js';
import { resolveLimits } from '../xlsx/limits.js';
import type { TipoPlanilha } from '../xlsx/types.js';
import { type TempFile, type TempDir } from './temp-file.js';
import { checkArchive, extractEntryToFile, planUpload } from './upload.js';
import { limparNome } from './nomes.js';
import { abrirLeitura, mergeNaTransacao } from './processar.js';
import { type LinhaRejeitada, type Retencao, type ResumoTabela, xlsSimularAbrir, xlsSimularDuplicado, xlsSimularResumo } from './db.js';

export interface SimulacaoArquivo {
  arquivo: string;
  /** SIMULADO: it would be imported (see tabelas); RETIDO: the mass-deletion guard would hold it; ERRO / IGNORADO as a send would end;
   *  DUPLICADO: a send would store nothing (the same content already received, or earlier in this upload), so it is not read. */
  status: 'SIMULADO' | 'RETIDO' | 'ERRO' | 'IGNORADO' | 'DUPLICADO';
  tipo: TipoPlanilha | null;
  /** The period or position the file carries, when its type has one. */
  periodoInicio: string | null;
  periodoFim: string | null;
  posicao: string | null;
  linhasLidas: number;
  linhasRejeitadas: LinhaRejeitada[];
  tabelas: Record<string, ResumoTabela>;
  retencao: Retencao[];
  motivo: string | null;
}

export interface Simulacao { total: number; arquivos: SimulacaoArquivo[] }

interface Entrada { arquivo: string; path: string | null; ignorado: string | null; tipo: TipoPlanilha | null; checksum: string }

const vazio = (arquivo: string, status: SimulacaoArquivo['status'], motivo: string | null, tipo: TipoPlanilha | null = null): SimulacaoArquivo => ({
  arquivo, status, tipo, periodoInicio: null, periodoFim: null, posicao: null, linhasLidas: 0, linhasRejeitadas: [], tabelas: {}, retencao: [], motivo,
});

const texto = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export async function simularUpload(ctx: AppContext, filename: string, upload: TempFile,
  opts: { limits?: Partial<ArchiveLimits>; tmp: TempDir }): Promise<Simulacao> {
  const source = await FileSource.open(upload.path);
  const entradas: Entrada[] = [];
  try {
    const plan = await planUpload(source, filename, opts.limits);
    if (plan.kind === 'arquivo') {
      if (plan.zip) await checkArchive(source, resolveLimits(opts.limits), null);
      entradas.push({ arquivo: limparNome(plan.arquivo) || '(sem nome)', path: upload.path, ignorado: null, tipo: null, checksum: upload.sha256 });
    } else {
      for (const p of plan.entries) {
        const arquivo = limparNome(p.arquivo) || '(sem nome)';
        if (!p.processar) { entradas.push({ arquivo, path: null, ignorado: p.motivo, tipo: null, checksum: '' }); continue; }
        const file = await extractEntryToFile(source, p.entry, opts.tmp.file('.entrada'), opts.limits);
        entradas.push({ arquivo, path: file.path, ignorado: null, tipo: null, checksum: file.sha256 });
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw new HttpProblem(err.status, err.status === 413 ? 'Conteúdo grande demais' : 'Arquivo recusado', err.message, err.code);
    throw err;
  } finally {
    await source.close();
  }

  const resultados = new Map<Entrada, SimulacaoArquivo>();
  // a send stores nothing for content already received (public.xls_receber: DUPLICADO), nor for
  // an entry that repeats an earlier one of the same batch: neither is read
  const vistos = new Map<string, string>();
  for (const e of entradas) {
    if (e.ignorado !== null || !e.path) continue;
    const anterior = vistos.get(e.checksum);
    const motivo = anterior !== undefined
      ? `arquivo repetido neste envio: mesmo conteúdo de '${anterior}' (um envio o receberia uma vez só)`
      : await xlsSimularDuplicado(ctx.pool, e.checksum);
    if (motivo !== null) resultados.set(e, vazio(e.arquivo, 'DUPLICADO', motivo));
    else vistos.set(e.checksum, e.arquivo);
  }
  // first pass: the type of each (an unreadable file ends here, as its processing would)
  for (const e of entradas) {
    if (resultados.has(e)) continue;
    if (e.ignorado !== null || !e.path) { resultados.set(e, vazio(e.arquivo, 'IGNORADO', e.ignorado)); continue; }
    const reader = abrirLeitura(ctx, e.path, null);
    try {
      e.tipo = await reader.tipo();
      if (!e.tipo) resultados.set(e, vazio(e.arquivo, 'IGNORADO', 'tipo não reconhecido'));
    } catch (err) {
      resultados.set(e, vazio(e.arquivo, 'ERRO', err instanceof Error ? err.message : String(err)));
    } finally {
      await reader.close();
    }
  }

  const lidas = entradas.filter((e) => !resultados.has(e));
  if (lidas.length > 0) {
    // the order of precedence is the database's (the master report first, public.xls_tipo_mestre)
    const aSimular = (await ctx.pool.query<{ n: number }>(
      'select u.n::integer as n from unnest($1::text[]) with ordinality u (tipo, n) order by public.xls_tipo_mestre(u.tipo) desc, u.n',
      [lidas.map((e) => e.tipo)])).rows.map((r) => lidas[r.n - 1]!);
    const client = await ctx.pool.connect();
    try {
      await client.query('begin');
      for (const e of aSimular) resultados.set(e, await simularArquivo(ctx, client, e));
    } finally {
      await client.query('rollback').catch(() => undefined);
      client.release();
    }
  }
  for (const e of entradas) if (e.path && e.path !== upload.path) await rm(e.path, { force: true });
  return { total: entradas.length, arquivos: entradas.map((e) => resultados.get(e)!) };
}

/** One file, behind a savepoint of the preview's transaction. */
async function simularArquivo(ctx: AppContext, client: pg.PoolClient, e: Entrada): Promise<SimulacaoArquivo> {
  const reader = abrirLeitura(ctx, e.path!, e.tipo);
  await client.query('savepoint simular');
  try {
    await reader.tipo(); // the worker answers in order: type, parameters, chunks
    const meta: Record<string, unknown> = { ...(await reader.meta()), simular: true };
    const id = await xlsSimularAbrir(client, { arquivo: e.arquivo, checksum: e.checksum, tipo: e.tipo! });
    const { r, linhasLidas } = await mergeNaTransacao(client, id, e.tipo!, meta, reader, null);
    const tabelas = await xlsSimularResumo(client, id);
    await client.query('release savepoint simular');
    return {
      arquivo: e.arquivo, status: r.retencao.length > 0 ? 'RETIDO' : 'SIMULADO', tipo: e.tipo,
      periodoInicio: texto(meta.periodo_inicio), periodoFim: texto(meta.periodo_fim), posicao: texto(meta.posicao),
      linhasLidas, linhasRejeitadas: r.linhasRejeitadas, tabelas, retencao: r.retencao,
      motivo: r.retencao.length > 0 ? 'removeria linhas demais: a importação ficaria retida até alguém aprovar' : null,
    };
  } catch (err) {
    await client.query('rollback to savepoint simular');
    const code = (err as { code?: unknown }).code;
    if (err instanceof WorkbookError || (typeof code === 'string' && /^XL/.test(code))) {
      const linhasRejeitadas = reader.errors().map((x) => ({ aba: x.aba ?? null, linha: x.linha, campo: x.campo, valor: x.valor, mensagem: x.mensagem }));
      return { ...vazio(e.arquivo, 'ERRO', err instanceof Error ? err.message : String(err), e.tipo), linhasRejeitadas };
    }
    throw err;
  } finally {
    await reader.close();
  }
}
