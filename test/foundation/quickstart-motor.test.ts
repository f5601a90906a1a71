/**
 * `npm start` with SYNC_ENGINE_CMD runs the sync engine as a child (src/embedded/motor.ts) —
 * here the stand-in of the tests (test/harness/motor-substituto.mjs: CI has no engine) —
 * with the repository's configuration and its PS_ variables; it prints the engine's URL in
 * one line and writes it to .data/motor-url, keeps the engine's signing key and admin token
 * with the development secrets, and starts the service under REPLICATOR_RESTART=hosting
 * against its local endpoint: a reset through the API runs every step and ends SUCESSO,
 * suspending and resuming the child. Ctrl-C stops the engine too.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { ambienteDoMotor, MOTOR_CONFIG } from '../../src/embedded/motor.js';
import { substitutoCmd } from '../harness/substituto-cmd.js';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

describe('npm start with SYNC_ENGINE_CMD', () => {
  it('runs the engine as a child, and a reset through the API stops and starts it through the local hosting endpoint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bi-start-motor-'));
    chmodSync(dataDir, 0o755); // the embedded Postgres runs as the postgres user when we are root
    const info = join(dataDir, 'substituto.json');
    const child = spawn(process.execPath, ['scripts/bootstrap.mjs', 'start'], {
      cwd: projectRoot,
      detached: true,
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, APP_DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info',
        EMBEDDED_PG_PORT: '0', EMBEDDED_S3_PORT: '0', PORT: '0', EMBEDDED_SYNC_ENGINE_PORT: '0',
        SYNC_ENGINE_CMD: substitutoCmd(), PS_SUBSTITUTO_INFO: info, REPLICATOR_POLL_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!out.includes('Ctrl-C')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start não ficou pronto:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const base = /serviço:\s+(\S+)/.exec(out)![1]!;
      const linha = /motor de sincronização: (http:\/\/127\.0\.0\.1:(\d+))  \(log: (\S+);/.exec(out);
      expect(linha, out).not.toBeNull();
      const [, url, porta, log] = linha!;
      expect(out).not.toContain('NÃO respondeu');
      expect(readFileSync(join(dataDir, 'motor-url'), 'utf8').trim()).toBe(url);
      expect(log).toBe(join(dataDir, 'logs', 'motor.log'));
      expect((await fetch(`${url}/probes/liveness`)).status).toBe(200);

      // the repository's configuration, with every PS_ variable it names
      const recebido = JSON.parse(readFileSync(info, 'utf8')) as { args: string[]; ps: string[] };
      expect(recebido.args).toEqual(['start', '-c', MOTOR_CONFIG]);
      expect(recebido.ps).toEqual(Object.keys(ambienteDoMotor({ sourceUri: '', storageUri: '', port: 0, jwtSecret: '', apiToken: '' })).sort());

      const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
      expect(secrets.SYNC_ENGINE_JWT_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
      expect(secrets.SYNC_ENGINE_API_TOKEN).toMatch(/^dev-motor-/);

      // a reset through the API: hosting, against the local endpoint, every step
      const api = { authorization: `Bearer ${secrets.BI_COMERCIAL_XLS_API_TOKEN}` };
      const res = await fetch(`${base}/api/transporte/admin/resetar-replicator`, {
        method: 'POST',
        headers: { ...api, 'x-confirm-nuke': secrets.REPLICATOR_CONFIRM_SECRET!, 'content-type': 'application/json' },
        body: JSON.stringify({ motivo: 'teste do motor filho' }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
      const { id } = (await res.json()) as { id: string };
      let d: { status: string; estrategia: string; passos: Array<{ step: string; status: string; mensagem: string }> };
      const fim = Date.now() + 90_000;
      for (;;) {
        d = (await (await fetch(`${base}/api/transporte/admin/resetar-replicator/${id}`, { headers: api })).json()) as typeof d;
        if (d.status !== 'EM_ANDAMENTO' || Date.now() > fim) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(d.status, JSON.stringify(d.passos, null, 1)).toBe('SUCESSO');
      expect(d.estrategia).toBe('hosting');
      expect(d.passos.filter((p) => p.status !== 'SUCESSO')).toEqual([]);
      expect(out).toContain('motor: suspenso pela API local de hospedagem');
      expect(out).toContain('motor: retomado pela API local de hospedagem');
      expect((await fetch(`${url}/probes/liveness`)).status).toBe(200);

      // Ctrl-C: the service, then the engine
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(await portOpen(Number(porta))).toBe(false);
      expect(existsSync(join(dataDir, 'motor-url'))).toBe(false);
      expect(out).not.toContain('inesperadamente');
      expect(readFileSync(log!, 'utf8')).toMatch(/motor parado ===\s*$/);
    } finally {
      if (child.exitCode === null) { process.kill(-child.pid!, 'SIGKILL'); await exited; }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
