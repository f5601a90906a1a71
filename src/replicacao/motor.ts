/**
 * What the sync engine holds, read from its own storage (the Postgres database of
 * REPLICATOR_DOCSTORE_URL, schema `powersync`, a name fixed in the engine): whether its
 * initial copy is done, and what it serves per table at its latest checkpoint (rows and the
 * sum of a 32-bit hash of their ids, the same expression as app.replicacao_id_hash). Only
 * reads; used by the reset step VERIFICAR_PARIDADE and the "Replicação" panel.
 *
 * The engine keeps every operation of a bucket in powersync.bucket_data (PUT, REMOVE, and MOVE
 * or CLEAR after compacting); a phone holds, per bucket, the latest PUT of each row. That is
 * what is counted here, up to the active sync configuration's last checkpoint.
 */
import pg from 'pg';

/** The engine's storage schema: fixed in the engine (not configurable). */
export const ESQUEMA_MOTOR = 'powersync';

export type EstadoMotor =
  | { pronto: true; grupo: number; checkpoint: string; lsn: string | null; slot: string | null }
  | { pronto: false; motivo: string };

export interface ContagemMotor { tabela: string; linhas: number; ids: string }

export async function conectarArmazenamento(url: string, timeoutMs: number): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs,
    application_name: 'bi-comercial-paridade' });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** The active sync configuration of the engine and whether its initial copy is done. */
export async function estadoMotor(c: pg.Client): Promise<EstadoMotor> {
  const { rows: existe } = await c.query<{ ok: boolean }>(`select to_regclass('${ESQUEMA_MOTOR}.sync_rules') is not null ok`);
  if (!existe[0]?.ok) return { pronto: false, motivo: 'o motor ainda não criou seu armazenamento (schema powersync)' };
  const { rows } = await c.query<{ id: number; state: string; snapshot_done: boolean; last_checkpoint: string | null;
    last_checkpoint_lsn: string | null; slot_name: string | null; last_fatal_error: string | null; tabelas: number; copiadas: number }>(
    `select r.id, r.state, r.snapshot_done, r.last_checkpoint::text, r.last_checkpoint_lsn, r.slot_name, r.last_fatal_error,
            (select count(*)::int from ${ESQUEMA_MOTOR}.source_tables t where t.group_id = r.id) tabelas,
            (select count(*)::int from ${ESQUEMA_MOTOR}.source_tables t where t.group_id = r.id and t.snapshot_done) copiadas
       from ${ESQUEMA_MOTOR}.sync_rules r
      where r.state in ('ACTIVE', 'PROCESSING')
      order by (r.state = 'ACTIVE') desc, r.id desc
      limit 1`);
  const r = rows[0];
  if (!r) return { pronto: false, motivo: 'o motor ainda não carregou a configuração de sincronização' };
  if (r.last_fatal_error) return { pronto: false, motivo: `o motor registrou um erro fatal: ${r.last_fatal_error}` };
  if (r.state !== 'ACTIVE' || !r.snapshot_done || r.last_checkpoint === null) {
    return { pronto: false, motivo: `cópia inicial do motor em andamento (${r.copiadas} de ${r.tabelas} tabela(s) copiadas)` };
  }
  return { pronto: true, grupo: r.id, checkpoint: r.last_checkpoint, lsn: r.last_checkpoint_lsn, slot: r.slot_name };
}

/** What the engine serves at its checkpoint, per table (the phones' table names). */
export async function contagensMotor(c: pg.Client, grupo: number, checkpoint: string): Promise<ContagemMotor[]> {
  const { rows } = await c.query<{ tabela: string; linhas: string; ids: string }>(
    `select table_name tabela, count(*)::text linhas, coalesce(sum(('x' || left(md5(row_id), 8))::bit(32)::bigint), 0)::text ids
       from (select distinct table_name, row_id
               from (select distinct on (bucket_name, table_name, row_id) op, table_name, row_id
                       from ${ESQUEMA_MOTOR}.bucket_data
                      where group_id = $1 and op_id <= $2::bigint and op in ('PUT', 'REMOVE')
                      order by bucket_name, table_name, row_id, op_id desc) ultimo
              where op = 'PUT') servidas
      group by table_name
      order by table_name`, [grupo, checkpoint]);
  return rows.map((r) => ({ tabela: r.tabela, linhas: Number(r.linhas), ids: r.ids }));
}
