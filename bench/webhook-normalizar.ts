// @bench-tiny 200 --lotes 50
// @bench-prints µs of Postgres CPU per event
/**
 * `npm run bench -- webhook-normalizar [events] [--lotes 50,200] [--definicoes DIR] [--perfil] [--sem-jit]`: the
 * normalisation of the partner webhook alone. A backlog of `events` (10,000) PENDENTE events is
 * stored first, then normalised by ONE backend calling partner_webhook_normalizar_lote(size)
 * until nothing is left; prints the backend's CPU (/proc of the backend: user + system) per
 * event, for each batch size and each mix:
 *  - `novos`: every event a new order (order.created, waiting_payment), as `bench/webhook.ts` sends;
 *  - `misto`: half the orders created, then paid 30 events later (order.paid, received: the gate
 *    releases them), one in ten created twice (a repeat), one in ten paid with an older
 *    updated_at (obsoleto): codes repeated inside a batch, existing orders, releases.
 * Checks that every event ends NORMALIZADO and the orders and releases expected exist (exit 1
 * otherwise). `--definicoes DIR`: after the migrations, applies the function files of another
 * tree's db/ (e.g. `git archive main db/functions | tar -x -C /tmp/main`, then `--definicoes
 * /tmp/main/db`), to measure that code on the same machine in the same run.
 * `--sem-jit`: jit off for the session (main's code before this bench's work left it on: the
 * gate's read of partner_configuracao was JIT-compiled at every release under enable_seqscan off).
 * `--perfil`: pg_stat_statements (nested statements too), the 12 costliest of each round.
 * The machine's load average is printed next to the figures: CPU per event moves less with
 * load than a rate, but still some.
 */
import { randomUUIDv7 } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { applyRepeatables } from '../src/db/repeatable.js';
import { benchDatabase, fmt } from './lib.js';
import { processCpu, profileSettings } from './profile.js';

const args = process.argv.slice(2);
const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const EVENTS = Number(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 10_000);
const LOTES = (opt('--lotes') ?? '50,200').split(',').map(Number);
const DEFINICOES = opt('--definicoes');
const PERFIL = args.includes('--perfil');
const SEM_JIT = args.includes('--sem-jit');
const say = (s: string) => process.stdout.write(`${s}\n`);

function evento(code: string, ev: string, status: string, atualizado: Date): string {
  const t = atualizado.toISOString();
  return JSON.stringify({
    event: ev, time: t,
    resource: {
      code, status, total: 1234.56, paid_at: status === 'received' ? t : null, updated_at: t,
      customer: { name: 'Posto Bench', email: 'bench@posto.example', document: '12345678000195' },
      items: [{ sku: 'DIESEL-S10', quantity: 5000, price: 0.24691 }],
    },
  });
}

/** The bodies of a mix, in arrival order, and what must exist afterwards. */
function mistura(nome: string, n: number): { corpos: string[]; pedidos: number; enfileirados: number } {
  const base = Date.UTC(2026, 10, 20, 10);
  if (nome === 'novos') {
    return { corpos: Array.from({ length: n }, (_, i) => evento(`N-${i}`, 'order.created', 'waiting_payment', new Date(base + i))), pedidos: n, enfileirados: 0 };
  }
  const corpos: string[] = [];
  const pagos: Array<{ pos: number; corpo: string }> = [];
  let k = 0;
  while (corpos.length + pagos.length < n) {
    const code = `M-${k}`;
    const criado = new Date(base + k * 1000);
    corpos.push(evento(code, 'order.created', 'waiting_payment', criado));
    if (k % 10 === 3) corpos.push(evento(code, 'order.created', 'waiting_payment', criado)); // repetido
    pagos.push({ pos: corpos.length + 30, corpo: evento(code, 'order.paid', 'received', new Date(criado.getTime() + 500)) });
    if (k % 10 === 7) pagos.push({ pos: corpos.length + 31, corpo: evento(code, 'order.created', 'waiting_payment', new Date(criado.getTime() - 1000)) }); // obsoleto
    k++;
  }
  const todos: string[] = [];
  let p = 0;
  for (let i = 0; i < corpos.length; i++) {
    todos.push(corpos[i]!);
    while (p < pagos.length && pagos[p]!.pos <= i + 1) todos.push(pagos[p++]!.corpo);
  }
  while (p < pagos.length) todos.push(pagos[p++]!.corpo);
  return { corpos: todos, pedidos: k, enfileirados: k };
}

async function main() {
  const { cluster, url } = await benchDatabase('bi_bench_normalizar', PERFIL ? profileSettings(false) : undefined);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let falhou = false;
  try {
    if (DEFINICOES) {
      const r = await applyRepeatables(c, { all: true, root: DEFINICOES });
      say(`definições de ${DEFINICOES}: ${r.aplicados.length} arquivo(s) aplicado(s)`);
    }
    if (SEM_JIT) await c.query('set jit = off');
    const pid = Number((await c.query('select pg_backend_pid() as pid')).rows[0].pid);
    say(`${EVENTS} eventos por rodada, lotes de ${LOTES.join(', ')}; carga da máquina ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
    // a table with a history, as in production: as many events already normalised (older), so that
    // the statistics say what they say there (few PENDENTE rows among many)
    await c.query(`insert into partner_webhook (recebido_em, corpo, situacao, resultado, processado_em)
      select timestamptz '2026-01-01' + g * interval '1 ms', convert_to('{}', 'UTF8'), 'NORMALIZADO', 'criado', now()
        from generate_series(1, $1) g`, [EVENTS]);
    for (const nome of ['novos', 'misto']) {
      for (const lote of LOTES) {
        await c.query('truncate partner_pedido cascade');
        await c.query(`delete from partner_webhook where recebido_em >= '2026-11-01'`);
        const m = mistura(nome, EVENTS);
        const inicio = Date.UTC(2026, 10, 20, 9) * 1000; // µs; recebido_em in arrival order
        for (let i = 0; i < m.corpos.length; i += 1000) {
          const parte = m.corpos.slice(i, i + 1000);
          await c.query('select count(*) from partner_webhook_receber_lote($1::uuid[], $2::bytea[], null, null, null, $3::timestamptz[])', [
            parte.map(() => randomUUIDv7()), parte.map((s) => Buffer.from(s)), // ids as the intake gives them (UUIDv7)
            parte.map((_, j) => new Date((inicio + (i + j) * 10) / 1000).toISOString()),
          ]);
        }
        await c.query('vacuum analyze partner_webhook');
        if (PERFIL) await c.query('create extension if not exists pg_stat_statements; select pg_stat_statements_reset()');
        const cpu0 = processCpu(pid);
        const t0 = performance.now();
        let tratados = 0;
        let lotes = 0;
        for (;;) {
          const r = (await c.query('select partner_webhook_normalizar_lote($1) as r', [lote])).rows[0].r as { tratados: number };
          if (r.tratados === 0) break;
          tratados += r.tratados;
          lotes++;
        }
        const cpu = processCpu(pid) - cpu0;
        const ms = performance.now() - t0;
        const chk = (await c.query(`select
            (select count(*) from partner_webhook where situacao <> 'NORMALIZADO')::int as nao,
            (select count(*) from partner_pedido)::int as pedidos,
            (select count(*) from partner_pedido where estado = 'ENFILEIRADO')::int as enfileirados`)).rows[0];
        if (PERFIL) {
          const { rows } = await c.query(`select calls, round(total_exec_time::numeric, 1) as ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as q
              from pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time desc limit 12`);
          for (const r of rows) say(`    ${String(r.ms).padStart(9)} ms ${String(r.calls).padStart(7)} calls ${String(r.rows).padStart(7)} rows  ${r.q}`);
        }
        const ok = tratados === m.corpos.length && chk.nao === 0 && chk.pedidos === m.pedidos && chk.enfileirados === m.enfileirados;
        if (!ok) falhou = true;
        say(`${nome.padEnd(5)} lote ${String(lote).padStart(4)}: ${tratados} eventos em ${lotes} lotes, ${fmt(ms / 1000, 2)} s; `
          + `µs of Postgres CPU per event ${fmt((cpu * 1e6) / tratados, 1)}; pedidos ${chk.pedidos}, enfileirados ${chk.enfileirados}`
          + `${ok ? '' : ` — ERRADO (esperado ${m.corpos.length} eventos, ${m.pedidos} pedidos, ${m.enfileirados} enfileirados; ${chk.nao} não normalizados)`}`);
      }
    }
    say(`carga da máquina ao fim ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
  } finally {
    await c.end();
    await cluster.stop();
  }
  process.exit(falhou ? 1 : 0);
}
void main();
