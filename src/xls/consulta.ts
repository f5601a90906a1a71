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
import type { PageRequest } from '../plugins/page.js';
import type { StatusProcessamento } from '../db/xls.js';
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
}

function whereOf(f: FiltrosLista): s.xls_processamento.Whereable {
  const where: s.xls_processamento.Whereable = {};
  if (f.tipo) where.tipo = f.tipo;
  if (f.status) where.status = f.status;
  return where;
}

/** The page query (exported so that the plan test explains exactly this SQL). */
export function listaQuery(f: FiltrosLista, page: Pick<PageRequest, 'size' | 'offset'>) {
  return db.select('xls_processamento', whereOf(f), {
    columns: LIST_COLUMNS,
    order: [{ by: 'recebido_em', direction: 'DESC' }, { by: 'id', direction: 'DESC' }],
    limit: page.size, offset: page.offset,
  });
}

export async function listarProcessamentos(q: db.Queryable, f: FiltrosLista, page: PageRequest): Promise<{ itens: ProcessamentoItem[]; total: number }> {
  const [rows, total] = await Promise.all([listaQuery(f, page).run(q), db.count('xls_processamento', whereOf(f)).run(q)]);
  return { itens: rows.map(toItem), total: Number(total) };
}

export function naoEncontrado(id: string): HttpProblem {
  return new HttpProblem(404, 'Não encontrado', `processamento ${id} não existe`, 'XL404');
}

export async function detalheProcessamento(q: db.Queryable, id: string) {
  const r = await db.selectOne('xls_processamento', { id }, { columns: DETAIL_COLUMNS }).run(q);
  if (!r) throw naoEncontrado(id);
  let conjunto = null;
  if (r.conjunto_id) {
    const [lote, itens] = await Promise.all([
      db.selectOne('xls_conjunto', { id: r.conjunto_id }, { columns: ['id', 'total'] }).run(q),
      db.select('xls_conjunto_item', { conjunto_id: r.conjunto_id }, {
        columns: ['arquivo', 'processamento_id', 'status', 'motivo'], order: { by: 'ordem', direction: 'ASC' },
      }).run(q),
    ]);
    if (lote) {
      conjunto = {
        id: lote.id, total: lote.total,
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
