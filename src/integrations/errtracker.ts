/**
 * Error tracker (Sentry protocol). Initialised once from ERRTRACKER_DSN; without a DSN every
 * call is a no-op. Reporting goes through the logger: every log at level ERROR or above is
 * reported (see `reportLog`), so a route never reports and logs twice.
 */
import * as Sentry from '@sentry/node';

let enabled = false;

export function initErrtracker(opts: { dsn: string | null; release: string; environment: string; commit: string | null }): void {
  if (!opts.dsn) return;
  Sentry.init({
    dsn: opts.dsn,
    release: opts.commit ? `${opts.release}+${opts.commit.slice(0, 12)}` : opts.release,
    environment: opts.environment,
    tracesSampleRate: 0,
    // we report through the logger and fastify's error handler; keep the process-level nets
    integrations: (defaults) => defaults.filter((i) => !['Http', 'NodeFetch', 'Console'].includes(i.name)),
  });
  enabled = true;
}

export function errtrackerEnabled(): boolean {
  return enabled;
}

/** Pino `logMethod` hook body: reports ERROR (50) and FATAL (60) logs. */
export function reportLog(level: number, args: unknown[]): void {
  if (!enabled || level < 50) return;
  const [first, second] = args;
  let err: unknown;
  let message: string | undefined;
  let extra: Record<string, unknown> = {};
  if (first instanceof Error) {
    err = first;
    message = typeof second === 'string' ? second : undefined;
  } else if (first && typeof first === 'object') {
    const o = first as Record<string, unknown>;
    err = o.err instanceof Error ? o.err : o.error instanceof Error ? o.error : undefined;
    message = typeof second === 'string' ? second : undefined;
    extra = Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'err' && k !== 'error' && k !== 'req' && k !== 'res'));
  } else if (typeof first === 'string') {
    message = first;
  }
  const level_ = level >= 60 ? 'fatal' : 'error';
  if (err) {
    Sentry.captureException(err, { level: level_, extra: { ...extra, ...(message ? { mensagem: message } : {}) } });
  } else {
    Sentry.captureMessage(message ?? 'erro sem mensagem', { level: level_, extra });
  }
}

/** A warning event that is not an error (e.g. the vehicle-registry defence). */
export function reportWarning(message: string, extra: Record<string, unknown> = {}, tags: Record<string, string> = {}): void {
  if (!enabled) return;
  Sentry.captureMessage(message, { level: 'warning', extra, tags });
}

export async function flushErrtracker(timeoutMs = 2000): Promise<boolean> {
  if (!enabled) return true;
  return Sentry.flush(timeoutMs);
}
