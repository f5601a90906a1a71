// @lane service
/**
 * SIGKILL of the service in the middle of a merge (the real entry point, src/main.ts): the
 * merge is held on a lock of bi_faturamento so that the kill lands inside it for sure.
 * Nothing of that processing reaches bi_*; the next boot ends it in ERRO with the reason; a
 * reprocess then ends SUCESSO with exactly the rows of a clean run of the same file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { API_TOKEN, bearer, testEnv } from '../harness/service.js';
import { ate, matarServicos, startServicoProcesso } from '../harness/processo.js';
import { retratoBi, retratoLimpo } from '../harness/retrato.js';
import { waitUntilBlocked } from '../harness/wait.js';
import { buildRelatorio18 } from '../fixtures/builder.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let limpo: TestDatabase;
let arquivo: Buffer;

beforeAll(async () => {
  db = await createTestDatabase();
  limpo = await createTestDatabase();
  arquivo = await buildRelatorio18({ rows: 600 });
});
afterAll(async () => {
  matarServicos();
  await db?.drop();
  await limpo?.drop();
});

const env = () => ({ ...testEnv(db, { S3_FILE_STORAGE: 'PSQL', JOBS_POLL_INTERVAL_MS: '200', JOBS_SHUTDOWN_GRACE_MS: '200' }), BI_COMERCIAL_XLS_API_TOKEN: API_TOKEN });

async function enviar(url: string): Promise<string> {
  const form = new FormData();
  form.append('arquivo', new Blob([arquivo], { type: XLSX }), 'r18.xlsx');
  const res = await fetch(`${url}/api/xls/processar`, { method: 'POST', body: form, headers: bearer() });
  expect(res.status).toBe(202);
  return ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens[0]!.processamentoId;
}

const processamento = async (id: string) =>
  (await db.pool.query('select status, erro_mensagem, execucoes from xls_processamento where id = $1', [id])).rows[0] as { status: string; erro_mensagem: string | null; execucoes: number };

describe('SIGKILL mid-merge', () => {
  it('nothing in bi_*; ERRO with the reason at the next boot; a reprocess gives exactly the rows of a clean run', async () => {
    // the clean run of the same file, in-process on another database
    const esperado = await retratoLimpo(limpo, 'r18.xlsx', arquivo);
    expect(esperado.bi_faturamento!.linhas).toBeGreaterThan(100);

    const antes = await retratoBi(db.pool);
    const a = await startServicoProcesso(env());
    // hold the merge on bi_faturamento: the kill lands inside it
    const trava = await db.pool.connect();
    let pid: number;
    try {
      await trava.query('begin');
      await trava.query('lock table public.bi_faturamento in share mode');
      const id = await enviar(a.url);
      await waitUntilBlocked(db.pool, { queryLike: 'xls_merge' }, 60_000);
      pid = (await db.pool.query(`select pid from pg_stat_activity where query like '%xls_merge%' and wait_event_type = 'Lock' and pid <> pg_backend_pid()`)).rows[0].pid;
      expect(await processamento(id)).toMatchObject({ status: 'PROCESSANDO', execucoes: 1 });
      await a.stop('SIGKILL');
      await trava.query('rollback');
      // the killed service's backend finds its client gone and rolls back
      await ate(async () => ((await db.pool.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount === 0 ? true : undefined), 'a sessão do serviço morto terminar', 30_000);
      expect(await retratoBi(db.pool)).toEqual(antes);
      expect((await processamento(id)).status).toBe('PROCESSANDO');

      const b = await startServicoProcesso(env());
      try {
        const erro = await processamento(id);
        expect(erro.status).toBe('ERRO');
        expect(erro.erro_mensagem).toMatch(/^processamento interrompido: o worker .+ parou \(queda ou reinício da aplicação\); use Reprocessar$/);
        expect(await retratoBi(db.pool)).toEqual(antes);

        const re = await fetch(`${b.url}/api/comercial/processamentos/${id}/reprocessar`, { method: 'POST', headers: bearer() });
        expect(re.status).toBe(202);
        const fim = await ate(async () => { const s = await processamento(id); return s.status === 'SUCESSO' || s.status === 'ERRO' ? s : undefined; }, 'o reprocessamento terminar');
        expect(fim).toMatchObject({ status: 'SUCESSO', execucoes: 2 });
        expect(await retratoBi(db.pool)).toEqual(esperado);
      } finally {
        await b.stop();
      }
    } finally {
      await trava.query('rollback').catch(() => undefined);
      trava.release();
    }
  }, 300_000);
});
