// @bench-tiny BENCH_VARIANTS=200 BENCH_DURATION=0.5 BENCH_CONNECTIONS=2
// @bench-prints POST /sync/erp real, 200 itens
/**
 * Benchmark of POST /sync/erp: `npm run bench -- erp-sync`.
 *
 * Starts a throwaway Postgres (test/harness/cluster.ts, or TEST_DATABASE_URL), migrates a
 * database, loads a 100,000-variant catalogue through catalogo_carregar(), then runs the
 * real service (compiled, as in production; bench/lib.ts) as a child process on loopback, once in dry
 * run and once in real mode, and drives it with autocannon from this process: requests of
 * 100 and 200 items (random catalogue EANs, fresh random prices and stock each request, so
 * real mode really writes), next to GET /health as the floor. Prints requests/s, items/s
 * and p50/p99 latency. Bounded: each run lasts BENCH_DURATION seconds (default 10) after a
 * 2-second warm-up, at each of BENCH_CONNECTIONS (default "1,8"); loopback only.
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { startBenchService } from './lib.js';
import { prepareDatabases, recreateDatabase, startTestCluster, TEMPLATE_DB } from '../test/harness/cluster.js';

const VARIANTS = Number(process.env.BENCH_VARIANTS ?? 100_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,8').split(',').map(Number);
const TOKEN = 'bench-erp-token-0123456789';
const DB_NAME = 'bench_erp_sync';
const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function gtin(body: string): string {
  const digits = [...body].map(Number).reverse();
  const sum = digits.reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return body + String((10 - (sum % 10)) % 10);
}

const eanOf = (i: number) => gtin(`7893${String(i).padStart(8, '0')}`);
const cents = (min: number, max: number) => Math.round((min + Math.random() * (max - min)) * 100) / 100;

async function loadCatalogue(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const perProduct = 10;
    const chunk = 10_000;
    for (let start = 0; start < VARIANTS; start += chunk) {
      const produtos = [];
      for (let p = start; p < Math.min(start + chunk, VARIANTS); p += perProduct) {
        const variantes = [];
        for (let i = p; i < Math.min(p + perProduct, VARIANTS); i++) {
          const cheio = cents(5, 500);
          variantes.push({ sku: `B-${String(i).padStart(6, '0')}`, ean: eanOf(i), preco_cheio: cheio,
            preco_desconto: Math.round(cheio * 92) / 100, estoque: Math.floor(Math.random() * 1000) });
        }
        produtos.push({ codigo_erp: `P-${String(p / perProduct).padStart(6, '0')}`, nome: `Produto ${p / perProduct}`, variantes });
      }
      await client.query('select catalogo_carregar($1::jsonb)', [JSON.stringify(produtos)]);
    }
    await client.query('vacuum analyze produto, variante');
  } finally {
    await client.end();
  }
}

function makeBody(n: number): string {
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(Math.random() * VARIANTS));
  const items = [...picked].map((i) => {
    const cheio = cents(5, 500);
    return { ean: eanOf(i), codigo_erp: `P-${Math.floor(i / 10)}`, preco_cheio: cheio,
      preco_desconto: Math.round(cheio * 92) / 100, estoque: Math.floor(Math.random() * 1000) };
  });
  return JSON.stringify({ items });
}

async function startServiceProcess(databaseUrl: string, dryRun: boolean) {
  const svc = await startBenchService({
    DATABASE_URL: databaseUrl, ERP_SYNC_ACCESS_TOKEN: TOKEN, ERP_SYNC_DRY_RUN: String(dryRun), LOG_LEVEL: 'info',
  });
  return { url: svc.base, child: svc.child, stop: () => svc.stop() };
}

interface Row { cenario: string; conexoes: number; reqs: number; rps: number; itensPorS: number; media: number; p50: number; p99: number; falhas: number }

async function run(url: string, cenario: string, connections: number, itens: number | null): Promise<Row> {
  const request = itens === null
    ? { method: 'GET' as const, path: '/health' }
    : { method: 'POST' as const, path: '/sync/erp', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        setupRequest: (req: autocannon.Request) => ({ ...req, body: makeBody(itens) }) };
  const opts = { url, connections, pipelining: 1, requests: [request] };
  await autocannon({ ...opts, duration: Math.min(2, DURATION) }); // warm-up
  const r = await autocannon({ ...opts, duration: DURATION });
  return {
    cenario, conexoes: connections, reqs: r.requests.total, rps: r.requests.average,
    itensPorS: itens === null ? 0 : r.requests.average * itens,
    media: r.latency.average, p50: r.latency.p50, p99: r.latency.p99, falhas: r.non2xx + r.errors + r.timeouts,
  };
}

async function checkOnce(url: string, itens: number, dryRun: boolean): Promise<void> {
  const res = await fetch(`${url}/sync/erp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: makeBody(itens) });
  const body = await res.json() as { dry_run: boolean; casados: number; atualizados: number };
  if (res.status !== 200 || body.dry_run !== dryRun || body.casados !== itens || (!dryRun && body.atualizados === 0)) {
    throw new Error(`unexpected answer ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

async function main(): Promise<void> {
  say('starting a throwaway Postgres…');
  const cluster = await startTestCluster();
  const rows: Row[] = [];
  try {
    await prepareDatabases(cluster);
    await recreateDatabase(cluster.adminUrl, DB_NAME, TEMPLATE_DB);
    const dbUrl = cluster.urlFor(DB_NAME);
    const t0 = Date.now();
    await loadCatalogue(dbUrl);
    say(`catalogue of ${VARIANTS} variants loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    for (const dryRun of [true, false]) {
      const svc = await startServiceProcess(dbUrl, dryRun);
      try {
        const mode = dryRun ? 'dry run' : 'real';
        await checkOnce(svc.url, 100, dryRun);
        for (const c of CONNECTIONS) {
          if (dryRun) {
            say(`GET /health, ${c} connection(s)…`);
            rows.push(await run(svc.url, 'GET /health (piso)', c, null));
          }
          for (const n of [100, 200]) {
            say(`${mode}, ${n} items, ${c} connection(s)…`);
            rows.push(await run(svc.url, `POST /sync/erp ${mode}, ${n} itens`, c, n));
          }
        }
      } finally {
        await svc.stop();
      }
    }
    const audit = new pg.Client({ connectionString: dbUrl });
    await audit.connect();
    const { rows: [a] } = await audit.query<{ chamadas: number; alteracoes: number }>(
      'select (select count(*) from erp_sync_audit)::int as chamadas, (select count(*) from erp_sync_audit_variante)::int as alteracoes');
    await audit.end();
    say(`audit: ${a!.chamadas} calls, ${a!.alteracoes} variant changes recorded`);
  } finally {
    await cluster.stop();
  }

  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (v: number, d = 0) => v.toFixed(d).padStart(10);
  process.stdout.write(`\nPOST /sync/erp on a ${VARIANTS.toLocaleString('en')}-variant catalogue; ${DURATION} s per run; loopback\n`);
  process.stdout.write('(latency percentiles have 1 ms resolution: autocannon records whole milliseconds)\n');
  process.stdout.write(`${pad('scenario', 36)}${pad('conns', 7)}${'requests'.padStart(10)}${'req/s'.padStart(10)}${'items/s'.padStart(10)}${'mean ms'.padStart(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'failed'.padStart(8)}\n`);
  for (const r of rows) {
    process.stdout.write(`${pad(r.cenario, 36)}${pad(String(r.conexoes), 7)}${num(r.reqs)}${num(r.rps, 1)}${num(r.itensPorS)}${num(r.media, 2)}${num(r.p50)}${num(r.p99)}${String(r.falhas).padStart(8)}\n`);
  }
  if (rows.some((r) => r.falhas > 0)) process.exitCode = 1;
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
