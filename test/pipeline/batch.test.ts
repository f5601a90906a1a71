/** Batch rules across the pipeline: the transient-FK retry, two replicas, restart recovery. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { startFakeBot, type FakeBot } from '../harness/fake-bot.js';
import { testEnv } from '../harness/service.js';
import { buildMeta, buildRelatorio18 } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { backendPid } from '../harness/wait.js';
import { planilhasJobHandler } from '../../src/planilhas/processar.js';
import { startService } from '../../src/main.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
let bot: FakeBot;
beforeAll(async () => { bot = await startFakeBot(); });
afterAll(async () => { await bot?.close(); });

async function withPipeline(fn: (db: TestDatabase, p: Pipeline) => Promise<void>, opts: Parameters<typeof startPipeline>[1] = {}) {
  const db = await createTestDatabase();
  const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', BOT_TOKEN: bot.token, BOT_CHAT_ID: '-7', BOT_API_URL: bot.url }, ...opts });
  try { await fn(db, p); } finally { await p.close(); await db.drop(); }
}

/** Runs the handler for one processing now, as a replica would, before any runner starts. */
async function runNow(p: Pipeline, id: string): Promise<void> {
  await planilhasJobHandler(p.ctx)({ id: 0, kind: 'xls_processar', payload: { id }, attempts: 1, max_attempts: 5 },
    { workerId: 'adiantado', log, signal: new AbortController().signal });
}

const byName = (recibo: { itens: Array<{ arquivo: string; processamentoId: string }> }, name: string) =>
  recibo.itens.find((i) => i.arquivo === name)!.processamentoId;

describe('transient foreign-key failure inside a batch', () => {
  it('META before its master report: the first failure is silent, and it succeeds once the batch closes', () => withPipeline(async (db, p) => {
    const zip = makeZip([{ name: 'metas.xlsx', data: await buildMeta({ rows: 23 }) }, { name: 'r18.xlsx', data: await buildRelatorio18({ rows: 100 }) }]);
    const res = await p.upload('lote.zip', zip);
    const metaId = byName(res.json(), 'metas.xlsx');
    await runNow(p, metaId);
    expect((await db.pool.query('select status, alarmar, fk_retentar from xls_processamento where id = $1', [metaId])).rows[0])
      .toEqual({ status: 'ERRO', alarmar: false, fk_retentar: true });
    for (const r of p.runners) await r.start(null);
    await p.drain();
    const { rows } = await db.pool.query('select tipo, status, execucoes from xls_processamento order by tipo');
    expect(rows).toEqual([{ tipo: 'META', status: 'SUCESSO', execucoes: 2 }, { tipo: 'RELATORIO18', status: 'SUCESSO', execucoes: 1 }]);
    await bot.waitFor((m) => m.text.includes(metaId) && m.text.includes('SUCESSO'));
    expect(bot.messages.some((m) => m.text.includes(metaId) && m.text.includes('ERRO'))).toBe(false);
  }, { autostart: false }));

  it('a seller truly absent: silent first, the retry after the close alarms', () => withPipeline(async (db, p) => {
    const meta = await buildMeta({ linhas: [{ competencia: new Date(Date.UTC(2026, 10, 1)), vendedor: 999, produto: 'P', meta_volume: 1, meta_margem: 0.1 }] });
    const zip = makeZip([{ name: 'metas.xlsx', data: meta }, { name: 'r18.xlsx', data: await buildRelatorio18({ rows: 10 }) }]);
    const metaId = byName((await p.upload('lote.zip', zip)).json(), 'metas.xlsx');
    await runNow(p, metaId);
    expect((await db.pool.query('select alarmar from xls_processamento where id = $1', [metaId])).rows[0].alarmar).toBe(false);
    for (const r of p.runners) await r.start(null);
    await p.drain();
    expect((await db.pool.query('select status, alarmar, execucoes from xls_processamento where id = $1', [metaId])).rows[0])
      .toEqual({ status: 'ERRO', alarmar: true, execucoes: 2 });
    await bot.waitFor((m) => m.text.includes(metaId) && m.text.includes('ERRO'));
  }, { autostart: false }));
});

describe('two replicas', () => {
  it('race for the jobs of one batch: every file is processed exactly once', () => withPipeline(async (db, p) => {
    expect((await p.upload('mestre.xlsx', await buildRelatorio18({ rows: 50 }), XLSX)).statusCode).toBe(202);
    await p.drain();
    const metas = await Promise.all([1, 2, 3, 4, 5, 6].map((m) => buildMeta({ rows: 10,
      linhas: [{ competencia: new Date(Date.UTC(2025, m, 1)), vendedor: 10, produto: 'X', meta_volume: m, meta_margem: 0.1 }] })));
    const res = await p.upload('metas.zip', makeZip(metas.map((data, i) => ({ name: `meta-${i}.xlsx`, data }))));
    expect(res.statusCode).toBe(202);
    await p.drain();
    const { rows } = await db.pool.query(`select status, execucoes, worker from xls_processamento where tipo = 'META'`);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.status === 'SUCESSO' && r.execucoes === 1)).toBe(true);
  }, { replicas: 2, concurrency: 2 }));
});

describe('the files of a zip', () => {
  it('are processed at the same time: with the merge lock held elsewhere, two are PROCESSANDO and waiting at once; both succeed once it is released',
    () => withPipeline(async (db, p) => {
      expect((await p.upload('mestre.xlsx', await buildRelatorio18({ rows: 20 }), XLSX)).statusCode).toBe(202);
      await p.drain();
      const metas = await Promise.all([1, 2].map((m) => buildMeta({ rows: 5,
        linhas: [{ competencia: new Date(Date.UTC(2025, m, 1)), vendedor: 10, produto: 'X', meta_volume: m, meta_margem: 0.1 }] })));
      const trava = await db.pool.connect();
      try {
        // the lock app.xls_travar takes for bi_meta: every META merge waits for it, after reading its file
        await trava.query(`select pg_advisory_lock(hashtextextended('xls_merge:bi_meta', 0))`);
        expect((await p.upload('metas.zip', makeZip(metas.map((data, i) => ({ name: `meta-${i}.xlsx`, data }))))).statusCode).toBe(202);
        const esperando = async () => (await db.pool.query(`select count(*)::int n from pg_stat_activity
          where wait_event_type = 'Lock' and wait_event = 'advisory' and pid <> $1`, [backendPid(trava)])).rows[0].n as number;
        const limite = Date.now() + 15_000;
        while (await esperando() < 2) {
          if (Date.now() > limite) throw new Error(`os arquivos do zip não foram processados ao mesmo tempo: ${await esperando()} à espera`);
          await new Promise((r) => setTimeout(r, 25));
        }
        expect((await db.pool.query(`select count(*)::int n from xls_processamento where tipo = 'META' and status = 'PROCESSANDO'`)).rows[0].n).toBe(2);
      } finally {
        await trava.query('select pg_advisory_unlock_all()');
        trava.release();
      }
      await p.drain();
      const { rows } = await db.pool.query(`select status, execucoes from xls_processamento where tipo = 'META'`);
      expect(rows).toEqual([{ status: 'SUCESSO', execucoes: 1 }, { status: 'SUCESSO', execucoes: 1 }]);
    }, { replicas: 1, concurrency: 2 }));
});

describe('restart recovery', () => {
  it('at boot, PROCESSANDO of a dead worker becomes ERRO and PENDENTE without a job is queued again', async () => {
    const db = await createTestDatabase();
    try {
      const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' }, autostart: false });
      const a = (await p.upload('a.xlsx', await buildRelatorio18({ rows: 4 }), XLSX)).json().itens[0].processamentoId;
      const b = (await p.upload('b.xlsx', await buildRelatorio18({ rows: 6 }), XLSX)).json().itens[0].processamentoId;
      await p.close();
      // a: claimed by a replica that died; b: its job was lost
      await db.pool.query(`select app.worker_heartbeat('morto', 'h', 1)`);
      await db.pool.query(`update app.worker set heartbeat_at = now() - interval '1 hour' where id = 'morto'`);
      await db.pool.query(`select * from xls_iniciar($1, 'morto')`, [a]);
      await db.pool.query(`delete from app.job where payload ->> 'id' = $1`, [b]);
      const svc = await startService(testEnv(db, { S3_FILE_STORAGE: 'PSQL', JOBS_POLL_INTERVAL_MS: '100' }), { migrate: false });
      try {
        expect((await db.pool.query('select status from xls_processamento where id = $1', [a])).rows[0].status).toBe('ERRO');
        const deadline = Date.now() + 20_000;
        let status = '';
        while (Date.now() < deadline && status !== 'SUCESSO') {
          status = (await db.pool.query('select status from xls_processamento where id = $1', [b])).rows[0].status;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(status).toBe('SUCESSO');
      } finally {
        await svc.stop();
      }
    } finally {
      await db.drop();
    }
  });
});
