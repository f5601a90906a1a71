/**
 * Boot recovery of this host's previous processes. A worker row of this host whose
 * process no longer runs is a previous process (a restart, a crash, a container restarted
 * with the same pid): SQL forgets it at once (app.worker_esquecer) instead of waiting for
 * its heartbeat to go stale, so its jobs return to the queue and its PROCESSANDO become
 * ERRO now (app.sweep_jobs, xls_recuperar). Only the host knows whether a pid runs;
 * workers of other hosts are left to the heartbeat timeout.
 */
import { hostname } from 'node:os';
import type pg from 'pg';

/** True when a process with this pid runs on this host (and is not this process). */
export function processRuns(pid: number): boolean {
  if (pid === process.pid) return false; // a worker of an earlier process that had our pid
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // runs, as another user
  }
}

export async function forgetPreviousWorkers(pool: pg.Pool, host = hostname()): Promise<string[]> {
  const { rows } = await pool.query<{ id: string; pid: number }>('select id, pid from app.worker where hostname = $1', [host]);
  const dead = rows.filter((w) => !processRuns(w.pid)).map((w) => w.id);
  if (dead.length) {
    await pool.query('select app.worker_esquecer($1::text[])', [dead]);
    await pool.query('select app.sweep_jobs()');
  }
  return dead;
}
