/**
 * The real entry point (src/main.ts) as a child process, for fault tests: SIGKILL, SIGSTOP/
 * SIGCONT, a database restarted under it. Resolves once it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/paths.js';

export interface ServicoProcesso {
  child: ChildProcess;
  url: string;
  out(): string;
  /** the JSON log lines so far */
  logs(): Array<Record<string, unknown>>;
  /** sends `signal` and waits for the exit (SIGCONT first, in case it is stopped) */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const vivos = new Set<ChildProcess>();

/** `preload`: modules (paths from the project root) imported before src/main.ts, e.g. a deliberate break. */
export function startServicoProcesso(env: Record<string, string | undefined>, opts: { preload?: string[] } = {}): Promise<ServicoProcesso> {
  const preload = (opts.preload ?? []).flatMap((m) => ['--import', `./${m}`]);
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'src/main.ts'], {
    cwd: projectRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  vivos.add(child);
  child.once('exit', () => vivos.delete(child));
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sem linha de listen: ${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child, url: m[1]!, out: () => out,
          logs: () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return {}; } }),
          async stop(signal = 'SIGTERM') {
            if (child.exitCode !== null || child.signalCode !== null) return;
            try { process.kill(child.pid!, 'SIGCONT'); } catch { /* gone */ }
            child.kill(signal);
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`saiu ${code}: ${out}`)); });
  });
}

/** Kills every service process still running (afterAll). */
export function matarServicos(): void {
  for (const c of vivos) {
    try { process.kill(c.pid!, 'SIGCONT'); } catch { /* gone */ }
    c.kill('SIGKILL');
  }
}

/** Polls `fn` until it returns a value that is not undefined, or fails naming `what`. */
export async function ate<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`tempo esgotado esperando: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
