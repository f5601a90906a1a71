/**
 * Fencing tokens: a write of an older claim is refused by SQL even under the same worker id
 * (a worker stopped, its job reclaimed — here by itself after it resumed — then its stale
 * half writing late). Jobs: app.claim_jobs' epoch to app.complete_job / app.fail_job.
 * Processings: execucoes (returned by xls_iniciar) to xls_concluir / xls_falhar and to the
 * merge entry check (p_meta.execucao).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { xlsConcluir, xlsFalhar, xlsIniciar, xlsMergeChunk, xlsReprocessar } from '../../src/planilhas/db.js';
import { heartbeat, receberAvulso } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

describe('job epoch', () => {
  it('each claim has a new epoch; complete/fail of an older epoch are refused, the current one passes', async () => {
    await db.pool.query(`select app.enqueue('cerca', '{}'::jsonb)`);
    await heartbeat(db.pool, 'w1');
    const c1 = (await db.pool.query(`select id, epoch from app.claim_jobs('w1', array['cerca'], 1)`)).rows[0];
    expect(Number(c1.epoch)).toBe(1);
    // presumed dead: the sweep returns the job, and the same worker (resumed) claims it again
    await db.pool.query(`update app.worker set heartbeat_at = now() - interval '1 hour' where id = 'w1'`);
    expect((await db.pool.query('select app.sweep_jobs() n')).rows[0].n).toBe(1);
    await heartbeat(db.pool, 'w1');
    const c2 = (await db.pool.query(`select id, epoch from app.claim_jobs('w1', array['cerca'], 1)`)).rows[0];
    expect(c2.id).toBe(c1.id);
    expect(Number(c2.epoch)).toBe(2);
    expect((await db.pool.query('select app.complete_job($1, $2, $3) ok', ['w1', c1.id, 1])).rows[0].ok).toBe(false);
    expect((await db.pool.query('select app.fail_job($1, $2, $3, $4) s', ['w1', c1.id, 'tarde', 1])).rows[0].s).toBeNull();
    expect((await db.pool.query('select status, locked_by, last_error from app.job where id = $1', [c1.id])).rows[0])
      .toMatchObject({ status: 'running', locked_by: 'w1' });
    expect((await db.pool.query('select app.complete_job($1, $2, $3) ok', ['w1', c1.id, 2])).rows[0].ok).toBe(true);
    expect((await db.pool.query('select status from app.job where id = $1', [c1.id])).rows[0].status).toBe('done');
  });
});

describe('processing run (execucoes)', () => {
  it('a stale run of the same worker cannot end the new run: ERRO, SUCESSO and the merge entry refuse it (XL409), the current run passes', async () => {
    const r = await receberAvulso(db.pool, 'cerca-r18');
    const id = r.processamentoId!;
    await heartbeat(db.pool, 'w2');
    const run1 = await xlsIniciar(db.pool, id, 'w2');
    expect(run1!.execucoes).toBe(1);
    // run 1 ends (e.g. recovery saw the worker dead), is reprocessed, and the same worker starts run 2
    await xlsFalhar(db.pool, id, 'w2', { motivo: 'interrompido', execucao: 1 });
    await xlsReprocessar(db.pool, id);
    const run2 = await xlsIniciar(db.pool, id, 'w2');
    expect(run2!.execucoes).toBe(2);
    await db.pool.query(`select public.xls_definir_tipo($1, 'w2', 'RELATORIO18')`, [id]);

    // the stale half of run 1 writes late
    await expect(xlsFalhar(db.pool, id, 'w2', { motivo: 'atrasado', execucao: 1 }))
      .rejects.toMatchObject({ code: 'XL409', message: expect.stringContaining('está na execução 2: a execução 1 (worker w2) foi substituída e não pode levá-lo a ERRO') });
    await expect(xlsConcluir(db.pool, id, 'w2', { execucao: 1 }))
      .rejects.toMatchObject({ code: 'XL409', message: expect.stringContaining('a execução 1 (worker w2) foi substituída e não pode levá-lo a SUCESSO') });
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`select * from public.xls_staging_preparar('RELATORIO18')`);
      await expect(xlsMergeChunk(client, id, { execucao: 1 }))
        .rejects.toMatchObject({ code: 'XL409', message: expect.stringContaining('está na execução 2: a execução 1 foi substituída e não pode gravar') });
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect((await db.pool.query('select status, worker, execucoes, erro_mensagem from xls_processamento where id = $1', [id])).rows[0])
      .toEqual({ status: 'PROCESSANDO', worker: 'w2', execucoes: 2, erro_mensagem: null });
    // the current run still ends
    const d = await xlsFalhar(db.pool, id, 'w2', { motivo: 'falha da execução 2', execucao: 2 });
    expect(d.status).toBe('ERRO');
  });
});
