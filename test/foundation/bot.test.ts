import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startFakeBot, type FakeBot } from '../harness/fake-bot.js';
import { testEnv } from '../harness/service.js';
import { loadConfig } from '../../src/config.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/handlers.js';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
let db: TestDatabase;
let bot: FakeBot;
beforeAll(async () => { db = await createTestDatabase(); bot = await startFakeBot(); });
afterAll(async () => { await db?.drop(); await bot?.close(); });

describe('messaging bot', () => {
  it('a message queued in SQL goes out only if its transaction commits, and is retried when the bot fails', async () => {
    const { config } = loadConfig(testEnv(db, { BOT_TOKEN: bot.token, BOT_CHAT_ID: '-100', BOT_API_URL: bot.url }));
    const client = await db.pool.connect();
    await client.query('begin');
    await client.query(`select app.notificar_bot('desfeita')`);
    await client.query('rollback');
    client.release();
    await db.pool.query(`select app.notificar_bot('Processamento concluído ✅')`);
    bot.failNext(502);
    const runner = new JobRunner(db.pool, jobHandlers({ config, pool: db.pool, version: 't', commit: null, objstore: null }), log,
      { concurrency: 1, pollIntervalMs: 100, workerId: 'bot' });
    await runner.start(null);
    // the first attempt fails (502); the retry comes after the backoff
    await db.pool.query(`update app.job set run_at = now() where kind = 'bot_mensagem'`);
    const deadline = Date.now() + 10_000;
    while (bot.messages.length === 0 && Date.now() < deadline) {
      await db.pool.query(`update app.job set run_at = now() where kind = 'bot_mensagem' and status = 'pending'`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await runner.stop(1000);
    expect(bot.messages).toEqual([{ chat_id: '-100', text: 'Processamento concluído ✅', disable_web_page_preview: true }]);
    const { rows } = await db.pool.query(`select status, attempts from app.job where kind = 'bot_mensagem'`);
    expect(rows).toEqual([{ status: 'done', attempts: 2 }]);
  });

  it('BOT_TOKEN without BOT_CHAT_ID refuses the boot', () => {
    expect(() => loadConfig(testEnv(db, { BOT_TOKEN: 'x' }))).toThrowError(/BOT_CHAT_ID/);
  });
});
