/**
 * The dedicated LISTEN connection (pg-listen). NOTIFY is a wake-up hint, never data:
 * after any reconnect every `onReconnect` callback runs so that callers re-query the
 * state they may have missed while the connection was down.
 */
import pgListenModule, { type Subscriber } from 'pg-listen';
import type { FastifyBaseLogger } from 'fastify';

// pg-listen is CommonJS with `exports.default`: unwrap it under both ESM loaders.
type CreateSubscriber = typeof pgListenModule extends { default: infer F } ? F : typeof pgListenModule;
const createSubscriber = ((pgListenModule as unknown as { default?: unknown }).default ?? pgListenModule) as CreateSubscriber;

export interface Listener {
  on(channel: string, handler: (payload: string) => void): Promise<void>;
  onReconnect(cb: () => void): void;
  close(): Promise<void>;
  /** for tests and the health report */
  readonly connected: boolean;
  readonly reconnects: number;
}

export function backoffMs(attempt: number): number {
  return Math.min(100 * 2 ** Math.max(attempt - 1, 0), 10_000);
}

export async function createListener(databaseUrl: string, log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
  opts: { paranoidCheckingMs?: number } = {}): Promise<Listener> {
  const subscriber: Subscriber<Record<string, string>> = createSubscriber(
    { connectionString: databaseUrl, application_name: 'bi-comercial-listen', keepAlive: true },
    {
      parse: (s: string) => s,
      serialize: (s: unknown) => String(s),
      retryLimit: Infinity,
      retryTimeout: 0, // never give up: keep retrying with backoff
      retryInterval: backoffMs,
      paranoidChecking: opts.paranoidCheckingMs ?? 15_000,
    },
  );
  const reconnectCbs: Array<() => void> = [];
  let connected = false;
  let reconnects = 0;
  let first = true;

  subscriber.events.on('connected', () => {
    connected = true;
    if (first) { first = false; return; }
    reconnects += 1;
    log.info({ reconnects }, 'conexão LISTEN restabelecida; consultando trabalho pendente');
    for (const cb of reconnectCbs) {
      try { cb(); } catch (err) { log.error({ err }, 'falha ao reconsultar após reconexão'); }
    }
  });
  subscriber.events.on('reconnect', (attempt: number) => {
    connected = false;
    log.warn({ attempt }, 'conexão LISTEN perdida; reconectando');
  });
  subscriber.events.on('error', (err: Error) => {
    connected = false;
    log.error({ err }, 'erro na conexão LISTEN');
  });

  await subscriber.connect();
  connected = true;
  first = false;

  return {
    async on(channel, handler) {
      subscriber.notifications.on(channel, (payload: unknown) => handler(String(payload ?? '')));
      await subscriber.listenTo(channel);
    },
    onReconnect(cb) { reconnectCbs.push(cb); },
    async close() { await subscriber.close(); },
    get connected() { return connected; },
    get reconnects() { return reconnects; },
  };
}
