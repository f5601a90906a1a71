/**
 * A SIGKILL in the middle of a reset: the real entry point (src/main.ts) is killed while the
 * reset waits for the sync engine to stop; at the next boot the orphan rule ends the
 * execution in ERRO ('interrompida após reinício da aplicação', step_atual kept) and a new
 * reset can start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { startFakeSyncEngine, type FakeSyncEngine } from '../harness/sync-engine.js';
import { startFakeHosting, type FakeHosting } from '../harness/fake-hosting.js';
import { limpar, RESET_URL, SEGREDO } from './helpers.js';

let db: TestDatabase;
let engine: FakeSyncEngine;
let hosting: FakeHosting;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  engine = startFakeSyncEngine(db.url);
  hosting = await startFakeHosting(engine);
  hosting.ignoreSuspend = true; // the engine does not stop: the reset sits in AGUARDAR_PARADA
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await limpar(db.pool).catch(() => undefined);
  await engine?.close();
  await hosting?.close();
  await db?.drop();
});

function boot(): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const env = {
    ...testEnv(db), LOG_LEVEL: 'info', PATH: process.env.PATH,
    REPLICATOR_CONFIRM_SECRET: SEGREDO, REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_URL: hosting.url,
    REPLICATOR_HOSTING_API_KEY: hosting.apiKey, REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId,
    REPLICATOR_DOCSTORE_URL: `${db.url}?schema=powersync`, REPLICATOR_PARADA_LIMITE_S: '300', REPLICATOR_POLL_MS: '100',
    JOBS_POLL_INTERVAL_MS: '200', JOBS_SHUTDOWN_GRACE_MS: '200',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sem linha de listen: ${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1]!, out: () => out }); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`saiu ${code}: ${out}`)); });
  });
}

async function detalhe(url: string, id: string) {
  const res = await fetch(`${url}${RESET_URL}/${id}`, { headers: bearer() });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ status: string; stepAtual: string | null; erroMensagem: string | null; instrucoes: string | null }>;
}

async function iniciar(url: string) {
  return fetch(`${url}${RESET_URL}`, {
    method: 'POST', headers: { ...bearer(), 'x-confirm-nuke': SEGREDO, 'content-type': 'application/json' },
    body: JSON.stringify({ motivo: 'teste de SIGKILL' }),
  });
}

describe('SIGKILL in the middle of a reset', () => {
  it('the next boot applies the orphan rule; a new reset can start', async () => {
    await engine.start();
    const a = await boot();
    const res = await iniciar(a.url);
    expect(res.status).toBe(202);
    const id = ((await res.json()) as { id: string }).id;
    const deadline = Date.now() + 30_000;
    while ((await detalhe(a.url, id)).stepAtual !== 'AGUARDAR_PARADA') {
      if (Date.now() > deadline) throw new Error('o reset não chegou a AGUARDAR_PARADA');
      await new Promise((r) => setTimeout(r, 100));
    }
    const morto = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await morto;
    // nothing ended it: the process died in the middle
    const antes = await db.pool.query('select status, step_atual from xls_resetar_replicator where id = $1', [id]);
    expect(antes.rows[0]).toEqual({ status: 'EM_ANDAMENTO', step_atual: 'AGUARDAR_PARADA' });

    const b = await boot();
    const d = await detalhe(b.url, id);
    expect(d).toMatchObject({ status: 'ERRO', erroMensagem: 'interrompida após reinício da aplicação', stepAtual: 'AGUARDAR_PARADA' });
    expect(d.instrucoes).toMatch(/replicacao_slots/);
    const erro = b.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; resetId?: string })
      .find((l) => l.resetId === id);
    expect(erro?.level).toBe(50);

    const novo = await iniciar(b.url);
    expect(novo.status).toBe(202);
    const parado = new Promise((r) => b.child.once('exit', r));
    b.child.kill('SIGTERM');
    await parado;
  }, 300_000);
});
