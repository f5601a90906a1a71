// @bench-helper
/** What the two webhook benches share: an order event's body and one POST /webhook/partner. */
import http from 'node:http';

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
