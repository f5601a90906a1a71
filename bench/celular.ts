// @bench-tiny --linhas 300 --grande 2000 --vezes 1
// @bench-prints motor de sincronização
/**
 * `npm run bench -- celular`: the phone's figures, with the real sync engine (the command in
 * SYNC_ENGINE_CMD, started the way `npm start` starts it: src/embedded/motor.ts, its own role and
 * storage database, the local hosting endpoint for the reset) and the reference phone
 * (src/celular, @powersync/node on Node's SQLite). On a throwaway cluster, the compiled service
 * in its own process. Without SYNC_ENGINE_CMD it prints one line and exits 0.
 *
 *   1. upload -> phone: a RELATORIO18 of `--linhas` (20,000) billing rows uploaded to the
 *      service, until every row is on a connected phone (the table emptied by SQL before each
 *      run, so that every run inserts them all); the processing's own time beside it. Median of
 *      `--vezes` (5).
 *   2. the engine's floor, in the same run and alternating with 1: the same rows written by one
 *      plain COPY, from its commit until they are all on the phone.
 *      Target: from the processing's end to a complete phone <= 1.1x the floor.
 *   4. a reset of the replication (hosting strategy against the child engine) with `--grande`
 *      (200,000) rows, from its start until the connected phone has cleared and is complete
 *      again (<= 60 s), with each step's duration;
 *   3. then a first full sync of a new phone holding those rows, on the engine's fresh copy
 *      (before the reset its buckets also hold the history of the runs above).
 *
 * Usage: npm run bench -- celular [--linhas 20000] [--grande 200000] [--vezes 5]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { prepararMotor, type MotorEmbutido } from '../src/embedded/motor.js';
import { Celular } from '../src/celular/celular.js';
import { tokenCelular } from '../src/celular/token.js';
import { BENCH_TOKEN, benchDatabase, benchRelatorio18, fmt, startBenchService, type BenchService } from './lib.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const LINHAS = arg('linhas', 20_000);
const GRANDE = arg('grande', 200_000);
const VEZES = arg('vezes', 5);
const say = (s: string) => process.stdout.write(`${s}\n`);
const segundos = (ms: number) => `${fmt(ms / 1000, 2)} s`;
const mediana = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const faixa = (xs: number[]) => `mediana ${segundos(mediana(xs))} (mín. ${segundos(Math.min(...xs))}, máx. ${segundos(Math.max(...xs))})`;

async function contar(c: Celular, tabela: string): Promise<number> {
  return Number((await c.banco.get<{ n: number }>(`select count(*) n from ${tabela}`)).n);
}

/** Polls the phone (every 10 ms) until `pronto`; the instant it held. */
async function quando(c: Celular, pronto: () => Promise<boolean>, limiteMs: number, oque: string): Promise<number> {
  const fim = Date.now() + limiteMs;
  for (;;) {
    if (await pronto()) return Date.now();
    if (Date.now() > fim) throw new Error(`tempo esgotado (${limiteMs} ms): ${oque}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function main() {
  const cmd = process.env.SYNC_ENGINE_CMD?.trim();
  if (!cmd) {
    say('motor de sincronização: SYNC_ENGINE_CMD não definida; o bench celular não rodou (ele precisa do motor real)');
    return;
  }
  const { cluster, url } = await benchDatabase('bi_bench_celular');
  const admin = new URL(cluster.adminUrl);
  const dir = mkdtempSync(join(tmpdir(), 'bi-bench-celular-'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let motor: MotorEmbutido | null = null;
  let svc: BenchService | null = null;
  const celulares: Celular[] = [];
  try {
    const jwtSecret = randomBytes(32).toString('base64url');
    motor = await prepararMotor({
      command: cmd, dataDir: dir, pgPort: Number(admin.port), sourceDatabase: new URL(url).pathname.slice(1),
      port: 0, jwtSecret, apiToken: 'bench', log: (m) => process.stderr.write(`[motor] ${m}\n`),
    });
    const t0 = Date.now();
    if (!(await motor.start(180_000))) throw new Error(`o motor não respondeu; veja ${motor.logFile}`);
    say(`motor de sincronização: pronto em ${segundos(Date.now() - t0)} (${motor.url})`);
    svc = await startBenchService({ DATABASE_URL: url, ...motor.serviceEnv, REPLICATOR_CONFIRM_SECRET: 'bench-reset', REPLICATOR_POLL_MS: '100' });

    const abrir = async (nome: string) => {
      const c = await Celular.abrir({ url: motor!.url, token: () => tokenCelular(jwtSecret, nome), arquivo: join(dir, `${nome}.db`), retryDelayMs: 250 });
      celulares.push(c);
      await c.conectar();
      await c.aguardarSincronia(180_000);
      return c;
    };
    const celular = await abrir('vendedor');

    // 1 and 2: upload -> phone, and the engine's floor (one COPY), alternating
    const esvaziar = async () => {
      await client.query('delete from bi_faturamento');
      await quando(celular, async () => (await contar(celular, 'bi_faturamento')) === 0, 120_000, 'celular sem faturamento');
    };
    // what each write costs the engine beyond the rows: the WAL it decodes, the operations it stores
    const armazenamento = new pg.Client({ connectionString: motor.serviceEnv.REPLICATOR_DOCSTORE_URL!.replace(/\?.*$/, '') });
    await armazenamento.connect();
    const marca = async () => ({
      lsn: (await client.query<{ l: string }>('select pg_current_wal_lsn()::text l')).rows[0]!.l,
      ops: Number((await armazenamento.query<{ n: string }>('select count(*) n from powersync.bucket_data')).rows[0]!.n),
    });
    const custo = async (antes: { lsn: string; ops: number }) => {
      const wal = Number((await client.query<{ b: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint b', [antes.lsn])).rows[0]!.b);
      return { walMb: wal / 1048576, ops: (await marca()).ops - antes.ops };
    };
    const custos: { importacao: Array<{ walMb: number; ops: number }>; copy: Array<{ walMb: number; ops: number }> } = { importacao: [], copy: [] };
    const processamento: number[] = [];
    const ateCelular: number[] = [];
    const piso: number[] = [];
    let copia: Buffer | null = null;
    for (let i = 0; i < VEZES; i++) {
      // the upload (another title each run: the same file again would be refused as a duplicate)
      const arquivo = await benchRelatorio18({ faturamento: LINHAS, movimento: 0, titulo: `bench celular ${i + 1}` });
      await esvaziar();
      const antesImportacao = await marca();
      const inicio = Date.now();
      const form = new FormData();
      form.append('arquivo', new Blob([arquivo]), `relatorio18-${i}.xlsx`);
      const res = await fetch(`${svc.base}/api/xls/processar`, { method: 'POST', body: form, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
      const id = ((await res.json()) as { itens: Array<{ processamentoId: string }> }).itens[0]!.processamentoId;
      // the processing's end as committed: the first look (every 10 ms, on a connection of its
      // own) that sees it ended (its finalizado_em is its transaction's start, before the merge)
      const observador = new pg.Client({ connectionString: url });
      await observador.connect();
      const [fimProcessamento, completo] = await Promise.all([
        (async () => {
          for (;;) {
            const { rows: [p] } = await observador.query<{ status: string; erro: string | null }>(
              'select status, erro_mensagem erro from xls_processamento where id = $1', [id]);
            if (p && p.status !== 'PENDENTE' && p.status !== 'PROCESSANDO') {
              if (p.status !== 'SUCESSO') throw new Error(`processamento ${id}: ${p.status} ${p.erro}`);
              return Date.now();
            }
            await new Promise((r) => setTimeout(r, 10));
          }
        })().finally(() => observador.end()),
        quando(celular, async () => (await contar(celular, 'bi_faturamento')) === LINHAS, 300_000, 'faturamento no celular'),
      ]);
      processamento.push(fimProcessamento - inicio);
      ateCelular.push(completo - fimProcessamento);
      custos.importacao.push(await custo(antesImportacao));
      if (!copia) {
        const partes: Buffer[] = [];
        const s = client.query(copyTo('copy bi_faturamento to stdout'));
        for await (const b of s) partes.push(b as Buffer);
        copia = Buffer.concat(partes);
      }
      // the floor: the same rows, one COPY, from its commit
      await esvaziar();
      const antesCopy = await marca();
      await pipeline(Readable.from([copia]), client.query(copyFrom('copy bi_faturamento from stdin')));
      const commit = Date.now();
      const fimPiso = await quando(celular, async () => (await contar(celular, 'bi_faturamento')) === LINHAS, 300_000, 'faturamento (COPY) no celular');
      piso.push(fimPiso - commit);
      custos.copy.push(await custo(antesCopy));
      say(`rodada ${i + 1}/${VEZES}: processamento ${segundos(processamento.at(-1)!)}, do fim do processamento ao celular completo ${segundos(ateCelular.at(-1)!)} (${custos.importacao.at(-1)!.ops} operações no motor); piso (COPY) ${segundos(piso.at(-1)!)} (${custos.copy.at(-1)!.ops})`);
    }
    say(`1. RELATORIO18 de ${LINHAS.toLocaleString('pt-BR')} linhas: processamento ${faixa(processamento)}; do fim do processamento ao celular completo ${faixa(ateCelular)}; do envio ao celular completo ${faixa(processamento.map((x, i) => x + ateCelular[i]!))}`);
    say(`2. piso do motor (as mesmas linhas num COPY, do commit ao celular completo): ${faixa(piso)}`);
    say(`   razão (mediana do fim do processamento ao celular / mediana do piso): ${fmt(mediana(ateCelular) / mediana(piso), 2)}x (meta <= 1,10x)`);
    const descreverCusto = (c: Array<{ walMb: number; ops: number }>) => `WAL ${fmt(mediana(c.map((x) => x.walMb)), 1)} MB, ${mediana(c.map((x) => x.ops)).toLocaleString('pt-BR')} operações gravadas pelo motor`;
    say(`   custo para o motor: importação ${descreverCusto(custos.importacao)}; COPY ${descreverCusto(custos.copy)}`);
    await armazenamento.end();

    // GRANDE rows, for 4 and 3
    await client.query('delete from bi_faturamento');
    await client.query(`insert into bi_faturamento (filial, nota_fiscal, serie, item, emissao, cliente, vendedor, produto, quantidade, valor_unitario, valor_total, placa)
      select '01', 'NF' || g, '1', 1, date '2026-11-01' + (g % 28), 'C' || (g % 500), 'V' || (g % 40), 'P' || (g % 30), 1000 + g % 7, 5.1, 5100 + g % 7, null
        from generate_series(1, $1) g`, [GRANDE]);
    const total = Number((await client.query('select count(*) n from bi_faturamento')).rows[0].n);
    await quando(celular, async () => (await contar(celular, 'bi_faturamento')) === total, 600_000, 'celular com as linhas grandes');
    // 4: a reset with those rows, until the connected phone cleared and is complete again
    const limpezasAntes = celular.limpezas;
    const inicioReset = Date.now();
    const r = await fetch(`${svc.base}/api/transporte/admin/resetar-replicator`, {
      method: 'POST', body: JSON.stringify({ motivo: 'bench celular' }),
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'x-confirm-nuke': 'bench-reset', 'content-type': 'application/json' },
    });
    if (r.status !== 202) throw new Error(`reset: ${r.status} ${await r.text()}`);
    const resetId = ((await r.json()) as { id: string }).id;
    const fimReset = await quando(celular, async () => celular.limpezas > limpezasAntes && (await contar(celular, 'bi_faturamento')) === total,
      600_000, 'celular limpo e completo depois do reset');
    const { rows: passos } = await client.query<{ step: string; status: string; ms: number }>(
      `select step, status, (extract(epoch from finalizado_em - iniciado_em) * 1000)::int ms
         from xls_resetar_replicator_passo where execucao_id = $1 order by ordem`, [resetId]);
    const { rows: [exec] } = await client.query<{ status: string; erro: string | null }>('select status, erro_mensagem erro from xls_resetar_replicator where id = $1', [resetId]);
    if (exec?.status !== 'SUCESSO') throw new Error(`reset ${resetId}: ${exec?.status} ${exec?.erro}`);
    say(`4. reset com ${total.toLocaleString('pt-BR')} linhas até o celular completo: ${segundos(fimReset - inicioReset)} (meta <= 60 s); passos: ${passos.map((p) => `${p.step} ${segundos(p.ms)}`).join(', ')}`);

    // 3: a first full sync of a new phone, on the engine's fresh copy (after the reset: its
    // buckets hold the rows, not the history of the runs above, which a new phone would download too)
    const inicioNovo = Date.now();
    const novo = await abrir('novo');
    const fimNovo = await quando(novo, async () => (await contar(novo, 'bi_faturamento')) === total, 600_000, 'celular novo completo');
    say(`3. primeira sincronização completa de um celular novo com ${total.toLocaleString('pt-BR')} linhas (cópia nova do motor, depois do reset): ${segundos(fimNovo - inicioNovo)}`);
    await novo.fechar();
    celulares.splice(celulares.indexOf(novo), 1);

  } finally {
    for (const c of celulares) await c.fechar().catch(() => undefined);
    await svc?.stop();
    await motor?.stop();
    await client.end().catch(() => undefined);
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
