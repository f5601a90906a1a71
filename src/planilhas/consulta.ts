/**
 * Reads of the processing report shared by the API (/api/comercial/processamentos*) and
 * the screens (/processamentos*): the list (fixed order recebido_em desc, id desc; one
 * index per filter combination, `xls_processamento_*_idx` in db/README.md) and
 * the detail. No file bytes anywhere.
 */
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';
import { HttpProblem } from '../errors.js';
import type { PageRequest } from '../web/page.js';
import type { Aviso, LinhaRejeitada, StatusProcessamento } from './db.js';
import type { TipoPlanilha } from '../xlsx/types.js';

type Col = s.xls_processamento.Column;
export const LIST_COLUMNS = [
  'id', 'status', 'tipo', 'arquivo', 'checksum', 'recebido_em', 'iniciado_em', 'finalizado_em', 'conjunto_id',
  'linhas_enviadas', 'linhas_efetivas', 'linhas_removidas', 'erro_mensagem',
] satisfies Col[];

const DETAIL_COLUMNS = [
  ...LIST_COLUMNS, 'objeto_bucket', 'objeto_chave', 'objeto_tamanho_bytes', 'log_arquivo', 'avisos', 'linhas_rejeitadas',
  'uploader_id', 'uploader_nome', 'desfeito_em', 'desfeito_por', 'exclusao_retida', 'exclusoes_aprovadas_em',
  'exclusoes_aprovadas_por', 'alteracoes_expiradas_em',
] satisfies Col[];

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

type ListRow = Pick<s.xls_processamento.JSONSelectable, (typeof LIST_COLUMNS)[number]>;

export function toItem(r: ListRow) {
  return {
    id: r.id,
    status: r.status,
    tipo: r.tipo,
    arquivo: r.arquivo,
    checksum: r.checksum,
    recebidoEm: iso(r.recebido_em)!,
    iniciadoEm: iso(r.iniciado_em),
    finalizadoEm: iso(r.finalizado_em),
    conjuntoId: r.conjunto_id,
    linhasEnviadas: r.linhas_enviadas,
    linhasEfetivas: r.linhas_efetivas,
    linhasRemovidas: r.linhas_removidas,
    erroMensagem: r.erro_mensagem,
  };
}
export type ProcessamentoItem = ReturnType<typeof toItem>;

export interface FiltrosLista {
  tipo?: TipoPlanilha | '' | null;
  status?: StatusProcessamento | '' | null;
  /** part of the file name (case-insensitive) */
  arquivo?: string | null;
  /** received on or after this day / up to this day inclusive (yyyy-mm-dd, America/Sao_Paulo) */
  de?: string | null;
  ate?: string | null;
  /**
   * The screens' ERRO: also the processings sent back to the queue from ERRO that have not
   * ended yet (erro_anterior), so a "Reprocessar todos os erros" does not empty the list.
   */
  erroComReenviados?: boolean;
}

const escLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function whereOf(f: FiltrosLista): db.SQLFragment<boolean | null, never> | s.xls_processamento.Whereable {
  const conds: db.SQLFragment[] = [];
  if (f.tipo) conds.push(db.sql<s.xls_processamento.SQL>`${'tipo'} = ${db.param(f.tipo)}`);
  if (f.status === 'ERRO' && f.erroComReenviados) {
    // the predicate of the partial indexes xls_processamento_erros_idx / _erros_tipo_idx, literally
    conds.push(db.sql<s.xls_processamento.SQL>`(${'status'} = 'ERRO' or (${'status'} in ('PENDENTE', 'PROCESSANDO') and ${'erro_anterior'} is not null))`);
  } else if (f.status) {
    conds.push(db.sql<s.xls_processamento.SQL>`${'status'} = ${db.param(f.status)}`);
  }
  if (f.arquivo) conds.push(db.sql<s.xls_processamento.SQL>`${'arquivo'} ilike ${db.param(`%${escLike(f.arquivo)}%`)}`);
  if (f.de) conds.push(db.sql<s.xls_processamento.SQL>`${'recebido_em'} >= (${db.param(f.de)}::date::timestamp at time zone 'America/Sao_Paulo')`);
  if (f.ate) conds.push(db.sql<s.xls_processamento.SQL>`${'recebido_em'} < ((${db.param(f.ate)}::date + 1)::timestamp at time zone 'America/Sao_Paulo')`);
  if (conds.length === 0) return {};
  return db.sql`${db.mapWithSeparator(conds, db.sql` and `, (c) => c)}`;
}

/** What the screens add to a list row: the type's staff name, the reason (failure or warnings). */
const LIST_EXTRAS = {
  tipo_nome: db.sql<s.xls_processamento.SQL, string | null>`public.xls_tipo_nome(${'tipo'})`,
  avisos_n: db.sql<s.xls_processamento.SQL, number>`jsonb_array_length(${'avisos'})`,
  aviso_primeiro: db.sql<s.xls_processamento.SQL, string | null>`${'avisos'} -> 0 ->> 'motivo'`,
  erro_anterior: db.sql<s.xls_processamento.SQL, string | null>`${'erro_anterior'}`,
  falha: db.sql<s.xls_processamento.SQL, Falha | null>`(select to_jsonb(x) from public.xls_falha_explicar(${'status'}, coalesce(${'erro_mensagem'}, ${'erro_anterior'}), ${'erro_codigo'}, ${'linhas_rejeitadas'}) x)`,
  linhas_lidas: db.sql<s.xls_processamento.SQL, number | null>`(select g.linhas_lidas from public.xls_processamento_progresso g where g.processamento_id = ${'id'} and g.execucao = ${'execucoes'} and ${'status'} = 'PROCESSANDO')`,
  falha_anterior: db.sql<s.xls_processamento.SQL, Falha | null>`(select to_jsonb(x) from public.xls_falha_explicar('ERRO', ${'erro_anterior'}, null, '[]') x where ${'erro_anterior'} is not null and ${'status'} in ('PENDENTE', 'PROCESSANDO'))`,
};

/** The explanation of processing `p` (alias p) as jsonb, for the raw queries of the screens. */
export const FALHA_DE_P = db.raw('(select to_jsonb(x) from public.xls_falha_explicar(p.status, p.erro_mensagem, p.erro_codigo, p.linhas_rejeitadas) x)');

/** A failure as staff read it (public.xls_falha_explicar). */
export interface Falha { tipo: 'cadastro' | 'linhas' | 'ilegivel' | 'conteudo' | 'tecnica' | 'ignorado'; resumo: string; proximo_passo: string }

/** The page query (exported so that the plan test explains exactly this SQL). */
export function listaQuery(f: FiltrosLista, page: Pick<PageRequest, 'size' | 'offset'>) {
  return db.select('xls_processamento', whereOf(f), {
    columns: LIST_COLUMNS,
    extras: LIST_EXTRAS,
    order: [{ by: 'recebido_em', direction: 'DESC' }, { by: 'id', direction: 'DESC' }],
    limit: page.size, offset: page.offset,
  });
}

/** The count of the list (exported for the plan test too). */
export function countQuery(f: FiltrosLista) {
  return db.count('xls_processamento', whereOf(f));
}

export async function listarProcessamentos(q: db.Queryable, f: FiltrosLista, page: PageRequest): Promise<{ itens: ProcessamentoItem[]; total: number }> {
  const [rows, total] = await Promise.all([listaQuery(f, page).run(q), countQuery(f).run(q)]);
  return { itens: rows.map(toItem), total: Number(total) };
}

/** The screens' list: each row with the type's staff name and why it failed or warned. */
export async function listarParaTela(q: db.Queryable, f: FiltrosLista, page: PageRequest) {
  const [rows, total] = await Promise.all([listaQuery({ ...f, erroComReenviados: true }, page).run(q),
    countQuery({ ...f, erroComReenviados: true }).run(q)]);
  return {
    itens: rows.map((r) => ({
      ...toItem(r), tipoNome: r.tipo_nome, avisosN: r.avisos_n, avisoPrimeiro: r.aviso_primeiro,
      erroAnterior: r.erro_anterior, falha: r.falha ?? r.falha_anterior, linhasLidas: r.linhas_lidas,
    })),
    total: Number(total),
  };
}
export type ProcessamentoTela = Awaited<ReturnType<typeof listarParaTela>>['itens'][number];

export function naoEncontrado(id: string): HttpProblem {
  return new HttpProblem(404, 'Não encontrado', `processamento ${id} não existe`, 'XL404');
}

export async function detalheProcessamento(q: db.Queryable, id: string) {
  const r = await db.selectOne('xls_processamento', { id }, { columns: DETAIL_COLUMNS }).run(q);
  if (!r) throw naoEncontrado(id);
  let conjunto = null;
  if (r.conjunto_id) {
    const [linha, itens] = await Promise.all([
      db.selectOne('xls_conjunto', { id: r.conjunto_id }, { columns: ['id', 'total'] }).run(q),
      db.select('xls_conjunto_item', { conjunto_id: r.conjunto_id }, {
        columns: ['arquivo', 'processamento_id', 'status', 'motivo'], order: { by: 'ordem', direction: 'ASC' },
      }).run(q),
    ]);
    if (linha) {
      conjunto = {
        id: linha.id, total: linha.total,
        itens: itens.map((i) => ({ arquivo: i.arquivo, processamentoId: i.processamento_id, status: i.status, motivo: i.motivo })),
      };
    }
  }
  return {
    ...toItem(r),
    objetoBucket: r.objeto_bucket,
    objetoChave: r.objeto_chave,
    objetoTamanhoBytes: r.objeto_tamanho_bytes === null ? null : Number(r.objeto_tamanho_bytes),
    logArquivo: r.log_arquivo,
    avisos: r.avisos,
    linhasRejeitadas: r.linhas_rejeitadas,
    uploader: r.uploader_id === null && r.uploader_nome === null ? null : { id: r.uploader_id, nome: r.uploader_nome },
    conjunto,
    desfeitoEm: iso(r.desfeito_em),
    desfeitoPor: r.desfeito_por,
    exclusaoRetida: r.exclusao_retida,
    exclusoesAprovadasEm: iso(r.exclusoes_aprovadas_em),
    exclusoesAprovadasPor: r.exclusoes_aprovadas_por,
    alteracoesExpiradasEm: iso(r.alteracoes_expiradas_em),
  };
}
export type ProcessamentoDetalhe = Awaited<ReturnType<typeof detalheProcessamento>>;

/** The execution log from disk; null when the processing has none yet. */
export async function lerLog(logsDir: string, id: string, logArquivo: string): Promise<string | null> {
  const base = resolve(logsDir);
  const path = resolve(base, logArquivo);
  if (!path.startsWith(base + sep)) throw new HttpProblem(404, 'Não encontrado', `log do processamento ${id} fora do diretório de logs`);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Progress of a running processing (rows read in this execution, reported per chunk). */
export interface Progresso { linhasLidas: number; atualizadoEm: string }

/** The FLUXO_PAGAR_RECEBER totals of a processing (public.xls_fluxo_resumo): one row per PAGAR / RECEBER. */
export async function resumoFluxo(q: db.Queryable, id: string): Promise<{ posicao: string | null; atual: boolean | null; totais: Array<{ tipo: string; total: string; vencido: string; titulos: number; titulosVencidos: number }> }> {
  const rows = await db.sql<db.SQL, Array<{ tipo: string; posicao: string; atual: boolean; total: string; vencido: string; titulos: number; titulos_vencidos: number }>>`
    select tipo, posicao::text as posicao, atual, total::text as total, vencido::text as vencido, titulos, titulos_vencidos from public.xls_fluxo_resumo(${db.param(id)}::uuid)`.run(q);
  return {
    posicao: rows[0]?.posicao ?? null,
    atual: rows.length ? rows.some((r) => r.atual) : null,
    totais: rows.map((r) => ({ tipo: r.tipo, total: r.total, vencido: r.vencido, titulos: r.titulos, titulosVencidos: r.titulos_vencidos })),
  };
}

/** One entry of a batch with the outcome of its processing (not the arrival status). */
export interface EntradaConjunto {
  ordem: number;
  arquivo: string;
  entrada: string;
  motivo: string | null;
  processamentoId: string | null;
  status: string | null;
  tipoNome: string | null;
  avisosN: number;
  aguardaMestre: boolean;
  falha: Falha | null;
}

/** A batch (zip or import) with each entry's outcome. */
export async function conjuntoTela(q: db.Queryable, conjuntoId: string) {
  const c = await db.selectOne('xls_conjunto', { id: conjuntoId }, {
    columns: ['id', 'arquivo', 'total', 'recebido_em', 'fechado_em', 'fechamento_motivo', 'uploader_id', 'uploader_nome'],
  }).run(q);
  if (!c) return null;
  const itens = await db.sql<db.SQL, Array<{ ordem: number; arquivo: string; entrada: string; motivo: string | null; processamento_id: string | null;
    status: string | null; tipo_nome: string | null; avisos_n: number | null; aguarda_mestre: boolean | null; falha: Falha | null }>>`
    select i.ordem, i.arquivo, i.status as entrada, i.motivo, p.id as processamento_id, p.status, public.xls_tipo_nome(p.tipo) as tipo_nome,
           jsonb_array_length(p.avisos) as avisos_n, p.fk_retentar as aguarda_mestre,
           ${FALHA_DE_P} as falha
      from public.xls_conjunto_item i
      left join public.xls_processamento p
        on p.id = coalesce(i.processamento_id,
                           substring(i.motivo from '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')::uuid)
     where i.conjunto_id = ${db.param(conjuntoId)}::uuid
     order by i.ordem`.run(q);
  return {
    id: c.id, arquivo: c.arquivo, total: c.total, recebidoEm: iso(c.recebido_em)!, fechadoEm: iso(c.fechado_em),
    fechamentoMotivo: c.fechamento_motivo, uploader: c.uploader_id === null && c.uploader_nome === null ? null : { id: c.uploader_id, nome: c.uploader_nome },
    itens: itens.map((i): EntradaConjunto => ({
      ordem: i.ordem, arquivo: i.arquivo, entrada: i.entrada, motivo: i.motivo, processamentoId: i.processamento_id, status: i.status,
      tipoNome: i.tipo_nome, avisosN: i.avisos_n ?? 0, aguardaMestre: Boolean(i.aguarda_mestre), falha: i.falha,
    })),
  };
}
export type ConjuntoTela = NonNullable<Awaited<ReturnType<typeof conjuntoTela>>>;

/** The detail as the screen shows it: the API's detail plus staff words and the progress. */
export async function detalheTela(q: db.Queryable, id: string) {
  const p = await detalheProcessamento(q, id);
  const [x] = await db.sql<db.SQL, Array<{ tipo_nome: string | null; erro_codigo: string | null; erro_anterior: string | null; execucoes: number;
    falha: Falha | null; falha_anterior: Falha | null; linhas_lidas: number | null; progresso_em: string | null; agora: string }>>`
    select public.xls_tipo_nome(p.tipo) as tipo_nome, p.erro_codigo, p.erro_anterior, p.execucoes,
           ${FALHA_DE_P} as falha,
           (select to_jsonb(x) from public.xls_falha_explicar('ERRO', p.erro_anterior, null, '[]') x where p.erro_anterior is not null and p.status in ('PENDENTE', 'PROCESSANDO')) as falha_anterior,
           g.linhas_lidas, g.atualizado_em as progresso_em, now() as agora
      from public.xls_processamento p
      left join public.xls_processamento_progresso g on g.processamento_id = p.id and g.execucao = p.execucoes and p.status = 'PROCESSANDO'
     where p.id = ${db.param(id)}::uuid`.run(q);
  const conjunto = p.conjuntoId ? await conjuntoTela(q, p.conjuntoId) : null;
  const fluxo = p.tipo === 'FLUXO_PAGAR_RECEBER' && p.status === 'SUCESSO' ? await resumoFluxo(q, id) : null;
  return {
    ...p, conjunto, fluxo,
    avisos: (p.avisos ?? []) as unknown as Aviso[],
    linhasRejeitadas: (p.linhasRejeitadas ?? []) as unknown as LinhaRejeitada[],
    tipoNome: x?.tipo_nome ?? null, erroCodigo: x?.erro_codigo ?? null, erroAnterior: x?.erro_anterior ?? null, execucoes: x?.execucoes ?? 0,
    falha: x?.falha ?? null, falhaAnterior: x?.falha_anterior ?? null,
    progresso: x?.linhas_lidas === null || x?.linhas_lidas === undefined ? null : { linhasLidas: x.linhas_lidas, atualizadoEm: iso(x.progresso_em)! } as Progresso,
    agora: iso(x?.agora ?? new Date().toISOString())!,
  };
}
export type DetalheTela = Awaited<ReturnType<typeof detalheTela>>;

/** Uploads refused before anything was stored, newest first. */
export async function listarRecusas(q: db.Queryable, page: Pick<PageRequest, 'size' | 'offset'>) {
  const [rows, total] = await Promise.all([
    db.select('xls_upload_recusa', {}, { order: [{ by: 'recusado_em', direction: 'DESC' }, { by: 'id', direction: 'DESC' }], limit: page.size, offset: page.offset }).run(q),
    db.count('xls_upload_recusa', {}).run(q),
  ]);
  return {
    itens: rows.map((r) => ({
      id: r.id, recusadoEm: iso(r.recusado_em)!, origem: r.origem, arquivo: r.arquivo, tamanhoBytes: r.tamanho_bytes === null ? null : Number(r.tamanho_bytes),
      uploaderId: r.uploader_id, uploaderNome: r.uploader_nome, clienteIp: r.cliente_ip, statusHttp: r.status_http, codigo: r.codigo, motivo: r.motivo,
    })),
    total: Number(total),
  };
}
