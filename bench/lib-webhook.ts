// @bench-helper
/** What the two webhook benches share: an order event's body and one POST /webhook/partner. */
import http from 'node:http';
import net from 'node:net';

export const WEBHOOK_SECRET = 'bench-secret';

/** An order.created event of the platform for `code`, as the platform sends it. */
export function orderEvent(code: string): string {
  const t = new Date().toISOString();
  return JSON.stringify({
    event: 'order.created', time: t,
    resource: {
      code, status: 'waiting_payment', total: 1234.56, paid_at: null, updated_at: t,
      customer: { name: 'Posto Bench', email: 'bench@posto.example', document: '12345678000195' },
      items: [{ sku: 'DIESEL-S10', quantity: 5000, price: 0.24691 }],
    },
  });
}

/** One delivery on loopback: its status (0 = the connection failed) and the id of a 200. */
export function postWebhook(port: number, payload: string, agent?: http.Agent): Promise<{ status: number; id: string | null }> {
  return new Promise((resolve) => {
    const failed = () => resolve({ status: 0, id: null });
    const req = http.request({
      host: '127.0.0.1', port, path: '/webhook/partner', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-partner-secret': WEBHOOK_SECRET },
    }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const status = r.statusCode ?? 0;
        resolve({ status, id: status === 200 ? (JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id : null });
      });
      r.on('error', failed);
    });
    req.on('error', failed);
    req.end(payload);
  });
}

/**
 * One keep-alive HTTP/1.1 connection to the service that sends deliveries one at a time (no
 * pipelining): each request is a real POST /webhook/partner with the secret and the whole
 * body, written at once; its answer is read to the end (status, Content-Length body) before
 * the next one. Far cheaper in CPU than node:http's client (no agent, no header objects,
 * no streams), so the load generator takes less of the cores it shares with the service and
 * Postgres; status 0 = the connection failed (it reconnects for the next request).
 */
export class WebhookConexao {
  private socket: net.Socket | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private waiting: ((r: { status: number; id: string | null }) => void) | null = null;

  constructor(private readonly port: number) {}

  post(payload: string): Promise<{ status: number; id: string | null }> {
    return new Promise((resolve) => {
      const s = this.socket ?? this.connect();
      this.waiting = resolve;
      s.write(`POST /webhook/partner HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\nContent-Type: application/json\r\n` +
        `X-Partner-Secret: ${WEBHOOK_SECRET}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): net.Socket {
    const s = net.connect({ host: '127.0.0.1', port: this.port, noDelay: true });
    this.socket = s;
    this.buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.parse();
    });
    const fail = () => {
      if (this.socket !== s) return; // an old connection's late event: the pending request is on the new one
      this.socket = null;
      s.destroy();
      this.answer({ status: 0, id: null });
    };
    s.on('error', fail);
    s.on('close', fail);
    return s;
  }

  private answer(r: { status: number; id: string | null }): void {
    const w = this.waiting;
    this.waiting = null;
    w?.(r);
  }

  /** One whole answer in the buffer: its status and, for a 200, the id of its JSON body. */
  private parse(): void {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buf.toString('latin1', 0, end);
    const len = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!len) throw new Error(`resposta sem Content-Length: ${head}`);
    const total = end + 4 + Number(len[1]);
    if (this.buf.length < total) return;
    const status = Number(head.slice(9, 12));
    const body = this.buf.toString('utf8', end + 4, total);
    this.buf = this.buf.subarray(total);
    this.answer({ status, id: status === 200 ? (JSON.parse(body) as { id: string }).id : null });
  }
}
