/** A local messaging-bot API: records sendMessage calls; can be told to fail. */
import http from 'node:http';
import { waitForItem } from './wait.js';

export interface FakeBot {
  url: string;
  token: string;
  messages: Array<{ chat_id: string; text: string }>;
  failNext(status: number, times?: number): void;
  waitFor(pred: (m: { text: string }) => boolean, timeoutMs?: number): Promise<{ chat_id: string; text: string }>;
  close(): Promise<void>;
}

export async function startFakeBot(token = '123:test-token'): Promise<FakeBot> {
  const messages: Array<{ chat_id: string; text: string }> = [];
  let failures: { status: number; times: number } | null = null;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== `/bot${token}/sendMessage`) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":404,"description":"Not Found"}');
        return;
      }
      if (failures && failures.times > 0) {
        failures.times -= 1;
        res.writeHead(failures.status, { 'content-type': 'application/json' }).end(`{"ok":false,"error_code":${failures.status}}`);
        return;
      }
      const msg = JSON.parse(body) as { chat_id: string; text: string };
      messages.push(msg);
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, result: { message_id: messages.length, text: msg.text } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    messages,
    failNext(status, times = 1) { failures = { status, times }; },
    waitFor: (pred, timeoutMs = 5000) => waitForItem(messages, pred, timeoutMs,
      () => `nenhuma mensagem esperada chegou ao bot (recebidas: ${messages.length})`),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
