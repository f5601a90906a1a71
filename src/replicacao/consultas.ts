/**
 * The sync configuration's data queries (sync-engine/sync-rules.yaml): what the phones must
 * hold, table by table. Read at start and handed to SQL (replicacao_consultas_definir), which
 * keeps them in app.replicacao_consulta for the parity check (replicacao_paridade_postgres).
 * The file is the one the engine loads; a DBA sees the same queries in psql.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../paths.js';

export const SYNC_RULES_FILE = join(projectRoot, 'sync-engine', 'sync-rules.yaml');

export interface ConsultaSincronizada { bucket: string; consulta: string }

type Q = { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> };

/** Every data query of every bucket definition, in the file's order. */
export function consultasDaConfiguracao(texto: string): ConsultaSincronizada[] {
  const doc = parse(texto) as { bucket_definitions?: Record<string, { data?: unknown }> } | null;
  const buckets = doc?.bucket_definitions;
  if (!buckets || typeof buckets !== 'object') throw new Error('configuração de sincronização sem bucket_definitions');
  const out: ConsultaSincronizada[] = [];
  for (const [bucket, def] of Object.entries(buckets)) {
    const data = def?.data;
    if (!Array.isArray(data)) throw new Error(`bucket ${bucket} da configuração de sincronização sem lista data`);
    for (const q of data) {
      if (typeof q !== 'string') throw new Error(`bucket ${bucket}: consulta que não é texto`);
      out.push({ bucket, consulta: q.trim() });
    }
  }
  return out;
}

/** Loads the sync configuration's queries into SQL; returns how many tables it names. */
export async function carregarConsultas(q: Q, arquivo = SYNC_RULES_FILE): Promise<number> {
  const consultas = consultasDaConfiguracao(await readFile(arquivo, 'utf8'));
  const { rows } = await q.query('select public.replicacao_consultas_definir($1::jsonb) n', [JSON.stringify(consultas)]);
  return Number(rows[0]!.n);
}
