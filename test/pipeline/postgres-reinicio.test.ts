// @lane service
/**
 * Postgres restarted in the middle of an ingest, on a cluster of this test's own (the shared
 * test cluster cannot be restarted under other files): the service (the real entry point) is
 * merging a file — held on a lock of bi_faturamento so the restart lands inside the merge —
 * when Postgres stops (fast shutdown) and starts again on the same port. /health says DOWN
 * while it is down and UP after, without restarting the service; the processing ends ERRO
 * with a transient reason (nothing half-written in bi_*), is retried by itself and ends
 * SUCESSO with exactly the rows of a clean run; a new upload is then processed too.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { ate, matarServicos, startServicoProcesso } from '../harness/processo.js';
import { retratoBi, retratoLimpo } from '../harness/retrato.js';
import { waitUntilBlocked } from '../harness/wait.js';
import { buildRelatorio18 } from '../fixtures/builder.js';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/embedded/postgres.js';
import { migrate } from '../../src/db/migrate.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const BANCO = 'bi_reinicio';
let dir: string;
let server: EmbeddedPostgres;
let pool: pg.Pool;
let limpo: TestDatabase;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bi-pg-reinicio-'));
  chmodSync(dir, 0o755);
  server = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), cronDatabase: BANCO, durable: false });
  await ensureDatabase(server.url('postgres'), BANCO);
  url = server.url(BANCO);
  await migrate(url);
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined); // the restart ends idle connections too
  limpo = await createTestDatabase();
}, 180_000);
afterAll(async () => {
  matarServicos();
  await pool?.end().catch(() => undefined);
  await server?.stop();
  await limpo?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function enviar(base: string, nome: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.append('arquivo', new Blob([bytes], { type: XLSX }), nome);
  const res = await fetch(`${base}/api/xls/processar`, { method: 'POST', body: form, headers: bearer() });
  expect(res.status).toBe(202);
  return ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens[0]!.processamentoId;
}

const saude = async (base: string) => {
  try {
    const r = await fetch(`${base}/health`, { signal: AbortSignal.timeout(3000) });
    return { status: r.status, corpo: ((await r.json()) as { status: string }).status };
  } catch (err) {
    return { status: 0, corpo: String(err) };
  }
};

describe('Postgres restarted mid-ingest', () => {
  it('DOWN only while it is down; ERRO transient, then retried by itself to SUCESSO with the rows of a clean run; no service restart', async () => {
    const arquivo = await buildRelatorio18({ rows: 400 });
    const esperado = await retratoLimpo(limpo, 'r18.xlsx', arquivo);
    const antes = await retratoBi(pool);

    const svc = await startServicoProcesso({
      ...testEnv({ url }, { S3_FILE_STORAGE: 'PSQL' }), PG_CRON_OBRIGATORIO: 'true',
      JOBS_POLL_INTERVAL_MS: '200', JOBS_SWEEP_MS: '300', JOBS_SHUTDOWN_GRACE_MS: '200',
    });
    expect(await saude(svc.url)).toEqual({ status: 200, corpo: 'UP' });

    const trava = new pg.Client({ connectionString: url });
    trava.on('error', () => undefined);
    await trava.connect();
    await trava.query('begin');
    await trava.query('lock table public.bi_faturamento in share mode');
    const id = await enviar(svc.url, 'r18.xlsx', arquivo);
    await waitUntilBlocked(pool, { queryLike: 'xls_merge' }, 60_000);
    expect((await pool.query('select status from xls_processamento where id = $1', [id])).rows[0].status).toBe('PROCESSANDO');

    // restart: fast shutdown (every session ends, the merge's too), a few seconds down, up on the same port
    await server.stop();
    const durante = [await saude(svc.url)];
    await new Promise((r) => setTimeout(r, 1500));
    durante.push(await saude(svc.url));
    expect(durante, svc.out().slice(-2500)).toEqual([{ status: 503, corpo: 'DOWN' }, { status: 503, corpo: 'DOWN' }]);
    server = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), port: server.port, cronDatabase: BANCO, durable: false });
    await ate(async () => ((await saude(svc.url)).status === 200 ? true : undefined), '/health voltar a UP', 30_000);

    const erro = await ate(async () => {
      const r = (await pool.query('select status, erro_mensagem, alarmar, execucoes from xls_processamento where id = $1', [id])).rows[0];
      return r.status !== 'PROCESSANDO' ? r : undefined;
    }, 'o processamento sair de PROCESSANDO', 60_000);
    expect(erro).toMatchObject({ status: 'ERRO', alarmar: false, execucoes: 1 });
    expect(erro.erro_mensagem).toMatch(/^banco de dados indisponível durante o processamento: .+ \(falha transitória 1 de 5: nova tentativa automática em 15 s\)$/);
    // never half-written
    expect(await retratoBi(pool)).toEqual(antes);

    const fim = await ate(async () => {
      const r = (await pool.query('select status, execucoes from xls_processamento where id = $1', [id])).rows[0];
      return r.status === 'SUCESSO' || (r.status === 'ERRO' && r.execucoes > 1) ? r : undefined;
    }, 'a nova tentativa automática terminar', 90_000, 250);
    expect(fim).toEqual({ status: 'SUCESSO', execucoes: 2 });
    expect(await retratoBi(pool)).toEqual(esperado);
    // no job left running, and the same process keeps working
    expect((await pool.query(`select count(*)::int n from app.job where status = 'running'`)).rows[0].n).toBe(0);
    // a smaller report of the same period removes most of it: lift the mass-deletion guard, which has its own tests
    await pool.query(`update bi_configuracao set valor = '100' where chave = 'xls_exclusao_limite_percentual'`);
    const outro = await enviar(svc.url, 'r18-b.xlsx', await buildRelatorio18({ rows: 12 }));
    await ate(async () => ((await pool.query('select status from xls_processamento where id = $1', [outro])).rows[0].status === 'SUCESSO' ? true : undefined), 'o novo envio terminar', 60_000);
    expect(svc.child.exitCode).toBeNull();
    await trava.end().catch(() => undefined);
    await svc.stop();
  }, 300_000);
});
