// @bench-tiny --linhas 300 --n 2
// @bench-prints status=ERRO&tipo=META
/**
 * The processing list on 100,000 processings, as staff and scripts see it: latency of
 * `GET /processamentos` (screen, with a session) and `GET /api/comercial/processamentos`
 * (Bearer) for every filter combination, first page and a deep page (page 100), against
 * the compiled service in its own process. Prints the median and p95 of N requests each.
 *
 *   npm run bench -- telas-lista [--linhas 100000] [--n 40]
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { BENCH_TOKEN, benchDatabase, fmt, startBenchService } from './lib.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const LINHAS = arg('linhas', 100_000);
const N = arg('n', 40);

async function main() {
  const { cluster, url } = await benchDatabase('bi_bench_telas');
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined); // idle connections closed when the cluster stops
  try {
    await pool.query(`
      insert into xls_processamento (status, tipo, arquivo, checksum, recebido_em, log_arquivo, finalizado_em, arquivo_bytes)
      select s.status, t.tipo, 'f' || g || '.xlsx', encode(sha256(convert_to(g::text, 'UTF8')), 'hex'),
             now() - make_interval(mins => g), 'x/' || g || '.log',
             case when s.status in ('SUCESSO', 'ERRO', 'IGNORADO') then now() end, '\\x00'::bytea
        from generate_series(1, $1::int) g
        cross join lateral (select (array['SUCESSO','SUCESSO','SUCESSO','SUCESSO','SUCESSO','SUCESSO','ERRO','IGNORADO','PENDENTE','SUCESSO'])[1 + g % 10] as status) s
        cross join lateral (select (array['RELATORIO18','META','COMPRAS','FLUXO_PAGAR_RECEBER','COTA_FORNECEDOR','POSTOS','TRR','MARGEM_DIA'])[1 + (g / 10) % 8] as tipo) t`, [LINHAS]);
    await pool.query('vacuum analyze xls_processamento');
    const token = randomBytes(32).toString('base64url');
    await pool.query(`select app.sessao_criar($1, 'bench@empresa.com.br', 'Bench', 'equipe', interval '1 hour', $2, null)`, [token, randomBytes(32).toString('base64url')]);
    const svc = await startBenchService({
      DATABASE_URL: url, OIDC_ISSUER_URL: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'bench', OIDC_CLIENT_SECRET: 'bench-secret',
      OIDC_DOMINIO: 'empresa.com.br', PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    });
    try {
      process.stdout.write(`lista de processamentos com ${LINHAS.toLocaleString('pt-BR')} linhas, ${N} requisições por caso (mediana / p95, ms)\n`);
      const filtros = ['', 'status=ERRO', 'tipo=COMPRAS', 'status=ERRO&tipo=META'];
      for (const f of filtros) {
        for (const page of [0, 100]) {
          const q = `${f ? `${f}&` : ''}page=${page}&size=20`;
          const tela = await medir(`${svc.base}/processamentos?${q}`, { accept: 'text/html', cookie: `bi_sessao=${token}` });
          const api = await medir(`${svc.base}/api/comercial/processamentos?${q}`, { authorization: `Bearer ${BENCH_TOKEN}` });
          process.stdout.write(`${(f || 'sem filtro').padEnd(24)} página ${String(page).padStart(3)}: tela ${fmt(tela.p50)} / ${fmt(tela.p95)}   API ${fmt(api.p50)} / ${fmt(api.p95)}\n`);
        }
      }
    } finally {
      await svc.stop();
    }
  } finally {
    await pool.end();
    await cluster.stop();
  }
}

async function medir(url: string, headers: Record<string, string>): Promise<{ p50: number; p95: number }> {
  const t: number[] = [];
  for (let i = 0; i < N + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers, redirect: 'manual' });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= 3) t.push(performance.now() - t0); // three warm-up requests
  }
  t.sort((a, b) => a - b);
  return { p50: t[Math.floor(t.length / 2)]!, p95: t[Math.min(t.length - 1, Math.floor(t.length * 0.95))]! };
}

void main().then(() => process.exit(0), (err) => { process.stderr.write(`${String(err?.stack ?? err)}\n`); process.exit(1); });
