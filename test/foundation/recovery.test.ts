/**
 * Boot and recovery: a PROCESSANDO or a running job of a previous process of
 * this host is recovered at boot at once, whatever its heartbeat; another replica's
 * orphans within 30 s (heartbeat timeout 20 s, each replica sweeps every 10 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { forgetPreviousWorkers, processRuns } from '../../src/jobs/workers.js';
import { xlsRecuperar } from '../../src/planilhas/db.js';
import { iniciar, receberAvulso } from '../xls-sql/helpers.js';
import { loadConfig } from '../../src/config.js';
import { testEnv } from '../harness/service.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

/** A pid that ran and no longer runs. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

async function worker(id: string, host: string, pid: number): Promise<void> {
  await db.pool.query('update app.worker set hostname = $2, pid = $3, heartbeat_at = now() where id = $1', [id, host, pid]);
}

describe('boot recovery of this host', () => {
  it('processRuns tells a running pid from a dead one and from our own', () => {
    expect(processRuns(process.ppid)).toBe(true);
    expect(processRuns(deadPid())).toBe(false);
    expect(processRuns(process.pid)).toBe(false);
  });

  it('a previous process of this host (fresh heartbeat, dead pid): its PROCESSANDO -> ERRO and its job -> queue, at once', async () => {
    const anterior = `${hostname()}:anterior`;
    const vizinho = `${hostname()}:vizinho`;
    const outroHost = 'outro-host:1';
    const a = (await receberAvulso(db.pool, 'recuperacao-a')).processamentoId!;
    const b = (await receberAvulso(db.pool, 'recuperacao-b')).processamentoId!;
    const c = (await receberAvulso(db.pool, 'recuperacao-c')).processamentoId!;
    await iniciar(db.pool, a, anterior);
    await iniciar(db.pool, b, vizinho);
    await iniciar(db.pool, c, outroHost);
    await worker(anterior, hostname(), deadPid()); // heartbeat now: not stale
    await worker(vizinho, hostname(), process.ppid); // another replica on this host, alive
    await worker(outroHost, 'outro-host', deadPid()); // another host: its pid means nothing here

    // nothing stale yet: the periodic recovery leaves them all
    expect((await xlsRecuperar(db.pool)).orfaos).toEqual([]);

    expect(await forgetPreviousWorkers(db.pool)).toEqual([anterior]);
    const r = await xlsRecuperar(db.pool);
    expect(r.orfaos).toEqual([a]);
    const { rows } = await db.pool.query<{ id: string; status: string }>(
      'select id, status from public.xls_processamento where id = any($1) order by id', [[a, b, c]]);
    expect(Object.fromEntries(rows.map((x) => [x.id, x.status]))).toEqual({ [a]: 'ERRO', [b]: 'PROCESSANDO', [c]: 'PROCESSANDO' });
    const jobs = await db.pool.query<{ locked_by: string | null; status: string }>(
      `select locked_by, status from app.job where kind = 'xls_processar' and payload ->> 'id' = $1`, [a]);
    expect(jobs.rows.every((j) => j.locked_by !== anterior)).toBe(true);
  });

  it("another replica's orphans are recovered within 30 s: timeout 20 s, sweeps every 10 s (JOBS_SWEEP_MS)", async () => {
    expect(loadConfig(testEnv(db)).config.jobs).toMatchObject({ heartbeatMs: 5_000, sweepMs: 10_000 });
    const { rows: [t] } = await db.pool.query<{ s: number }>('select extract(epoch from app.worker_timeout())::int s');
    expect(t!.s).toBe(20);
    const d = (await receberAvulso(db.pool, 'recuperacao-d')).processamentoId!;
    await iniciar(db.pool, d, 'replica-silenciosa');
    await db.pool.query(`update app.worker set heartbeat_at = now() - interval '21 seconds' where id = 'replica-silenciosa'`);
    expect(await db.pool.query('select app.sweep_jobs() n').then((x) => x.rows[0].n)).toBeGreaterThanOrEqual(1);
    expect((await xlsRecuperar(db.pool)).orfaos).toEqual([d]);
  });
});
