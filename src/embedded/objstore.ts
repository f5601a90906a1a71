/**
 * An embedded S3-compatible object store (s3rver) for `npm start`, the tests and the
 * benchmarks, in a child process of its own (objstore-server.mjs): the service's memory
 * figures are then its own, and a test can stop the store (SIGSTOP/SIGKILL its pid) while
 * the service runs. The child is in a session of its own (the terminal's Ctrl-C does not
 * reach it) and stops when `stop()` is called or when this process dies (its stdin closes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../paths.js';

export interface EmbeddedObjectStore {
  endpoint: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** the child process serving the store */
  pid: number;
  stop(): Promise<void>;
}

export async function startEmbeddedObjectStore(opts: { directory: string; port?: number; bucket?: string }): Promise<EmbeddedObjectStore> {
  mkdirSync(opts.directory, { recursive: true });
  const bucket = opts.bucket ?? 'bi-comercial';
  const child: ChildProcess = spawn(process.execPath,
    [join(projectRoot, 'src', 'embedded', 'objstore-server.mjs'), opts.directory, String(opts.port ?? 0), bucket],
    { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      try { resolve(Number((JSON.parse(line) as { port: number }).port)); } catch (err) { reject(err); }
    });
    child.once('exit', (code, signal) => reject(new Error(`o object store embutido terminou ao iniciar (${signal ?? `código ${code}`})`)));
    child.once('error', reject);
  });
  child.stdout!.resume();
  // the child must not keep this process alive; it dies with it
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    // s3rver accepts these fixed development credentials
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    bucket,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try { process.kill(child.pid!, 'SIGCONT'); } catch { /* gone */ }
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
