/**
 * Thin typed wrappers over the SQL interface of the spreadsheet pipeline (docs/xls-sql.md).
 * One function per SQL function: SQL decides (dedup, transitions, merges, FK retry and
 * alarm policy); these only pass parameters and shape results (camelCase).
 */
import { Readable } from 'node:stream';
import type pg from 'pg';
import * as db from 'zapatos/db';
import { copyByteaFromFile, copyByteaOut } from '../db/bytea-stream.js';

import type { TipoPlanilha } from '../xlsx/types.js';

/** One list of types (docs/formatos.md, detection order): the reader's, checked against app.xls_tipo by test/xls-sql/descricao.test.ts. */

export const STATUS_PROCESSAMENTO = ['PENDENTE', 'PROCESSANDO', 'SUCESSO', 'ERRO', 'IGNORADO'] as const;
export type StatusProcessamento = (typeof STATUS_PROCESSAMENTO)[number];

export type StatusEntrada = 'ENFILEIRADO' | 'REPROCESSANDO' | 'DUPLICADO' | 'IGNORADO';

/** The job kind enqueued by the SQL functions; payload `{ id }` (the processing id). */
export const PLANILHAS_JOB_KIND = 'xls_processar';

/** SQLSTATE of a transient foreign-key failure (META seller missing): pass it to xlsFalhar. */
export const XL_FK_TRANSITORIA = 'XL424';

/** The code passed to xlsFalhar for a transient failure (the object store or the database unreachable): SQL retries it by itself. */
export const XL_TRANSITORIA = 'XL503';

export interface ReciboItem {
  arquivo: string;
  processamentoId: string | null;
  status: StatusEntrada;
  motivo: string | null;
}

export interface Recebimento extends ReciboItem {
  /** key to store the bytes under (null when nothing is to be stored in the object store) */
  objetoChave: string | null;
  /** true: put the bytes at objetoChave before committing the receipt transaction */
  armazenarObjeto: boolean;
}

export interface Recibo {
  conjuntoId: string;
  total: number;
  itens: ReciboItem[];
  /** entries ENFILEIRADO or REPROCESSANDO: > 0 answers 202, else 200 */
  enfileirados: number;
}

export interface ProcessamentoIniciado {
  id: string;
  tipo: TipoPlanilha | null;
  arquivo: string;
  checksum: string;
  recebidoEm: Date;
  conjuntoId: string | null;
  objetoBucket: string | null;
  objetoChave: string | null;
  objetoTamanhoBytes: number | null;
  temArquivoBytes: boolean;
  /** relative to APP_LOGS_DIR */
  logArquivo: string;
  execucoes: number;
}

export interface StagingTabela {
  staging: string;
  /** schema-qualified temp table (pg_temp.xls_stg_<staging>) */
  tabela: string;
  /** COPY column order; the first is `linha` */
  colunas: string[];
}

export interface LinhaAviso { aba: string | null; linha: number; valor: string | null }
export interface Aviso { categoria: string; motivo: string; quantidade: number; linhas: LinhaAviso[] }
export interface LinhaRejeitada { aba: string | null; linha: number; campo: string | null; valor: string | null; mensagem: string }

/** Accepted as input: the reader's RowError (aba optional) / a warning object or plain text. */
export type LinhaRejeitadaEntrada = {
  linha: number; campo?: string | null; valor?: string | null; mensagem?: string | null; aba?: string | null;
  /** Read by the merge only (not stored): the staging table and the row's readable values. */
  staging?: string | null; valores?: Record<string, string | null> | null;
};
export type AvisoEntrada = string | { motivo: string; categoria?: string; quantidade?: number; linhas?: Array<number | Partial<LinhaAviso>> };

export interface ResultadoMerge {
  linhasEnviadas: number;
  linhasEfetivas: number;
  linhasRemovidas: number;
  avisos: Aviso[];
  linhasRejeitadas: LinhaRejeitada[];
  tabelas: Record<string, { enviadas?: number; efetivas: number; removidas?: number }>;
  /** Tables whose removals the mass-deletion guard held; only a preview (p_meta.simular) ever sees a non-empty list. */
  retencao: Retencao[];
}

/** Outcome of a final transition, as SQL decided it. */
export interface Desfecho {
  processamentoId: string;
  /** SUCESSO, IGNORADO, ERRO, or PENDENTE when a first transient FK failure was retried at once */
  status: StatusProcessamento;
  /** send an alarm (bot / error tracker) */
  alarmar: boolean;
  motivo: string | null;
  /** this call closed the processing's batch */
  conjuntoFechado: boolean;
  /** processings re-queued by this call (batch FK retry) */
  reprocessados: string[];
}

export interface Recuperacao {
  orfaos: string[];
  reenfileirados: string[];
  conjuntosFechados: string[];
}

const json = (v: unknown) => db.param(JSON.stringify(v ?? null));

type DesfechoRow = { processamento_id: string; status: StatusProcessamento; alarmar: boolean; motivo: string | null; conjunto_fechado: boolean; reprocessados: string[] };
const toDesfecho = (r: DesfechoRow): Desfecho => ({
  processamentoId: r.processamento_id, status: r.status, alarmar: r.alarmar, motivo: r.motivo,
  conjuntoFechado: r.conjunto_fechado, reprocessados: r.reprocessados ?? [],
});

export async function xlsConjuntoAbrir(q: db.Queryable, o: { arquivo: string | null; uploaderId?: string | null; uploaderNome?: string | null }): Promise<string> {
  const [row] = await db.sql<db.SQL, Array<{ id: string }>>`
    select public.xls_conjunto_abrir(${db.param(o.arquivo)}, ${db.param(o.uploaderId ?? null)}, ${db.param(o.uploaderNome ?? null)}) as id`.run(q);
  return row!.id;
}

/** A file on disk for the legacy column, COPYed into the transaction's temporary table (xlsReceber). */
export interface ArquivoEmDisco { path: string; size: number }

export async function xlsReceber(q: db.Queryable, o: {
  arquivo: string; checksum: string; tamanhoBytes: number;
  /** the bytes, or a file streamed to the server first (then q must be a client inside a transaction) */
  objetoBucket?: string | null; arquivoBytes?: Buffer | ArquivoEmDisco | null; conjuntoId?: string | null;
  uploaderId?: string | null; uploaderNome?: string | null;
  /** The file's format read from its content (xlsx, xls, ods, xlsb): the extension of its object key. */
  extensao?: string | null;
}): Promise<Recebimento> {
  let bytes: db.SQLFragment = db.sql`${db.param(Buffer.isBuffer(o.arquivoBytes) ? o.arquivoBytes : null)}::bytea`;
  if (o.arquivoBytes && !Buffer.isBuffer(o.arquivoBytes)) {
    // never held by the service: the file goes to the server by COPY, SQL reads it from there
    const client = q as pg.PoolClient;
    await client.query('create temp table if not exists xls_entrada_bytes (b bytea) on commit drop');
    await client.query('truncate pg_temp.xls_entrada_bytes');
    await copyByteaFromFile(client, 'pg_temp.xls_entrada_bytes', o.arquivoBytes.path, o.arquivoBytes.size);
    bytes = db.sql`(select b from pg_temp.xls_entrada_bytes)`;
  }
  const [r] = await db.sql<db.SQL, Array<{ arquivo: string; processamento_id: string | null; status: StatusEntrada; motivo: string | null; objeto_chave: string | null; armazenar_objeto: boolean }>>`
    select * from public.xls_receber(${db.param(o.arquivo)}, ${db.param(o.checksum)}, ${db.param(o.tamanhoBytes)}::bigint,
      ${db.param(o.objetoBucket ?? null)}, ${bytes}, ${db.param(o.conjuntoId ?? null)}::uuid,
      ${db.param(o.uploaderId ?? null)}, ${db.param(o.uploaderNome ?? null)}, ${db.param(o.extensao ?? 'xlsx')})`.run(q);
  return {
    arquivo: r!.arquivo, processamentoId: r!.processamento_id, status: r!.status, motivo: r!.motivo,
    objetoChave: r!.objeto_chave, armazenarObjeto: r!.armazenar_objeto,
  };
}

export async function xlsReceberIgnorado(q: db.Queryable, conjuntoId: string, arquivo: string, motivo: string): Promise<ReciboItem> {
  const [r] = await db.sql<db.SQL, Array<{ arquivo: string; processamento_id: null; status: StatusEntrada; motivo: string }>>`
    select * from public.xls_receber_ignorado(${db.param(conjuntoId)}::uuid, ${db.param(arquivo)}, ${db.param(motivo)})`.run(q);
  return { arquivo: r!.arquivo, processamentoId: null, status: r!.status, motivo: r!.motivo };
}

export async function xlsConjuntoRecebido(q: db.Queryable, conjuntoId: string): Promise<Recibo> {
  const rows = await db.sql<db.SQL, Array<{ ordem: number; arquivo: string; processamento_id: string | null; status: StatusEntrada; motivo: string | null }>>`
    select * from public.xls_conjunto_recebido(${db.param(conjuntoId)}::uuid)`.run(q);
  const itens = rows.map((r) => ({ arquivo: r.arquivo, processamentoId: r.processamento_id, status: r.status, motivo: r.motivo }));
  return {
    conjuntoId, total: itens.length, itens,
    enfileirados: itens.filter((i) => i.status === 'ENFILEIRADO' || i.status === 'REPROCESSANDO').length,
  };
}

/** PENDENTE -> PROCESSANDO; null when the processing is not PENDENTE (stale job: nothing to do). */
export async function xlsIniciar(q: db.Queryable, id: string, worker: string): Promise<ProcessamentoIniciado | null> {
  const [r] = await db.sql<db.SQL, Array<{
    id: string; tipo: TipoPlanilha | null; arquivo: string; checksum: string; recebido_em: Date; conjunto_id: string | null;
    objeto_bucket: string | null; objeto_chave: string | null; objeto_tamanho_bytes: number | null; tem_arquivo_bytes: boolean;
    log_arquivo: string; execucoes: number;
  }>>`select * from public.xls_iniciar(${db.param(id)}::uuid, ${db.param(worker)})`.run(q);
  if (!r) return null;
  return {
    id: r.id, tipo: r.tipo, arquivo: r.arquivo, checksum: r.checksum, recebidoEm: r.recebido_em, conjuntoId: r.conjunto_id,
    objetoBucket: r.objeto_bucket, objetoChave: r.objeto_chave, objetoTamanhoBytes: r.objeto_tamanho_bytes,
    temArquivoBytes: r.tem_arquivo_bytes, logArquivo: r.log_arquivo, execucoes: r.execucoes,
  };
}

/**
 * The legacy column (storage modes PSQL / PSQL_OBJSTORE) as a stream of its bytes, never
 * held whole (COPY binary out, on a client of its own released at the end); null when the
 * column is empty.
 */
export async function xlsArquivoBytesStream(pool: pg.Pool, id: string): Promise<Readable | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new Error(`id inválido: ${id}`);
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ tem: boolean }>('select arquivo_bytes is not null as tem from public.xls_processamento where id = $1', [id]);
    if (!rows[0]?.tem) { client.release(); return null; }
  } catch (err) {
    client.release();
    throw err;
  }
  async function* bytes(): AsyncGenerator<Buffer> {
    let done = false;
    try {
      yield* copyByteaOut(client, `select arquivo_bytes from public.xls_processamento where id = '${id}'::uuid`);
      done = true;
    } finally {
      // a COPY failed or left half-read leaves the connection unusable: destroy it
      client.release(done ? undefined : new Error('COPY do arquivo original interrompido'));
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

export async function xlsDefinirTipo(q: db.Queryable, id: string, worker: string, tipo: TipoPlanilha): Promise<void> {
  await db.sql`select public.xls_definir_tipo(${db.param(id)}::uuid, ${db.param(worker)}, ${db.param(tipo)})`.run(q);
}

/** Creates the staging temp tables (ON COMMIT DROP): call inside the merge transaction. */
export async function xlsStagingPreparar(q: db.Queryable, tipo: TipoPlanilha): Promise<StagingTabela[]> {
  return db.sql<db.SQL, StagingTabela[]>`select staging, tabela, colunas from public.xls_staging_preparar(${db.param(tipo)})`.run(q);
}

export async function xlsMerge(q: db.Queryable, id: string, meta: Record<string, unknown> = {}): Promise<ResultadoMerge> {
  const [r] = await db.sql<db.SQL, Array<{ r: {
    linhas_enviadas: number; linhas_efetivas: number; linhas_removidas: number; avisos: Aviso[];
    linhas_rejeitadas: LinhaRejeitada[]; tabelas: ResultadoMerge['tabelas']; retencao?: Retencao[];
  } }>>`select public.xls_merge(${db.param(id)}::uuid, ${json(meta)}::jsonb) as r`.run(q);
  const m = r!.r;
  return {
    linhasEnviadas: m.linhas_enviadas, linhasEfetivas: m.linhas_efetivas, linhasRemovidas: m.linhas_removidas,
    avisos: m.avisos, linhasRejeitadas: m.linhas_rejeitadas, tabelas: m.tabelas, retencao: m.retencao ?? [],
  };
}

/** Merges the rows staged so far as one chunk (same transaction) and empties the staging; returns the rows taken. */
export async function xlsMergeChunk(q: db.Queryable, id: string, meta: Record<string, unknown> = {}): Promise<number> {
  const [r] = await db.sql<db.SQL, Array<{ n: number }>>`select public.xls_merge_chunk(${db.param(id)}::uuid, ${json(meta)}::jsonb) as n`.run(q);
  return r!.n;
}

/** `execucao`: the fencing token (execucoes returned by xlsIniciar); a write of an older run is refused (XL409). */
export async function xlsConcluir(q: db.Queryable, id: string, worker: string,
  o: { linhasRejeitadas?: LinhaRejeitadaEntrada[]; avisos?: AvisoEntrada[]; execucao?: number | null } = {}): Promise<Desfecho> {
  const [r] = await db.sql<db.SQL, DesfechoRow[]>`
    select * from public.xls_concluir(${db.param(id)}::uuid, ${db.param(worker)},
      ${json(o.linhasRejeitadas ?? [])}::jsonb, ${json(o.avisos ?? [])}::jsonb, ${db.param(o.execucao ?? null)}::integer)`.run(q);
  return toDesfecho(r!);
}

export async function xlsIgnorar(q: db.Queryable, id: string, worker: string, motivo: string): Promise<Desfecho> {
  const [r] = await db.sql<db.SQL, DesfechoRow[]>`
    select * from public.xls_ignorar(${db.param(id)}::uuid, ${db.param(worker)}, ${db.param(motivo)})`.run(q);
  return toDesfecho(r!);
}

/** PROCESSANDO -> ERRO; pass the failure's SQLSTATE (err.code) so SQL applies the FK policy. */
/** `execucao`: the fencing token (execucoes returned by xlsIniciar); a write of an older run is refused (XL409). */
export async function xlsFalhar(q: db.Queryable, id: string, worker: string, o: {
  motivo: string; sqlstate?: string | null; linhasRejeitadas?: LinhaRejeitadaEntrada[]; avisos?: AvisoEntrada[]; execucao?: number | null;
}): Promise<Desfecho> {
  const [r] = await db.sql<db.SQL, DesfechoRow[]>`
    select * from public.xls_falhar(${db.param(id)}::uuid, ${db.param(worker)}, ${db.param(o.motivo)}, ${db.param(o.sqlstate ?? null)},
      ${json(o.linhasRejeitadas ?? [])}::jsonb, ${json(o.avisos ?? [])}::jsonb, ${db.param(o.execucao ?? null)}::integer)`.run(q);
  return toDesfecho(r!);
}

/** An upload refused before anything was stored (who, file name, why; never the bytes). */
export async function xlsUploadRecusar(q: db.Queryable, r: {
  origem: 'api' | 'importar'; arquivo: string | null; tamanhoBytes: number | null; uploaderId?: string | null; uploaderNome?: string | null;
  clienteIp: string | null; statusHttp: number; codigo?: string | null; motivo: string;
}): Promise<string> {
  const [x] = await db.sql<db.SQL, Array<{ id: string }>>`
    select public.xls_upload_recusar(${db.param(r.origem)}, ${db.param(r.arquivo)}, ${db.param(r.tamanhoBytes)}::bigint, ${db.param(r.uploaderId ?? null)},
      ${db.param(r.uploaderNome ?? null)}, ${db.param(r.clienteIp)}, ${db.param(r.statusHttp)}::integer, ${db.param(r.codigo ?? null)}, ${db.param(r.motivo)}) as id`.run(q);
  return x!.id;
}

/** Progress of a running processing (rows read so far), on an autocommit connection; false when it is no longer this worker's. */
export async function xlsProgresso(q: db.Queryable, id: string, worker: string, linhas: number): Promise<boolean> {
  const [r] = await db.sql<db.SQL, Array<{ ok: boolean }>>`select public.xls_progresso(${db.param(id)}::uuid, ${db.param(worker)}, ${db.param(linhas)}::integer) as ok`.run(q);
  return r!.ok;
}

export async function xlsReprocessar(q: db.Queryable, id: string): Promise<string[]> {
  const [r] = await db.sql<db.SQL, Array<{ ids: string[] }>>`select public.xls_reprocessar(${db.param(id)}::uuid) as ids`.run(q);
  return r!.ids;
}

export async function xlsReprocessarConjunto(q: db.Queryable, conjuntoId: string): Promise<string[]> {
  const [r] = await db.sql<db.SQL, Array<{ ids: string[] }>>`select public.xls_reprocessar_conjunto(${db.param(conjuntoId)}::uuid) as ids`.run(q);
  return r!.ids;
}

export async function xlsReprocessarErros(q: db.Queryable, tipo: TipoPlanilha | null = null): Promise<string[]> {
  const [r] = await db.sql<db.SQL, Array<{ ids: string[] }>>`select public.xls_reprocessar_erros(${db.param(tipo)}) as ids`.run(q);
  return r!.ids;
}

/** Startup recovery (also run every minute by pg_cron). */
export async function xlsRecuperar(q: db.Queryable): Promise<Recuperacao> {
  const [r] = await db.sql<db.SQL, Array<{ orfaos: string[]; reenfileirados: string[]; conjuntos_fechados: string[] }>>`
    select * from public.xls_recuperar()`.run(q);
  return { orfaos: r!.orfaos, reenfileirados: r!.reenfileirados, conjuntosFechados: r!.conjuntos_fechados };
}

/** A table whose removals the mass-deletion guard held (XL428), or would hold in a preview. */
export interface Retencao { tabela: string; aba: string | null; remover: number; escopo: number; percentual: number }

/** SQLSTATE of a processing held by the mass-deletion guard. */
export const XL_EXCLUSAO_RETIDA = 'XL428';

export type Operacao = 'INSERIDA' | 'ALTERADA' | 'REMOVIDA';
export const OPERACOES: readonly Operacao[] = ['INSERIDA', 'ALTERADA', 'REMOVIDA'];
export interface Alteracao {
  seq: number; tabela: string; operacao: Operacao; chave: Record<string, unknown>;
  antes: Record<string, unknown> | null; depois: Record<string, unknown> | null;
}
export interface PaginaAlteracoes {
  total: number;
  contagens: Record<string, Partial<Record<Operacao, number>>>;
  expiradasEm: string | null;
  itens: Alteracao[];
}

/** One page of a processing's change set (public.xls_alteracoes). */
export async function xlsAlteracoes(q: db.Queryable, id: string, f: { tabela?: string | null; operacao?: Operacao | null; limite: number; deslocamento: number }): Promise<PaginaAlteracoes> {
  const [r] = await db.sql<db.SQL, Array<{ r: PaginaAlteracoes }>>`
    select public.xls_alteracoes(${db.param(id)}::uuid, ${db.param(f.tabela ?? null)}, ${db.param(f.operacao ?? null)},
      ${db.param(f.limite)}::int, ${db.param(f.deslocamento)}::int) as r`.run(q);
  return { ...r!.r, itens: r!.r.itens.map((i) => ({ ...i, seq: Number(i.seq) })) };
}

export interface Desfeito { id: string; desfeitoEm: string; desfeitoPor: string; tabelas: Record<string, { removidas: number; restauradas: number; reinseridas: number }> }

/** Undo of one processing (public.xls_desfazer); XL409 with detail ja_desfeito / expirado / em_andamento / sem_alteracoes / conflito. */
export async function xlsDesfazer(q: db.Queryable, id: string, por: string): Promise<Desfeito> {
  const [r] = await db.sql<db.SQL, Array<{ r: Desfeito }>>`select public.xls_desfazer(${db.param(id)}::uuid, ${db.param(por)}) as r`.run(q);
  return r!.r;
}

/** "Aplicar mesmo assim": approves the held removals and reprocesses (public.xls_aprovar_exclusoes). */
export async function xlsAprovarExclusoes(q: db.Queryable, id: string, por: string): Promise<string[]> {
  const [r] = await db.sql<db.SQL, Array<{ ids: string[] }>>`select public.xls_aprovar_exclusoes(${db.param(id)}::uuid, ${db.param(por)}) as ids`.run(q);
  return r!.ids;
}

export interface ResumoTabela {
  inseridas: number; alteradas: number; removidas: number;
  exemplos: Record<Operacao, Array<{ chave: Record<string, unknown>; antes?: Record<string, unknown>; depois?: Record<string, unknown> }>>;
}

/** Preview: a processing opened inside the caller's transaction, which must roll back (public.xls_simular_abrir). */
export async function xlsSimularAbrir(q: db.Queryable, o: { arquivo: string; checksum: string; tipo: TipoPlanilha }): Promise<string> {
  const [r] = await db.sql<db.SQL, Array<{ id: string }>>`
    select public.xls_simular_abrir(${db.param(o.arquivo)}, ${db.param(o.checksum)}, ${db.param(o.tipo)}) as id`.run(q);
  return r!.id;
}

/** Preview: why a send of this content would be DUPLICADO now (public.xls_simular_duplicado), or null. */
export async function xlsSimularDuplicado(q: db.Queryable, checksum: string): Promise<string | null> {
  const [r] = await db.sql<db.SQL, Array<{ motivo: string | null }>>`
    select public.xls_simular_duplicado(${db.param(checksum)}) as motivo`.run(q);
  return r?.motivo ?? null;
}

/** Preview: what the processing changed so far in this transaction, per table, with examples. */
export async function xlsSimularResumo(q: db.Queryable, id: string, exemplos = 20): Promise<Record<string, ResumoTabela>> {
  const [r] = await db.sql<db.SQL, Array<{ r: Record<string, ResumoTabela> }>>`
    select public.xls_simular_resumo(${db.param(id)}::uuid, ${db.param(exemplos)}::int) as r`.run(q);
  return r!.r;
}
