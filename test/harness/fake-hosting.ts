/**
 * A local fake of the hosting platform's REST API (Render's routes, under /v1):
 *   GET /v1/services/{id}, POST /v1/services/{id}/suspend, POST /v1/services/{id}/resume
 * with `Authorization: Bearer <key>`. Suspend stops the fake sync engine, resume starts it
 * again on a new slot, like the real platform restarting the engine's service.
 */
import http from 'node:http';
import type { FakeSyncEngine } from './sync-engine.js';

export interface FakeHosting {
  /** base URL to configure (REPLICATOR_HOSTING_API_URL) */
  url: string;
  apiKey: string;
  serviceId: string;
  calls: Array<{ method: string; path: string; auth: string | undefined }>;
  /** answer suspend with 202 but leave the engine running (an engine that will not stop) */
  ignoreSuspend: boolean;
  /** answer resume with this status instead of 202 */
  failResume: number | null;
  /** answer resume with 202 but never start the engine (an engine that does not come back) */
  ignoreResume: boolean;
  close(): Promise<void>;
}

export async function startFakeHosting(engine: FakeSyncEngine, opts: { apiKey?: string; serviceId?: string } = {}): Promise<FakeHosting> {
  const apiKey = opts.apiKey ?? 'rnd_testkey123';
  const serviceId = opts.serviceId ?? 'srv-motor123';
  let suspended = false;
  const fake: FakeHosting = {
    url: '', apiKey, serviceId, calls: [], ignoreSuspend: false, failResume: null, ignoreResume: false,
    close: async () => undefined,
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(body === null ? '' : JSON.stringify(body));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      fake.calls.push({ method: req.method ?? '', path: req.url ?? '', auth: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { id: 'unauthorized', message: 'unauthorized' });
      const m = /^\/v1\/services\/([^/]+)(\/(suspend|resume))?$/.exec(req.url ?? '');
      if (!m) return json(res, 404, { id: 'not_found', message: 'not found' });
      if (m[1] !== serviceId) return json(res, 404, { id: 'not_found', message: 'service not found' });
      if (req.method === 'GET' && !m[3]) {
        return json(res, 200, { id: serviceId, name: 'motor-sincronizacao', type: 'background_worker', suspended: suspended ? 'suspended' : 'not_suspended' });
      }
      if (req.method !== 'POST' || !m[3]) return json(res, 405, { message: 'method not allowed' });
      if (m[3] === 'suspend') {
        suspended = true;
        json(res, 202, null);
        if (!fake.ignoreSuspend) setTimeout(() => { void engine.stop(); }, 200);
        return;
      }
      if (fake.failResume) return json(res, fake.failResume, { id: 'error', message: 'resume failed' });
      suspended = false;
      json(res, 202, null);
      if (!fake.ignoreResume) setTimeout(() => { void engine.start().catch(() => undefined); }, 200);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  fake.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return fake;
}
