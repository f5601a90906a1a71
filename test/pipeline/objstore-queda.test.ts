// @lane service
/**
 * The object store down while a job reads an original (OBJSTORE mode, the real service
 * process, the embedded store in a process of its own): the processing ends ERRO with a
 * reason that says the failure is transient and when it is retried, without alarm; once the
 * store is back, the retry runs by itself and ends SUCESSO.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline } from '../harness/pipeline.js';
import { testEnv } from '../harness/service.js';
import { ate, matarServicos, startServicoProcesso } from '../harness/processo.js';
import { buildRelatorio18 } from '../fixtures/builder.js';
import { startEmbeddedObjectStore, type EmbeddedObjectStore } from '../../src/embedded/objstore.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let s3: EmbeddedObjectStore;
let s3dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  s3dir = mkdtempSync(join(tmpdir(), 'bi-s3-queda-'));
  chmodSync(s3dir, 0o755);
  s3 = await startEmbeddedObjectStore({ directory: s3dir, bucket: 'bi-teste' });
});
afterAll(async () => {
  matarServicos();
  await s3?.stop();
  await db?.drop();
});

const s3env = () => ({
  S3_FILE_STORAGE: 'OBJSTORE', S3_ENDPOINT: s3.endpoint, S3_BUCKET: s3.bucket,
  S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  // the job must read the original from the store, not the copy the upload left on this host
  XLS_ORIGINAIS_LOCAIS: 'off',
});

describe('object store down while a job reads the original', () => {
  it('ERRO saying it is transient (no alarm), then an automatic retry ends SUCESSO once the store is back', async () => {
    // received while the store is up; nobody processes it yet
    const p = await startPipeline(db, { env: s3env(), autostart: false });
    let id: string;
    try {
      const res = await p.upload('r18.xlsx', await buildRelatorio18({ rows: 20 }), XLSX);
      expect(res.statusCode).toBe(202);
      id = res.json().itens[0].processamentoId;
    } finally {
      await p.close();
    }
    expect((await db.pool.query('select arquivo_bytes is null as sem_coluna, objeto_chave is not null as no_store from xls_processamento where id = $1', [id])).rows[0])
      .toEqual({ sem_coluna: true, no_store: true });

    const porta = s3.port;
    process.kill(s3.pid, 'SIGKILL');
    await s3.stop();
    const svc = await startServicoProcesso({ ...testEnv(db, s3env()), JOBS_POLL_INTERVAL_MS: '200', JOBS_SWEEP_MS: '300', JOBS_SHUTDOWN_GRACE_MS: '200' });
    try {
      const erro = await ate(async () => {
        const r = (await db.pool.query(`select status, erro_mensagem, alarmar, retentar_em is not null as agendado, falhas_transitorias, execucoes
          from xls_processamento where id = $1`, [id])).rows[0];
        return r.status === 'ERRO' ? r : undefined;
      }, 'o processamento falhar com o object store fora', 60_000);
      expect(erro).toMatchObject({ alarmar: false, agendado: true, falhas_transitorias: 1, execucoes: 1 });
      expect(erro.erro_mensagem).toMatch(/^object store indisponível: .+ \(falha transitória 1 de 5: nova tentativa automática em 15 s\)$/);
      // no alarm: the job log has no error line for it
      expect(svc.logs().some((l) => l.level === 50 && l.processamentoId === id)).toBe(false);

      s3 = await startEmbeddedObjectStore({ directory: s3dir, port: porta, bucket: 'bi-teste' });
      const fim = await ate(async () => {
        const r = (await db.pool.query('select status, erro_mensagem, execucoes, falhas_transitorias, retentar_em from xls_processamento where id = $1', [id])).rows[0];
        return r.status === 'SUCESSO' || (r.status === 'ERRO' && r.execucoes > 1) ? r : undefined;
      }, 'a nova tentativa automática terminar', 90_000, 250);
      expect(fim).toEqual({ status: 'SUCESSO', erro_mensagem: null, execucoes: 2, falhas_transitorias: 0, retentar_em: null });
      expect((await db.pool.query('select count(*)::int n from bi_faturamento')).rows[0].n).toBeGreaterThan(0);
    } finally {
      await svc.stop();
    }
  }, 240_000);
});
