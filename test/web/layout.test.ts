// @lane service
/**
 * Every screen on a phone and on a desktop, in a real browser (Debian's chromium driven by
 * playwright-core), with realistic data (popularTelas: the processings, every kind of failure,
 * batches, refused uploads; popularTelasGeral: orders, events to review, configuration,
 * recipients, a reset that failed and one that ended): at 390×844 and 1366×900 the page has
 * no sideways scroll (document.documentElement.scrollWidth <= innerWidth) and axe-core finds
 * no serious or critical violation. A screenshot of every screen at both widths goes to
 * test-artifacts/layout/ (gitignored): look at them after a change of the screens.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext } from 'playwright-core';
import { abrirChromium, axe, medir, portaLivre } from './chromium.js';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testApp } from '../harness/service.js';
import { projectRoot } from '../../src/paths.js';
import { DOMINIO, IMPORTAR_TOKEN, oidcEnv, sessao } from './helpers.js';
import { popularTelas, type DadosTelas } from './dados-telas.js';
import { popularTelasGeral, type DadosGeral } from './dados-geral.js';

const SHOTS = join(projectRoot, 'test-artifacts', 'layout');
const LARGURAS = [{ nome: 'celular', width: 390, height: 844 }, { nome: 'desktop', width: 1366, height: 900 }] as const;

let db: TestDatabase;
let app: FastifyInstance;
let browser: Browser;
let base: string;
let telas: DadosTelas;
let geral: DadosGeral;
let cookie: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  db = await createTestDatabase();
  telas = await popularTelas(db);
  geral = await popularTelasGeral(db);
  const port = await portaLivre();
  base = `http://127.0.0.1:${port}`;
  app = await testApp(db, { ...oidcEnv('http://127.0.0.1:9/', base), XLS_IMPORTAR_TOKEN: IMPORTAR_TOKEN, REPLICATOR_CONFIRM_SECRET: 'segredo-layout-0123456789' });
  await app.listen({ port, host: '127.0.0.1' });
  cookie = (await sessao(db, `ana.souza@${DOMINIO}`)).token;
  browser = await abrirChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
});

interface Tela { nome: string; url: string; anonimo?: boolean; status?: number }

function telasDoServico(): Tela[] {
  const k = `k=${IMPORTAR_TOKEN}`;
  return [
    { nome: 'login', url: '/login?from=/pedidos', anonimo: true },
    { nome: 'processamentos', url: '/processamentos' },
    { nome: 'processamentos-erro', url: '/processamentos?status=ERRO' },
    { nome: 'processamentos-recusas', url: '/processamentos/recusas' },
    { nome: 'proc-sucesso', url: `/processamentos/${telas.sucesso}` },
    { nome: 'proc-com-avisos', url: `/processamentos/${telas.comAvisos}` },
    { nome: 'proc-erro-cadastro', url: `/processamentos/${telas.erroCadastro}` },
    { nome: 'proc-erro-linhas', url: `/processamentos/${telas.erroLinhas}` },
    { nome: 'proc-erro-ilegivel', url: `/processamentos/${telas.erroIlegivel}` },
    { nome: 'proc-erro-tecnico', url: `/processamentos/${telas.erroTecnico}` },
    { nome: 'proc-ignorado', url: `/processamentos/${telas.ignorado}` },
    { nome: 'proc-processando', url: `/processamentos/${telas.processando}` },
    { nome: 'proc-reenviado', url: `/processamentos/${telas.reenviado}` },
    { nome: 'conjunto-retido', url: `/processamentos/conjuntos/${telas.conjuntoRetido}` },
    { nome: 'conjunto-importacao', url: `/processamentos/conjuntos/${telas.conjuntoImportacao}` },
    { nome: 'importar', url: `/xls/importar?${k}`, anonimo: true },
    { nome: 'importar-resultado', url: `/xls/importar/conjunto/${telas.conjuntoImportacao}?${k}`, anonimo: true },
    { nome: 'pedidos', url: '/pedidos' },
    { nome: 'pedidos-enfileirados', url: '/pedidos?estado=ENFILEIRADO' },
    { nome: 'pedidos-revisar', url: '/pedidos/revisar' },
    { nome: 'pedidos-conciliacao', url: `/pedidos/conciliacao/${geral.diaConciliado}` },
    { nome: 'admin', url: '/admin' },
    { nome: 'configuracoes', url: '/admin/configuracoes' },
    { nome: 'configuracao-nova', url: '/admin/configuracoes/nova' },
    { nome: 'configuracao-editar', url: '/admin/configuracoes/intervalo_sincronizacao' },
    { nome: 'configuracao-sistema', url: '/admin/configuracoes/ultimo_nuke' },
    { nome: 'destinatarios', url: '/destinatarios' },
    { nome: 'destinatario-editar', url: `/destinatarios/${geral.destinatario}` },
    { nome: 'replicacao', url: '/admin/replicacao' },
    { nome: 'replicacao-falhou', url: `/admin/replicacao/${geral.resetFalhou}` },
    { nome: 'replicacao-sucesso', url: `/admin/replicacao/${geral.resetSucesso}` },
    { nome: 'replicacao-runbook', url: '/admin/replicacao/runbook' },
    { nome: 'nao-encontrada', url: '/nao-existe', status: 404 },
    { nome: 'nao-encontrada-anonimo', url: '/nao-existe', anonimo: true, status: 404 },
  ];
}

describe.each(LARGURAS)('every screen at $width px ($nome)', (largura) => {
  let ctx: BrowserContext;
  let anon: BrowserContext;

  beforeAll(async () => {
    // axe is injected as an inline script: the pages' CSP would refuse it
    const opts = { viewport: { width: largura.width, height: largura.height }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo', bypassCSP: true };
    ctx = await browser.newContext(opts);
    await ctx.addCookies([{ name: 'bi_sessao', value: cookie, url: base }]);
    anon = await browser.newContext(opts);
  });
  afterAll(async () => { await ctx?.close(); await anon?.close(); });

  it('no sideways scroll, no serious or critical axe violation; a screenshot of each', async () => {
    const problemas: string[] = [];
    for (const t of telasDoServico()) {
      const page = await (t.anonimo ? anon : ctx).newPage();
      try {
        const res = await page.goto(`${base}${t.url}`, { waitUntil: 'load' });
        expect(res?.status(), t.nome).toBe(t.status ?? 200);
        // a page that follows a run reloads itself: paused, so that it holds still while measured
        const pausar = page.getByRole('button', { name: 'Pausar a atualização' });
        if (await pausar.count()) await pausar.click();
        const m = await medir(page);
        if (m.scrollWidth > m.innerWidth) problemas.push(`${t.nome}: ${m.scrollWidth} px de largura em ${m.innerWidth} (${m.largos.join('; ')})`);
        for (const v of await axe(page)) {
          problemas.push(`${t.nome}: axe ${v.impact} ${v.id} (${v.help}) em ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')}`);
        }
        await page.screenshot({ path: join(SHOTS, `${t.nome}-${largura.width}.png`), fullPage: true });
      } finally { await page.close(); }
    }
    expect(problemas).toEqual([]);
  }, 300_000);
});
