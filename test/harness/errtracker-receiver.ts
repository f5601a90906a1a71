/** A local error-tracker ingest: accepts Sentry envelopes over HTTP and keeps them. */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { waitForItem } from './wait.js';

export interface ReceivedEvent {
  type: string;
  /** the project of the DSN, from the envelope URL */
  project?: string;
  level?: string;
  message?: string;
  exception?: { values?: Array<{ type?: string; value?: string }> };
  [k: string]: unknown;
}

export interface ErrtrackerReceiver {
  dsn: string;
  events: ReceivedEvent[];
  waitFor(pred: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

export async function startErrtrackerReceiver(): Promise<ErrtrackerReceiver> {
  const events: ReceivedEvent[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const route = /^\/api\/([^/]+)\/envelope\/?$/.exec((req.url ?? '').split('?')[0]!);
      if (route) {
        // envelope: header line, then (item header, item payload) pairs
        const lines = body.toString('utf8').split('\n');
        for (let i = 1; i + 1 < lines.length; i += 2) {
          try {
            const itemHeader = JSON.parse(lines[i]!) as { type: string };
            if (itemHeader.type !== 'event') continue;
            const ev = JSON.parse(lines[i + 1]!) as Omit<ReceivedEvent, 'message'> & { message?: string | { formatted?: string } };
            // the SDK sends a plain message or {formatted}; tests read a string
            const message = typeof ev.message === 'string' ? ev.message : ev.message?.formatted;
            events.push({ ...ev, type: 'event', project: route[1], message });
          } catch { /* not an item we read */ }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    dsn: `http://publickey@127.0.0.1:${port}/1`,
    events,
    waitFor: (pred, timeoutMs = 5000) => waitForItem(events, pred, timeoutMs,
      () => `nenhum evento esperado chegou em ${timeoutMs} ms (recebidos: ${events.length})`),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
