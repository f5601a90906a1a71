/**
 * Parity of the sync engine with Postgres: what the engine serves (its storage, motor.ts)
 * against what Postgres holds under the sync configuration's filters (SQL:
 * replicacao_paridade). Used on demand by the "Replicação" panel and, through
 * replicacao_paridade_conferir, by the reset step VERIFICAR_PARIDADE.
 */
import type pg from 'pg';
import { parseDocstoreUrl, type DocstoreAlvo, type ReplicatorConfig } from '../config.js';
import { carregarConsultas } from './consultas.js';
import { conectarArmazenamento, contagensMotor, estadoMotor, type ContagemMotor, type EstadoMotor } from './motor.js';

export interface LinhaParidade { tabela: string; postgres: number; motor: number; igual: boolean }

export type LeituraMotor =
  | { lida: true; estado: Extract<EstadoMotor, { pronto: true }>; contagens: ContagemMotor[] }
  | { lida: false; motivo: string };

type Q = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

/** Reads the engine's storage once: not ready, unreachable or not Postgres -> the reason. */
export async function lerMotor(alvo: DocstoreAlvo | null, timeoutMs: number): Promise<LeituraMotor> {
  if (!alvo) return { lida: false, motivo: 'REPLICATOR_DOCSTORE_URL não definida: não há onde ler o armazenamento do motor' };
  if (alvo.kind !== 'postgres') return { lida: false, motivo: 'o armazenamento do motor é MongoDB: a paridade só é lida de um armazenamento Postgres' };
  let c: pg.Client;
  try {
    c = await conectarArmazenamento(alvo.url, timeoutMs);
  } catch (err) {
    return { lida: false, motivo: `armazenamento do motor inacessível: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    const estado = await estadoMotor(c);
    if (!estado.pronto) return { lida: false, motivo: estado.motivo };
    return { lida: true, estado, contagens: await contagensMotor(c, estado.grupo, estado.checkpoint) };
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Postgres against the engine's figures, per table (SQL decides what is equal). */
export async function compararParidade(q: Q, contagens: ContagemMotor[]): Promise<LinhaParidade[]> {
  const { rows } = await q.query<{ tabela: string; postgres: string; motor: string; igual: boolean }>(
    'select tabela, postgres::text, motor::text, igual from public.replicacao_paridade($1::jsonb)', [JSON.stringify(contagens)]);
  return rows.map((r) => ({ tabela: r.tabela, postgres: Number(r.postgres), motor: Number(r.motor), igual: r.igual }));
}

/** The differing tables, for a message: "bi_x: Postgres 10, motor 9". */
export function descreverDiferencas(linhas: LinhaParidade[]): string {
  const dif = linhas.filter((l) => !l.igual);
  return dif.map((l) => `${l.tabela}: Postgres ${l.postgres}, motor ${l.motor}${l.postgres === l.motor ? ' (mesma contagem, ids diferentes)' : ''}`).join('; ');
}

export interface Paridade {
  verificadoEm: string;
  /** false: the engine could not be read (motivo says why); nothing was compared */
  conferida: boolean;
  motivo: string | null;
  checkpoint: string | null;
  slot: string | null;
  /** every table equal (false when not compared) */
  igual: boolean;
  tabelas: LinhaParidade[];
}

/**
 * Parity on demand (the "Replicação" panel and its API): the sync configuration's queries
 * loaded again, the engine's storage read once, compared by SQL. Nothing is recorded.
 */
export async function paridadeAgora(q: Q, cfg: Pick<ReplicatorConfig, 'docstoreUrl' | 'docstoreTimeoutMs'>): Promise<Paridade> {
  const verificadoEm = new Date().toISOString();
  await carregarConsultas(q);
  const leitura = await lerMotor(cfg.docstoreUrl ? parseDocstoreUrl(cfg.docstoreUrl) : null, cfg.docstoreTimeoutMs);
  if (!leitura.lida) return { verificadoEm, conferida: false, motivo: leitura.motivo, checkpoint: null, slot: null, igual: false, tabelas: [] };
  const tabelas = await compararParidade(q, leitura.contagens);
  return {
    verificadoEm, conferida: true, motivo: null, checkpoint: leitura.estado.checkpoint, slot: leitura.estado.slot,
    igual: tabelas.length > 0 && tabelas.every((t) => t.igual), tabelas,
  };
}
