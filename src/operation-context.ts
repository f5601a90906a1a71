/**
 * The net under every request and job: a promise rejection that nobody handled must not end
 * the process (Node's default since 15). The order platform switches its webhook off after
 * one failed delivery, so the main process must keep serving whatever one upload's bytes do.
 *
 * Each HTTP request and each job runs inside an *operation* (AsyncLocalStorage). Node runs an
 * `unhandledRejection` listener in the async context of the promise that was rejected, so the
 * net knows which operation the stray rejection belonged to: it logs it at ERROR (which the
 * error tracker reports) and fails that operation — a request not yet answered gets a 500
 * problem+json, a job fails as if its handler had thrown. A rejection outside any operation
 * (a timer of the process itself) is logged and reported the same way.
 *
 * Only rejections: an exception thrown synchronously from a callback (`uncaughtException`)
 * leaves the process in an unknown state and still ends it (the platform's retry and the
 * spool cover a restart); the code that handles upload bytes is written so that neither
 * happens (zip.ts, cfb.ts, the fuzz test).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Operation {
  kind: 'request' | 'job';
  /** `POST /api/xls/processar`, `job 42 (xls.processar)`: what the log line names */
  label: string;
  /** ends the operation with this error (idempotent: the first failure wins) */
  fail(err: Error): void;
}

interface NetLogger {
  error(obj: object, msg: string): void;
}

const storage = new AsyncLocalStorage<Operation>();
const reported = new WeakSet<Error>();

/** Marks an error the net already logged at ERROR: the request's error handler or the job runner does not log it again. */
export function markReported(err: Error): Error {
  reported.add(err);
  return err;
}

export function alreadyReported(err: unknown): boolean {
  return err instanceof Error && reported.has(err);
}

/** Runs `fn` as one operation: a stray rejection in anything it starts fails it. */
export function runOperation<T>(op: Operation, fn: () => T): T {
  return storage.run(op, fn);
}

/** Makes the rest of the current execution (a fastify hook chain) one operation. */
export function enterOperation(op: Operation): void {
  storage.enterWith(op);
}

export function currentOperation(): Operation | undefined {
  return storage.getStore();
}

/** What the net does with one stray rejection (exported for the test of its decisions). */
export function handleStrayRejection(reason: unknown, log: NetLogger): void {
  const err = markReported(reason instanceof Error ? reason : new Error(`rejeição sem Error: ${String(reason)}`));
  const op = storage.getStore();
  log.error({ err, operacao: op?.label ?? null }, op
    ? `rejeição de promise não tratada em ${op.label}: a operação falhou; o processo continua`
    : 'rejeição de promise não tratada fora de uma requisição ou job; o processo continua');
  try {
    op?.fail(err);
  } catch (failErr) {
    log.error({ err: failErr }, 'falha ao encerrar a operação da rejeição não tratada');
  }
}

let installed: ((reason: unknown) => void) | null = null;

/**
 * Installs the net once per process (a second service in the same process — tests — shares
 * it; the last logger installed is the one used).
 */
export function installRejectionNet(log: NetLogger): () => void {
  if (installed) process.off('unhandledRejection', installed);
  const listener = (reason: unknown) => handleStrayRejection(reason, log);
  installed = listener;
  process.on('unhandledRejection', listener);
  return () => {
    if (installed === listener) {
      process.off('unhandledRejection', listener);
      installed = null;
    }
  };
}
