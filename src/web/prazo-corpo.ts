/**
 * How long a request may take to arrive, on every route (docs/configuration.md, "Core").
 * Node holds a request whose body never finishes for its default 300 s (requestTimeout); here:
 *
 * - a body that receives no byte for HTTP_CORPO_OCIOSO_MS (30 s) is answered 408;
 * - a body that, once twice HTTP_CORPO_OCIOSO_MS have passed, averages under
 *   HTTP_CORPO_TAXA_MIN_BYTES a second (64 KiB/s) is answered 408 too (a byte every few seconds
 *   is no upload);
 * - a request answered before its body arrived (a 401, a 415) whose body then stalls or
 *   trickles has its connection closed (Node would wait for the rest of the body);
 * - the headers must arrive within HTTP_CORPO_OCIOSO_MS (Node's headersTimeout);
 * - Node's total requestTimeout stays as a backstop, set so that the largest upload
 *   (XLS_UPLOAD_MAX_BYTES) at the minimum rate still fits: an honest upload of any size is
 *   never cut by a total, only a stalled or trickling one is.
 *
 * The arrival is watched on the socket's byte count (nothing reads the body here, so the
 * route's own parsing is untouched). The 408 is problem+json with `Connection: close`, written
 * on the socket (as Node writes its own 408), which is then closed; the route sees its body cut
 * (`corpoExpirado` on the request says why: the upload routes record the refusal as a 408).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_TITLES } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the request's body was cut by the arrival limits (a 408 was answered), if it was. */
    corpoExpirado?: string;
  }
}

export interface PrazoCorpo { ociosoMs: number; taxaMinBytes: number }

const temCorpo = (req: FastifyRequest): boolean => {
  const cl = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (cl !== undefined && cl !== '0');
};

const segundos = (ms: number) => `${(ms / 1000).toLocaleString('pt-BR')} s`;

async function prazoCorpo(app: FastifyInstance, o: PrazoCorpo) {
  const passo = Math.max(20, Math.min(1000, Math.floor(o.ociosoMs / 4)));
  app.addHook('onRequest', (req, reply, done) => {
    const raw = req.raw;
    const sock = raw.socket;
    if (!temCorpo(req) || raw.complete || !sock) { done(); return; }
    const t0 = Date.now();
    const inicio = sock.bytesRead;
    let visto = inicio;
    let vistoEm = t0;
    const parar = () => clearInterval(timer);
    const timer = setInterval(() => {
      if (raw.complete || sock.destroyed) { parar(); return; }
      const agora = Date.now();
      const lidos = sock.bytesRead;
      if (lidos !== visto) { visto = lidos; vistoEm = agora; }
      let motivo: string | null = null;
      if (agora - vistoEm >= o.ociosoMs) {
        motivo = `o corpo da requisição ficou ${segundos(o.ociosoMs)} sem receber dados (limite HTTP_CORPO_OCIOSO_MS); nada foi gravado — envie de novo`;
      } else if (o.taxaMinBytes > 0 && agora - t0 >= 2 * o.ociosoMs && ((lidos - inicio) * 1000) / (agora - t0) < o.taxaMinBytes) {
        motivo = `o corpo da requisição chega devagar demais (menos de ${(o.taxaMinBytes / 1024).toLocaleString('pt-BR')} KiB/s em média; `
          + 'limite HTTP_CORPO_TAXA_MIN_BYTES); nada foi gravado — envie de novo de uma conexão melhor';
      }
      if (motivo === null) return;
      parar();
      req.corpoExpirado = motivo;
      if (reply.raw.headersSent) {
        // answered before its body arrived (a 401, a 415): only the connection is left to close
        req.log.info({ recebidos: lidos - inicio, ms: agora - t0 }, `conexão encerrada: ${motivo}`);
        sock.destroy();
        return;
      }
      req.log.warn({ recebidos: lidos - inicio, ms: agora - t0 }, `requisição encerrada: ${motivo}`);
      const corpo = JSON.stringify({ type: 'about:blank', title: STATUS_TITLES[408] ?? 'Tempo esgotado', status: 408, detail: motivo, instance: req.url.split('?')[0] ?? null });
      sock.end(`HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(corpo)}\r\n`
        + `Connection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n${corpo}`);
      // the body stream ends with an error now: the route fails, its answer goes nowhere
      setTimeout(() => sock.destroy(), 1000).unref();
    }, passo);
    timer.unref();
    sock.once('close', parar);
    // a body read to its end has arrived (app.inject's requests never set `complete`)
    raw.once('end', parar);
    done();
  });
}

export default fp(prazoCorpo, { name: 'prazo-corpo' });
