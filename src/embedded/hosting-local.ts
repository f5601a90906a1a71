/**
 * A local endpoint speaking the hosting platform's REST API (Render's three calls, the ones
 * src/replicacao/hosting.ts makes under REPLICATOR_RESTART=hosting) for `npm start`'s child
 * sync engine, so that a reset started in development stops and starts the engine the way
 * it does in production:
 *   GET  /v1/services/{id}          -> 200 {id, name, type, suspended: "suspended" | "not_suspended"}
 *   POST /v1/services/{id}/suspend  -> 202, then stops the engine
 *   POST /v1/services/{id}/resume   -> 202, then starts it again
 * with `Authorization: Bearer <key>` (401 otherwise); another id is 404, another route 404,
 * another method 405. Listens on 127.0.0.1 only.
 */
import http from 'node:http';

/** What the endpoint drives: the child engine. */
export interface ServicoControlado {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface HostingLocal {
  /** base URL, as REPLICATOR_HOSTING_API_URL */
  url: string;
  apiKey: string;
  serviceId: string;
  readonly suspended: boolean;
  /** resolves when the last suspend/resume has been carried out */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startHostingLocal(servico: ServicoControlado, opts: {
  apiKey: string;
  serviceId: string;
  name?: string;
  port?: number;
  log?: (msg: string) => void;
}): Promise<HostingLocal> {
  let suspended = false;
  // suspend and resume are carried out one after the other, in the order they arrived
  let fila: Promise<void> = Promise.resolve();
  const enfileirar = (what: string, fn: () => Promise<void>) => {
    fila = fila.then(fn).catch((err: unknown) => {
      opts.log?.(`motor: falha ao ${what}: ${err instanceof Error ? err.message : String(err)}`);
    });
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(body === null ? '' : JSON.stringify(body));

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${opts.apiKey}`) return json(res, 401, { id: 'unauthorized', message: 'unauthorized' });
      const m = /^\/v1\/services\/([^/?]+)(?:\/(suspend|resume))?\/?(?:\?.*)?$/.exec(req.url ?? '');
      if (!m) return json(res, 404, { id: 'not_found', message: 'not found' });
      if (decodeURIComponent(m[1]!) !== opts.serviceId) return json(res, 404, { id: 'not_found', message: 'service not found' });
      const acao = m[2];
      if (!acao) {
        if (req.method !== 'GET') return json(res, 405, { id: 'method_not_allowed', message: 'method not allowed' });
        return json(res, 200, {
          id: opts.serviceId, name: opts.name ?? 'motor-sincronizacao', type: 'web_service',
          suspended: suspended ? 'suspended' : 'not_suspended', suspenders: suspended ? ['user'] : [],
        });
      }
      if (req.method !== 'POST') return json(res, 405, { id: 'method_not_allowed', message: 'method not allowed' });
      // like the platform: accepted at once, carried out afterwards
      json(res, 202, null);
      if (acao === 'suspend') {
        suspended = true;
        enfileirar('suspender', async () => {
          opts.log?.('motor: suspenso pela API local de hospedagem (parando o processo)');
          await servico.stop();
        });
      } else {
        suspended = false;
        enfileirar('retomar', async () => {
          opts.log?.('motor: retomado pela API local de hospedagem (iniciando o processo)');
          await servico.start();
        });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey: opts.apiKey,
    serviceId: opts.serviceId,
    get suspended() { return suspended; },
    idle: () => fila,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
