// @bench-tiny 100
// @bench-prints ms to reconcile the day
/**
 * `npm run bench -- conciliacao [orders]`: the reconciliation of one day of `orders` (5,000) by
 * partner_conciliar alone (the SQL verdict; the job's HTTP pages are not measured). The day is
 * prepared first: 90 % of the orders delivered by the webhook and normalised by the intake's
 * batch job, 5 % stored only by the poll, 3 % missing (backfilled by the run), 2 % paid on the
 * platform and unpaid here (status differences). Prints the ms of the first run (with the
 * backfill) and of a second one (the same verdict), and checks both verdicts (exit 1 otherwise).
 * Target: a day of 5,000 orders in under a few seconds.
 */
import pg from 'pg';
import { benchDatabase } from './lib.js';

const N = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 5000);
const say = (s: string) => process.stdout.write(`${s}\n`);
const DIA = '2026-11-27';

function pedido(code: string, status: string, minuto: number) {
  const t = new Date(Date.parse(`${DIA}T08:00:00-03:00`) + minuto * 6_000).toISOString();
  return {
    code, status, total: 1234.56, paid_at: status === 'received' ? t : null, updated_at: t, created_at: t,
    customer: { name: 'Posto Bench', email: 'bench@posto.example', document: '12345678000195' },
    items: [{ sku: 'DIESEL-S10', quantity: 5000, price: 0.24691 }],
  };
}

async function main() {
  const { cluster, url } = await benchDatabase('bi_bench_conciliacao');
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => { /* an idle connection ended by the throwaway server's shutdown */ });
  try {
    const lista: ReturnType<typeof pedido>[] = [];
    const webhook: string[] = [];
    const poll: ReturnType<typeof pedido>[] = [];
    const esperado = { porWebhook: 0, recuperados: 0, faltando: 0, divergentes: 0 };
    for (let i = 0; i < N; i++) {
      const code = `C-${String(i).padStart(6, '0')}`;
      const r = i % 100;
      if (r < 90) {
        const p = pedido(code, 'waiting_payment', i);
        lista.push(p);
        webhook.push(JSON.stringify({ event: 'order.created', time: p.updated_at, resource: p }));
        esperado.porWebhook++;
      } else if (r < 95) {
        const p = pedido(code, 'waiting_payment', i);
        lista.push(p);
        poll.push(p);
        esperado.recuperados++;
      } else if (r < 98) {
        lista.push(pedido(code, 'waiting_payment', i));
        esperado.faltando++;
      } else {
        const p = pedido(code, 'waiting_payment', i);
        webhook.push(JSON.stringify({ event: 'order.created', time: p.updated_at, resource: p }));
        lista.push({ ...pedido(code, 'received', i + 1) });
        esperado.porWebhook++;
        esperado.divergentes++;
      }
    }
    for (let i = 0; i < webhook.length; i += 500) {
      await pool.query(`select partner_webhook_receber(convert_to(b, 'UTF8'), 'application/json') from unnest($1::text[]) b`, [webhook.slice(i, i + 500)]);
    }
    for (;;) {
      const { rows } = await pool.query<{ r: { tratados: number } }>('select partner_webhook_normalizar_lote(200) r');
      if (Number(rows[0]?.r.tratados ?? 0) === 0) break;
    }
    for (const p of poll) await pool.query(`select partner_pedido_observar($1, 'poll')`, [JSON.stringify(p)]);
    const corpo = JSON.stringify(lista);
    const rodar = async () => {
      const t0 = process.hrtime.bigint();
      const { rows } = await pool.query<{ r: Record<string, number | string> }>('select partner_conciliar($1, $2) r', [DIA, corpo]);
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, v: rows[0]!.r };
    };
    const primeiro = await rodar();
    const segundo = await rodar();
    say(`partner_conciliar: a day of ${N} orders (${(corpo.length / 1e6).toFixed(1)} MB of list)`);
    say(`  first run (backfills ${esperado.faltando}): ${primeiro.ms.toFixed(0)} ms to reconcile the day`);
    say(`  second run (same verdict):   ${segundo.ms.toFixed(0)} ms to reconcile the day`);
    const v = primeiro.v;
    say(`  verdict: ${v.status}, ${v.na_plataforma} on the platform, ${v.aqui} here, ${v.por_webhook} by webhook, ${v.recuperados} recovered, ${v.faltando} missing (${v.preenchidos} backfilled), ${v.divergentes} divergent`);
    const ok = (x: Record<string, number | string>) => x.status === 'CONCILIADO' && x.na_plataforma === N && x.aqui === N
      && x.por_webhook === esperado.porWebhook && x.recuperados === esperado.recuperados && x.faltando === esperado.faltando
      && x.preenchidos === esperado.faltando && x.divergentes === esperado.divergentes;
    if (!ok(primeiro.v) || !ok(segundo.v)) {
      say(`unexpected verdict: ${JSON.stringify({ esperado, primeiro: primeiro.v, segundo: segundo.v }).slice(0, 2000)}`);
      process.exitCode = 1;
    }
  } finally {
    await pool.end();
    await cluster.stop();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
