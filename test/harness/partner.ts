/**
 * Local stand-ins that speak the real protocols, for the order-webhook tests and bench:
 * a real SMTP server (smtp-server), an error-tracker receiver (Sentry envelopes over HTTP),
 * a fake of the order platform's REST API, a log capture, and a job-queue driver.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { JobRunner, type JobHandler } from '../../src/jobs/runner.js';

// ---------------------------------------------------------------------------------------
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  raw: string;
  /** the text part, quoted-printable decoded */
  text: string;
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const src = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '=' && /^[0-9A-F]{2}$/i.test(src.slice(i + 1, i + 3))) {
      bytes.push(parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(src[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeHeaderWord(v: string): string {
  // whitespace between two adjacent encoded words is not part of the text (RFC 2047, 6.2)
  return v.replace(/(\?=)\s+(?==\?)/g, '$1').replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, data: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')));
}

export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const sep = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, sep).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(sep + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const cte = header('Content-Transfer-Encoding').toLowerCase();
  if (cte === 'quoted-printable') body = decodeQuotedPrintable(body);
  else if (cte === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return { from, to, subject: decodeHeaderWord(header('Subject')), raw, text: body };
}

export interface SmtpSink {
  url: string;
  mails: ReceivedMail[];
  /** recipients the server refuses (RCPT TO 550) */
  refuse: Set<string>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (refuse.has(address.address.toLowerCase())) {
        const err = new Error('caixa postal inexistente') as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), from, session.envelope.rcptTo.map((r) => r.address)));
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// The error-tracker ingest is the shared one of test/harness/errtracker-receiver.ts.
export { startErrtrackerReceiver, type ErrtrackerReceiver as TrackerReceiver } from './errtracker-receiver.js';

// ---------------------------------------------------------------------------------------
export interface PartnerOrder {
  code: string;
  status: string;
  total?: number | string | null;
  paid_at?: string | null;
  updated_at: string;
  customer?: { name?: string; email?: string; document?: string };
  items?: Array<{ sku: string; quantity: number; price: number }>;
  [k: string]: unknown;
}

export interface FakePartner {
  url: string;
  token: string;
  orders: Map<string, PartnerOrder>;
  requests: Array<{ path: string; updatedSince: string | null; page: number; authorization: string | undefined;
    createdSince?: string | null; createdUntil?: string | null }>;
  pageSize: number;
  /** answer every request with this status (null = normal) */
  failWith: number | null;
  /** drop every connection without an answer (the platform unreachable) */
  unreachable: boolean;
  close(): Promise<void>;
}

/**
 * The order platform's REST API: GET /orders?updated_since=&page= (1-based), Bearer token; or a
 * day's list with the date filter GET /orders?created_since=&created_until=&page= (orders whose
 * `created_at` — else `updated_at` — falls in [since, until)), the same envelope and pages.
 */
export async function startFakePartner(token = 'partner-api-token'): Promise<FakePartner> {
  const fake: Omit<FakePartner, 'url' | 'close'> = { token, orders: new Map(), requests: [], pageSize: 2, failWith: null, unreachable: false };
  const server = http.createServer((req, res) => {
    if (fake.unreachable) { req.socket.destroy(); return; }
    const u = new URL(req.url ?? '/', 'http://x');
    const page = Number(u.searchParams.get('page') ?? '1');
    const createdSince = u.searchParams.get('created_since');
    const createdUntil = u.searchParams.get('created_until');
    fake.requests.push({ path: u.pathname, updatedSince: u.searchParams.get('updated_since'), page, authorization: req.headers.authorization,
      createdSince, createdUntil });
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (fake.failWith) return json(fake.failWith, { error: 'falha simulada' });
    if (req.headers.authorization !== `Bearer ${fake.token}`) return json(401, { error: 'unauthorized' });
    if (req.method !== 'GET' || u.pathname !== '/orders') return json(404, { error: 'not found' });
    const since = u.searchParams.get('updated_since');
    const all = [...fake.orders.values()]
      .filter((o) => !since || Date.parse(o.updated_at) >= Date.parse(since))
      .filter((o) => {
        const created = Date.parse(String(o.created_at ?? o.updated_at));
        return (!createdSince || created >= Date.parse(createdSince)) && (!createdUntil || created < Date.parse(createdUntil));
      })
      .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at));
    const totalPages = Math.ceil(all.length / fake.pageSize);
    const data = all.slice((page - 1) * fake.pageSize, page * fake.pageSize);
    return json(200, { data, meta: { pagination: { current_page: page, total_pages: totalPages } } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return Object.assign(fake, { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) });
}

export function order(code: string, status: string, updatedAt: string, extra: Partial<PartnerOrder> = {}): PartnerOrder {
  return {
    code, status, total: 150.5, paid_at: ['received', 'invoiced', 'shipped', 'delivered'].includes(status) ? updatedAt : null,
    updated_at: updatedAt, customer: { name: 'Posto Boa Viagem', email: 'compras@posto.example', document: '12345678000195' },
    items: [{ sku: 'DIESEL-S10', quantity: 1000, price: 0.1505 }], ...extra,
  };
}

const EVENT_OF: Record<string, string> = {
  waiting_payment: 'order.created', received: 'order.paid', cancelled: 'order.cancelled',
};

export function event(o: PartnerOrder, kind = EVENT_OF[o.status] ?? 'order.status.updated'): { event: string; time: string; resource: PartnerOrder } {
  return { event: kind, time: o.updated_at, resource: o };
}

// ---------------------------------------------------------------------------------------
export interface LogCapture {
  stream: Writable;
  lines: Array<Record<string, unknown> & { level: number; msg?: string }>;
  count(msg: string): number;
}

export function logCapture(): LogCapture {
  const lines: LogCapture['lines'] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      partial += chunk.toString('utf8');
      let i: number;
      while ((i = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, i);
        partial = partial.slice(i + 1);
        try { lines.push(JSON.parse(line)); } catch { /* not JSON */ }
      }
      cb();
    },
  });
  return { stream, lines, count: (msg) => lines.filter((l) => l.msg === msg).length };
}

// ---------------------------------------------------------------------------------------
/** Runs due jobs of the given kinds until none is left (retries in backoff are not due). */
export async function drainJobs(runners: JobRunner[], pool: pg.Pool, timeoutMs = 20_000): Promise<void> {
  const kinds = [...new Set(runners.flatMap((r) => r.kinds))];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const r of runners) r.wake();
    await Promise.all(runners.map((r) => r.settled()));
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from app.job where kind = any($1) and (status = 'running' or (status = 'pending' and run_at <= now()))`, [kinds]);
    if (rows[0]!.n === 0 && runners.every((r) => r.active === 0)) return;
    if (Date.now() > deadline) throw new Error(`jobs ainda pendentes após ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function makeRunner(pool: pg.Pool, handlers: Record<string, JobHandler>, log: FastifyBaseLogger,
  workerId?: string, concurrency = 4): JobRunner {
  return new JobRunner(pool, handlers, log, { concurrency, pollIntervalMs: 60_000, ...(workerId ? { workerId } : {}) });
}
