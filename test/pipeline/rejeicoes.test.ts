// @lane service
/**
 * No upload can stop the process: the real service, as a child
 * process, takes truncated spreadsheets — the three fuzzers' cases that once killed it with an
 * `unexpected EOF` thrown where nothing caught it, when the shared corpus is beside the
 * project, and truncations of our own files always — while /health and the order webhook are
 * called every few milliseconds. Each truncated file is received and ends ERRO with its
 * reason; a deliberately broken code path (test/harness/quebra-deliberada.ts: a promise that
 * rejects with nobody to handle it) fails its request with a 500 and an ERROR in the log; the
 * process keeps answering, and every webhook delivery is taken.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testEnv } from '../harness/service.js';
import { ate, matarServicos, startServicoProcesso, type ServicoProcesso } from '../harness/processo.js';
import { QUEBRA_DELIBERADA } from '../harness/quebra-deliberada.js';
import { event, order } from '../harness/partner.js';
import { buildMeta } from '../fixtures/builder.js';
import { projectRoot } from '../../src/paths.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const CORPUS = join(projectRoot, '..', 'shared', 'realworld', 'files', 'poi');
const DO_CORPUS = [
  'clusterfuzz-testcase-minimized-POIXSSFFuzzer-6448258963341312.xlsx',
  'clusterfuzz-testcase-minimized-XLSX2CSVFuzzer-5025401116950528.xlsx',
  'crash-274d6342e4842d61be0fb48eaadad6208ae767ae.xlsx',
];

let db: TestDatabase;
let svc: ServicoProcesso;

beforeAll(async () => {
  db = await createTestDatabase();
  svc = await startServicoProcesso({ ...testEnv(db, { S3_FILE_STORAGE: 'PSQL' }), JOBS_POLL_INTERVAL_MS: '100' },
    { preload: ['test/harness/quebra-deliberada.ts'] });
});
afterAll(async () => {
  await svc?.stop();
  matarServicos();
  await db?.drop();
});

async function enviar(nome: string, bytes: Buffer, tipo = XLSX): Promise<Response> {
  const form = new FormData();
  form.append('arquivo', new Blob([bytes], { type: tipo }), nome);
  return fetch(`${svc.url}/api/xls/processar`, { method: 'POST', body: form, headers: bearer() });
}

/** /health and the webhook, every 20 ms, until stopped: every status they answered. */
function vigiar() {
  const saude: number[] = [];
  const webhook: number[] = [];
  let n = 0;
  let parar = false;
  const laco = (async () => {
    while (!parar) {
      const o = order(`REJ-${++n}`, 'waiting_payment', new Date().toISOString());
      const [h, w] = await Promise.all([
        fetch(`${svc.url}/health`).then((r) => r.status, () => 0),
        fetch(`${svc.url}/webhook/partner`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event(o)) })
          .then((r) => r.status, () => 0),
      ]);
      saude.push(h);
      webhook.push(w);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return { saude, webhook, async parar() { parar = true; await laco; } };
}

describe('uploads that once killed the service', () => {
  it('truncated spreadsheets end ERRO with the reason; a stray rejection fails its request only; /health and the webhook answer throughout', async () => {
    const vigia = vigiar();
    const inteiro = await buildMeta({ rows: 5 });
    // cut in the middle (the end-of-directory record kept: it points past the end, as in the
    // fuzzers' cases) and cut short (no end-of-directory record at all)
    const truncados: Array<[string, Buffer]> = [
      ['meio-cortado.xlsx', Buffer.concat([inteiro.subarray(0, 200), inteiro.subarray(inteiro.length - 22)])],
      ['metade.xlsx', inteiro.subarray(0, inteiro.length >> 1)],
    ];
    const corpus = existsSync(CORPUS);
    if (corpus) for (const f of DO_CORPUS) truncados.push([f, readFileSync(join(CORPUS, f))]);
    else console.log(`rejeicoes: ${CORPUS} ausente; os três arquivos do corpus não rodaram (os truncados nossos, sim)`);

    const ids: string[] = [];
    for (const [nome, bytes] of truncados) {
      const res = await enviar(nome, bytes);
      const item = ((await res.json()) as { itens: Array<{ processamentoId: string; status: string }> }).itens[0]!;
      // two of the corpus' three are the same bytes: the second is DUPLICADO (200), as any copy
      expect([res.status, item.status], nome).toEqual(res.status === 200 ? [200, 'DUPLICADO'] : [202, 'ENFILEIRADO']);
      if (res.status === 202) ids.push(item.processamentoId);
    }
    expect(ids.length).toBe(corpus ? 4 : 2);
    // a batch that cannot be read has nothing to process: refused with the reason
    const lote = await enviar('lote.zip', inteiro.subarray(0, inteiro.length >> 1), 'application/zip');
    expect(lote.status).toBe(400);
    expect(((await lote.json()) as { detail: string }).detail).toContain('diretório central do zip não encontrado');

    // the deliberate break: the request fails (500 problem), nothing else does
    const quebrado = await enviar('quebrado.xlsx', Buffer.from(`${QUEBRA_DELIBERADA} não é uma planilha`), 'text/plain');
    expect(quebrado.status).toBe(500);
    expect(quebrado.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    const finais = await ate(async () => {
      const { rows } = await db.pool.query<{ arquivo: string; status: string; erro_mensagem: string | null }>(
        'select arquivo, status, erro_mensagem from xls_processamento where id = any($1::uuid[]) order by arquivo', [ids]);
      return rows.every((r) => r.status === 'ERRO') && rows.length === ids.length ? rows : undefined;
    }, 'os truncados em ERRO', 60_000);
    for (const r of finais) expect(r.erro_mensagem, r.arquivo).toMatch(/arquivo truncado|diretório central do zip não encontrado/);

    // after all of it: a sound file is still taken and processed
    const ok = await enviar('meta.xlsx', inteiro);
    expect(ok.status).toBe(202);
    await vigia.parar();

    expect(svc.child.exitCode).toBeNull();
    expect(vigia.saude.length).toBeGreaterThan(5);
    expect(new Set(vigia.saude)).toEqual(new Set([200]));
    expect(new Set(vigia.webhook).size === 1 && vigia.webhook[0]! >= 200 && vigia.webhook[0]! < 300, `webhook: ${[...new Set(vigia.webhook)]}`).toBe(true);
    const { rows: [{ n }] } = await db.pool.query('select count(*)::int n from partner_webhook');
    expect(n).toBe(vigia.webhook.length);

    const erro = svc.logs().find((l) => l.level === 50 && /rejeição de promise não tratada em POST \/api\/xls\/processar/.test(String(l.msg)));
    expect(erro, svc.out()).toBeDefined();
    expect(String((erro!.err as { message?: string })?.message)).toContain('quebra deliberada');
  }, 120_000);
});
