// @lane service
/**
 * A worker stopped (SIGSTOP) mid-merge for longer than the dead-worker timeout, then resumed
 * (SIGCONT) after another replica reclaimed its work: two real service processes on one
 * database. A merges (held on a lock of bi_faturamento so the stop lands inside the merge);
 * stopped, its idle merge transaction is ended by Postgres (XLS_MERGE_OCIOSO_MAX_MS), B's
 * recovery ends the run in ERRO and takes the job, a reprocess runs on B to SUCESSO. Resumed,
 * A cannot write over that outcome: its late ERRO is refused by SQL (another run), the rows
 * are exactly those of a clean run, and A keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { ate, matarServicos, startServicoProcesso } from '../harness/processo.js';
import { retratoBi, retratoLimpo } from '../harness/retrato.js';
import { waitUntilBlocked } from '../harness/wait.js';
import { buildRelatorio18 } from '../fixtures/builder.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let limpo: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  limpo = await createTestDatabase();
});
afterAll(async () => {
  matarServicos();
  await db?.drop();
  await limpo?.drop();
});

const env = () => ({
  ...testEnv(db, { S3_FILE_STORAGE: 'PSQL' }),
  JOBS_POLL_INTERVAL_MS: '200', JOBS_SWEEP_MS: '500', JOBS_HEARTBEAT_MS: '1000', JOBS_SHUTDOWN_GRACE_MS: '200',
  XLS_MERGE_OCIOSO_MAX_MS: '2000',
});

const processamento = async (id: string) =>
  (await db.pool.query('select status, worker, execucoes, erro_mensagem from xls_processamento where id = $1', [id])).rows[0] as
    { status: string; worker: string; execucoes: number; erro_mensagem: string | null };

describe('SIGSTOP mid-merge, SIGCONT after another replica reclaimed the work', () => {
  it('the stale worker cannot commit over the reclaimed outcome', async () => {
    const arquivo = await buildRelatorio18({ rows: 300 });
    const esperado = await retratoLimpo(limpo, 'r18.xlsx', arquivo);
    const antes = await retratoBi(db.pool);

    const a = await startServicoProcesso(env());
    const trava = await db.pool.connect();
    await trava.query('begin');
    await trava.query('lock table public.bi_faturamento in share mode');
    const form = new FormData();
    form.append('arquivo', new Blob([arquivo], { type: XLSX }), 'r18.xlsx');
    const res = await fetch(`${a.url}/api/xls/processar`, { method: 'POST', body: form, headers: bearer() });
    expect(res.status).toBe(202);
    const id = ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens[0]!.processamentoId;
    await waitUntilBlocked(db.pool, { queryLike: 'xls_merge' }, 60_000);
    const workerA = (await processamento(id)).worker;
    expect(await processamento(id)).toMatchObject({ status: 'PROCESSANDO', execucoes: 1 });

    process.kill(a.child.pid!, 'SIGSTOP');
    await trava.query('rollback');
    trava.release();
    // Postgres ends A's idle merge transaction: its lock on the processing goes with it
    await ate(async () => ((await db.pool.query(`select 1 from pg_stat_activity where query like '%xls_merge%' and pid <> pg_backend_pid()`)).rowCount === 0 ? true : undefined),
      'a transação de merge de A terminar', 30_000);

    const b = await startServicoProcesso(env());
    try {
      // B's recovery: A has not heartbeated for longer than app.worker_timeout() (20 s)
      const erro = await ate(async () => { const s = await processamento(id); return s.status === 'ERRO' ? s : undefined; }, 'a recuperação de B encerrar a execução de A', 90_000, 250);
      expect(erro.erro_mensagem).toBe(`processamento interrompido: o worker ${workerA} parou (queda ou reinício da aplicação); use Reprocessar`);
      expect(await retratoBi(db.pool)).toEqual(antes);
      expect((await db.pool.query(`select count(*)::int n from app.job where status = 'running'`)).rows[0].n).toBe(0);

      const re = await fetch(`${b.url}/api/comercial/processamentos/${id}/reprocessar`, { method: 'POST', headers: bearer() });
      expect(re.status).toBe(202);
      const sucesso = await ate(async () => { const s = await processamento(id); return s.status === 'SUCESSO' ? s : undefined; }, 'o reprocessamento em B terminar', 60_000);
      expect(sucesso.execucoes).toBe(2);
      expect(sucesso.worker).not.toBe(workerA);
      expect(await retratoBi(db.pool)).toEqual(esperado);

      // A resumes: its merge finds its session gone; its late ERRO is refused (another run)
      process.kill(a.child.pid!, 'SIGCONT');
      await ate(async () => (a.out().includes('não pode levá-lo a ERRO') ? true : undefined), 'A tentar gravar o desfecho atrasado', 30_000);
      expect(await processamento(id)).toEqual({ ...sucesso });
      expect(await retratoBi(db.pool)).toEqual(esperado);
      expect((await db.pool.query(`select count(*)::int n from app.job where status in ('running', 'pending')`)).rows[0].n).toBe(0);
      // and A keeps serving
      expect((await fetch(`${a.url}/health`)).status).toBe(200);
      expect(a.child.exitCode).toBeNull();
    } finally {
      await b.stop();
      await a.stop();
    }
  }, 300_000);
});
