/**
 * `npm start`'s child sync engine and the local endpoint speaking the hosting platform's API
 * (src/embedded/motor.ts, src/embedded/hosting-local.ts), with a stand-in for the engine
 * (test/harness/motor-substituto.mjs: a pg_recvlogical holding a prefixed slot active):
 * the reset's own client (src/replicacao/hosting.ts) suspends it (the slot goes inactive) and
 * resumes it (active again), GET reports `suspended`/`not_suspended` as Render does, a wrong
 * Bearer is 401 and another service 404; an engine that dies by itself is reported in one
 * line; and a whole reset under REPLICATOR_RESTART=hosting against that endpoint ends SUCESSO.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { slotAtivo, waitUntil } from '../harness/sync-engine.js';
import { substitutoCmd } from '../harness/substituto-cmd.js';
import { freePort } from '../../src/embedded/postgres.js';
import { aguardarMotor, MOTOR_CONFIG, processoMotor, type ProcessoMotor } from '../../src/embedded/motor.js';
import { startHostingLocal, type HostingLocal } from '../../src/embedded/hosting-local.js';
import { getService, HostingError, resumeService, suspendService, type HostingConfig } from '../../src/replicacao/hosting.js';
import { aguardar, iniciar, limpar, startServico, terminou, ultimoNuke } from './helpers.js';

let db: TestDatabase;
let dir: string;
let port: number;
let processo: ProcessoMotor;
let hosting: HostingLocal;
const avisos: string[] = [];
let cfg: HostingConfig;

const substituto = () => JSON.parse(readFileSync(join(dir, 'substituto.json'), 'utf8')) as { pid: number; args: string[]; slot: string; ps: string[] };

beforeAll(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'bi-motor-'));
  port = await freePort();
  processo = processoMotor({
    command: substitutoCmd(), config: MOTOR_CONFIG,
    // its storage in the test database itself (schema powersync), what VERIFICAR_PARIDADE reads
    env: { PS_DATA_SOURCE_URI: db.url, PS_STORAGE_URI: db.url, PS_PORT: String(port), PS_SUBSTITUTO_INFO: join(dir, 'substituto.json') },
    cwd: dir, logFile: join(dir, 'motor.log'), log: (m) => avisos.push(m),
  });
  hosting = await startHostingLocal(processo, { apiKey: 'rnd_local123', serviceId: 'srv-local123', log: (m) => avisos.push(m) });
  cfg = { apiUrl: hosting.url, apiKey: hosting.apiKey, serviceId: hosting.serviceId, timeoutMs: 5_000 };
  await processo.start();
  expect(await aguardarMotor(`http://127.0.0.1:${port}`, processo, 30_000)).toBe(true);
});

afterAll(async () => {
  await hosting?.close();
  await hosting?.idle();
  await processo?.stop();
  if (db) {
    await db.pool.query(`select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = current_database() and not active`).catch(() => undefined);
    await db.drop();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the local hosting endpoint of the child engine', () => {
  it('runs the command with `start -c <the repository configuration>` and the PS_* variables', async () => {
    const s = substituto();
    expect(s.args).toEqual(['start', '-c', MOTOR_CONFIG]);
    expect(s.ps).toEqual(['PS_DATA_SOURCE_URI', 'PS_PORT', 'PS_STORAGE_URI']);
    await waitUntil(() => slotAtivo(db.url, s.slot), 30_000, 'slot do substituto ativo');
  });

  it('GET reports not_suspended; suspend stops the engine (slot inactive), resume starts it (slot active), as Render', async () => {
    const { slot } = substituto();
    expect(await getService(cfg)).toEqual({ id: 'srv-local123', name: expect.any(String), suspended: 'not_suspended' });

    await suspendService(cfg);
    expect((await getService(cfg)).suspended).toBe('suspended');
    await waitUntil(async () => !(await slotAtivo(db.url, slot)), 30_000, 'slot inativo após suspend');
    await hosting.idle();
    expect(processo.running).toBe(false);

    await resumeService(cfg);
    expect((await getService(cfg)).suspended).toBe('not_suspended');
    await waitUntil(() => slotAtivo(db.url, slot), 30_000, 'slot ativo após resume');
    expect(processo.running).toBe(true);
    // a stop asked for is not an unexpected end
    expect(avisos.filter((a) => a.includes('inesperadamente'))).toEqual([]);
    expect(avisos).toEqual(expect.arrayContaining([expect.stringContaining('suspenso'), expect.stringContaining('retomado')]));
  });

  it('a wrong Bearer is 401 and changes nothing; another service is 404; another method 405', async () => {
    const { slot } = substituto();
    const errado = { ...cfg, apiKey: 'rnd_errada' };
    await expect(suspendService(errado)).rejects.toMatchObject({ name: 'HostingError', status: 401 });
    await expect(getService(errado)).rejects.toBeInstanceOf(HostingError);
    const semAuth = await fetch(`${hosting.url}/services/${cfg.serviceId}/suspend`, { method: 'POST' });
    expect(semAuth.status).toBe(401);
    await expect(getService({ ...cfg, serviceId: 'srv-outro' })).rejects.toMatchObject({ status: 404 });
    await expect(suspendService({ ...cfg, serviceId: 'srv-outro' })).rejects.toMatchObject({ status: 404 });
    const put = await fetch(`${hosting.url}/services/${cfg.serviceId}/suspend`, { method: 'PUT', headers: { authorization: `Bearer ${cfg.apiKey}` } });
    expect(put.status).toBe(405);
    await hosting.idle();
    expect(processo.running).toBe(true);
    expect(await slotAtivo(db.url, slot)).toBe(true);
  });

  it('an engine that dies by itself is reported in one line; resume starts it again', async () => {
    const { pid, slot } = substituto();
    process.kill(pid, 'SIGKILL');
    await waitUntil(async () => !processo.running, 10_000, 'guardião terminou');
    expect(avisos.filter((a) => a.includes('terminou inesperadamente'))).toEqual([
      expect.stringMatching(/motor de sincronização terminou inesperadamente \(código 137\); o serviço continua\. Veja .*motor\.log/),
    ]);
    // what it left in its group (the stand-in's pg_recvlogical) went with it
    await waitUntil(async () => !(await slotAtivo(db.url, slot)), 10_000, 'slot inativo após a morte do motor');
    await resumeService(cfg);
    await waitUntil(() => slotAtivo(db.url, slot), 30_000, 'slot ativo após resume');
    expect(readFileSync(join(dir, 'motor.log'), 'utf8')).toMatch(/motor terminou sozinho[\s\S]*motor iniciado/);
  });

  it('a reset under REPLICATOR_RESTART=hosting against it runs every step and ends SUCESSO', async () => {
    const antes = await ultimoNuke(db.pool);
    const svc = await startServico(db, db.pool, {
      REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_URL: hosting.url, REPLICATOR_HOSTING_API_KEY: hosting.apiKey,
      REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId, REPLICATOR_DOCSTORE_URL: `${db.url}?schema=powersync`,
      REPLICATOR_PARADA_LIMITE_S: '30', REPLICATOR_REPLICACAO_LIMITE_S: '60',
    });
    try {
      const res = await iniciar(svc.app);
      expect(res.statusCode, res.body).toBe(202);
      const d = await aguardar(svc.app, (res.json() as { id: string }).id, terminou, 120_000);
      expect(d.status, JSON.stringify(d.passos, null, 1)).toBe('SUCESSO');
      expect(d.passos.filter((p) => p.status !== 'SUCESSO')).toEqual([]);
      expect(d.passos.map((p) => p.step)).toEqual(expect.arrayContaining(['PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR']));
      expect(d.slotsRemovidos).toEqual([substituto().slot]);
      expect(d.slotNovo).toBe(substituto().slot);
      expect(await ultimoNuke(db.pool)).not.toBe(antes);
      expect(processo.running).toBe(true);
    } finally {
      await limpar(db.pool);
      await svc.close();
    }
  });
});
