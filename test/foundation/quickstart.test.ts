/**
 * `npm start` on embedded defaults: its own Postgres and object store (a child process)
 * under the data directory, migrations, printed URL, tokens and development secrets of every
 * page, and one line saying it runs without a sync engine (SYNC_ENGINE_CMD unset); without
 * HOST nor OIDC it listens on loopback only and says so; Ctrl-C stops everything, even while
 * the service is busy at that instant; a second start reuses the data.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

interface Started { out: () => string; base: string; token: string; pgPort: number; s3Port: number; pgid: number; stop(): Promise<number | null>; kill(): Promise<void> }

async function start(dataDir: string, host: string | undefined = '127.0.0.1'): Promise<Started> {
  // in a process group of its own, like a terminal's foreground job: Ctrl-C is a SIGINT
  // to the whole group
  const child = spawn(process.execPath, ['scripts/bootstrap.mjs', 'start'], {
    cwd: projectRoot,
    detached: true,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, APP_DATA_DIR: dataDir, EMBEDDED_PG_PORT: '0', EMBEDDED_S3_PORT: '0', PORT: '0', ...(host ? { HOST: host } : {}), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const deadline = Date.now() + 60_000;
  while (!out.includes('Ctrl-C')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start não ficou pronto:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const base = /serviço:\s+(\S+)/.exec(out)![1]!;
  const token = /token da API:\s+(\S+)/.exec(out)![1]!;
  const pgPort = Number(/127\.0\.0\.1:(\d+)/.exec(out)![1]);
  const s3Port = Number(/object store embutido em http:\/\/127\.0\.0\.1:(\d+) \(processo \d+/.exec(out)![1]);
  return {
    out: () => out, base, token, pgPort, s3Port, pgid: child.pid!,
    stop: async () => { process.kill(-child.pid!, 'SIGINT'); return exited; },
    kill: async () => { process.kill(-child.pid!, 'SIGKILL'); await exited; },
  };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

async function portClosesWithin(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await portOpen(port))) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

describe('npm start on embedded defaults', () => {
  it('serves, prints URL and tokens, stops everything on Ctrl-C, and reuses its data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bi-start-'));
    chmodSync(dataDir, 0o755); // the embedded Postgres runs as the postgres user when we are root
    try {
      const first = await start(dataDir);
      expect(first.out()).toContain('criando cluster Postgres');
      expect(first.out()).toContain('object store embutido');
      // without SYNC_ENGINE_CMD: no engine, in one line that says how to have one
      expect(first.out().match(/motor de sincronização: .*/g)).toEqual([
        'motor de sincronização: nenhum (defina SYNC_ENGINE_CMD com o comando do motor para rodá-lo junto; docs/replicacao.md)',
      ]);
      const health = await fetch(`${first.base}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'UP', versao: expect.any(String) });
      const api = await fetch(`${first.base}/api/comercial/configuracoes`, { headers: { authorization: `Bearer ${first.token}` } });
      expect(api.status).toBe(200);
      const chaves = ((await api.json()) as { totalSize: number }).totalSize;
      expect(chaves).toBeGreaterThanOrEqual(2);
      expect(await first.stop()).toBe(0);
      expect(await portOpen(first.pgPort)).toBe(false);
      // the service released its jobs and closed its connections before Postgres stopped:
      // the terminal's SIGINT did not reach Postgres
      expect(first.out()).toContain('encerrando');
      expect(first.out()).not.toMatch(/57P01|terminating connection|falha ao encerrar/);
      const pgLog = readFileSync(join(dataDir, 'pg', 'postgres.log'), 'utf8');
      expect(pgLog).not.toContain('terminating connection due to administrator command');

      // development secrets for every page, printed and kept beside the tokens
      const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
      expect(Object.keys(secrets).sort()).toEqual(['BI_COMERCIAL_XLS_API_TOKEN', 'ERP_SYNC_ACCESS_TOKEN', 'REPLICATOR_CONFIRM_SECRET', 'XLS_IMPORTAR_TOKEN']);
      expect(first.out()).toContain(`importação:     ${first.base}/xls/importar?k=${encodeURIComponent(secrets.XLS_IMPORTAR_TOKEN!)}`);
      expect(first.out()).toContain(`reset (X-Confirm-Nuke): ${secrets.REPLICATOR_CONFIRM_SECRET}`);

      // without HOST and without OIDC (screens open without login): loopback only, and it says so
      const second = await start(dataDir, undefined);
      expect(second.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(second.out()).toContain('telas SEM LOGIN (OIDC_* não definidas): escutando só em 127.0.0.1');
      expect(second.out()).toMatch(/Server listening at http:\/\/127\.0\.0\.1:\d+/);
      expect(second.out()).not.toMatch(/Server listening at http:\/\/(?!127\.0\.0\.1)/);
      const importar = await fetch(`${second.base}/xls/importar?k=${encodeURIComponent(secrets.XLS_IMPORTAR_TOKEN!)}`, { headers: { accept: 'text/html' } });
      expect(importar.status).toBe(200);
      expect(second.out()).not.toContain('criando cluster Postgres');
      expect(second.token).toBe(first.token);
      const again = await fetch(`${second.base}/api/comercial/configuracoes`, { headers: { authorization: `Bearer ${second.token}` } });
      // the same database again: the same keys, no second seeding
      expect(((await again.json()) as { totalSize: number }).totalSize).toBe(chaves);
      expect(await second.stop()).toBe(0);

      // a crash of the service (and of npm with it) does not leave Postgres orphaned
      const third = await start(dataDir);
      expect(await portOpen(third.pgPort)).toBe(true);
      expect(await portOpen(third.s3Port)).toBe(true);
      await third.kill();
      expect(await portClosesWithin(third.pgPort, 20_000)).toBe(true);
      // nor the object store, a child process of its own
      expect(await portClosesWithin(third.s3Port, 20_000)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('Ctrl-C while the service is busy (its event loop held 300 ms) still shuts it down cleanly: exit 0, nothing killed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bi-start-'));
    chmodSync(dataDir, 0o755);
    try {
      const s = await start(dataDir);
      // the process running the service: the deepest process of the group whose command runs start.ts
      const proc = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return { pid: Number(pid), ppid: Number(f[1]), pgid: Number(f[2]), cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
        } catch { return null; }
      }).filter((p): p is { pid: number; ppid: number; pgid: number; cmd: string } => p !== null && p.pgid === s.pgid && p.cmd.includes('src/embedded/start.ts'));
      const service = proc.find((p) => !proc.some((q) => q.ppid === p.pid));
      expect(service).toBeDefined();
      // busy = not running at all for 300 ms (SIGSTOP): the Ctrl-C arrives meanwhile
      process.kill(service!.pid, 'SIGSTOP');
      const exited = s.stop();
      await new Promise((r) => setTimeout(r, 300));
      process.kill(service!.pid, 'SIGCONT');
      expect(await exited).toBe(0);
      expect(s.out()).toContain('encerrando');
      expect(await portOpen(s.pgPort)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
