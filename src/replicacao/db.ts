/**
 * Typed wrappers of the reset's SQL functions (db/functions/public.replicacao_*.sql). SQL
 * decides (one EM_ANDAMENTO, step log, orphan rule, ultimo_nuke); these pass parameters.
 */
import type pg from 'pg';
import type * as s from 'zapatos/schema';

export const REPLICACAO_JOB_KIND = 'replicacao_resetar';

export const PASSOS = [
  'VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'DROP_DOCSTORE',
  'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR',
] as const;
export type Passo = (typeof PASSOS)[number];
export type StatusPasso = 'EM_ANDAMENTO' | 'SUCESSO' | 'AVISO' | 'PULADO' | 'ERRO';

export type Execucao = s.xls_resetar_replicator.Selectable;
export type PassoRow = s.xls_resetar_replicator_passo.Selectable;

type Q = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

export async function replicacaoResetar(q: Q, motivo: string | null, solicitante: string): Promise<Execucao> {
  const { rows } = await q.query<Execucao>('select * from public.replicacao_resetar($1, $2)', [motivo, solicitante]);
  return rows[0]!;
}

/** null: another session holds the execution. */
export async function replicacaoAssumir(q: Q, id: string, worker: string, estrategia: 'hosting' | 'manual'): Promise<Execucao | null> {
  const { rows } = await q.query<Execucao>('select * from public.replicacao_assumir($1, $2, $3)', [id, worker, estrategia]);
  return rows[0]?.id ? rows[0] : null;
}

export async function replicacaoLiberar(q: Q, id: string): Promise<void> {
  await q.query('select public.replicacao_liberar($1)', [id]);
}

export async function replicacaoPasso(q: Q, id: string, passo: Passo, status: StatusPasso,
  mensagem: string | null = null, slotNovo: string | null = null): Promise<PassoRow> {
  const { rows } = await q.query<PassoRow>('select * from public.replicacao_passo($1, $2, $3, $4, $5)',
    [id, passo, status, mensagem, slotNovo]);
  return rows[0]!;
}

export async function replicacaoFinalizar(q: Q, id: string): Promise<Execucao> {
  const { rows } = await q.query<Execucao>('select * from public.replicacao_finalizar($1)', [id]);
  return rows[0]!;
}

export async function replicacaoFalhar(q: Q, id: string, mensagem: string): Promise<Execucao> {
  const { rows } = await q.query<Execucao>('select * from public.replicacao_falhar($1, $2)', [id, mensagem]);
  return rows[0]!;
}

export async function replicacaoRecuperar(q: Q): Promise<Execucao[]> {
  const { rows } = await q.query<Execucao>('select * from public.replicacao_recuperar()');
  return rows;
}

export interface Slot {
  slot_name: string;
  plugin: string | null;
  slot_type: string;
  active: boolean;
  active_pid: number | null;
}

export async function replicacaoSlots(q: Q, prefixo: string): Promise<Slot[]> {
  const { rows } = await q.query<Slot>('select slot_name, plugin, slot_type, active, active_pid from public.replicacao_slots($1)', [prefixo]);
  return rows;
}

export async function replicacaoSlotsRemover(q: Q, prefixo: string, execucao: string | null): Promise<string[]> {
  const { rows } = await q.query<{ r: string[] }>('select public.replicacao_slots_remover($1, $2) as r', [prefixo, execucao]);
  return rows[0]?.r ?? [];
}

export async function replicacaoPublicacaoRecriar(q: Q, nome: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('select public.replicacao_publicacao_recriar($1) as n', [nome]);
  return Number(rows[0]?.n ?? 0);
}

export async function replicacaoInstrucoes(q: Q, passo: string | null, estrategia: string | null): Promise<string | null> {
  if (!passo) return null;
  const { rows } = await q.query<{ t: string | null }>('select public.replicacao_instrucoes($1, $2) as t', [passo, estrategia ?? 'manual']);
  return rows[0]?.t ?? null;
}

/** One look of VERIFICAR_PARIDADE: SQL compares and keeps the figures on the execution; true when every table is equal. */
export async function replicacaoParidadeConferir(q: Q, id: string, motor: unknown): Promise<{ igual: boolean; tabelas: Array<{ tabela: string; postgres: number; motor: number; igual: boolean }> }> {
  const { rows } = await q.query<{ igual: boolean }>('select public.replicacao_paridade_conferir($1, $2::jsonb) igual', [id, JSON.stringify(motor)]);
  // a statement of its own: a subquery of the call above would see the row before the function's update
  const { rows: p } = await q.query<{ paridade: Array<{ tabela: string; postgres: number; motor: number; igual: boolean }> | null }>(
    'select paridade from public.xls_resetar_replicator where id = $1', [id]);
  return { igual: rows[0]!.igual, tabelas: p[0]?.paridade ?? [] };
}

/** One row of public.replicacao_saude: lags in seconds, positions as text, bytes as numbers. */
export interface SlotSaudeRow {
  slot_name: string;
  active: boolean;
  active_pid: number | null;
  confirmed_flush_lsn: string | null;
  current_lsn: string | null;
  lag_bytes: number | null;
  retained_bytes: number | null;
  write_lag_s: number | null;
  flush_lag_s: number | null;
  replay_lag_s: number | null;
  wal_status: string | null;
  safe_wal_size: number | null;
  inactive_since: Date | null;
  inactive_at_least: boolean | null;
}

export async function replicacaoSaude(q: Q, prefixo: string): Promise<SlotSaudeRow[]> {
  const { rows } = await q.query<SlotSaudeRow>(`
    select slot_name, active, active_pid, confirmed_flush_lsn::text, current_lsn::text,
           lag_bytes::float8, retained_bytes::float8,
           extract(epoch from write_lag)::float8 write_lag_s, extract(epoch from flush_lag)::float8 flush_lag_s,
           extract(epoch from replay_lag)::float8 replay_lag_s,
           wal_status, safe_wal_size::float8, inactive_since, inactive_at_least
      from public.replicacao_saude($1)`, [prefixo]);
  return rows;
}
