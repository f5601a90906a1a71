/**
 * The staff screens in a real browser (Debian's chromium driven by playwright-core) against
 * a real identity provider on loopback (oidc-provider) and the service with its job runner:
 * login (allowed domain / other domain refused / unverified e-mail refused), every screen,
 * every form, the CSRF refusal of a tampered token, the import page with a FLUXO file.
 * A screenshot of every screen goes to test-artifacts/screens/ (gitignored).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { abrirChromium, portaLivre } from './chromium.js';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { startIdp, type TestIdp } from '../harness/idp.js';
import { buildWorkbook } from '../fixtures/builder.js';
import { H, escrever, fluxoSheets, tabela, titulo, utc } from '../fixtures/tipos.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/handlers.js';
import { projectRoot } from '../../src/paths.js';
import { DOMINIO, IMPORTAR_TOKEN } from './helpers.js';

const SHOTS = join(projectRoot, 'test-artifacts', 'screens');
const RESET_SEGREDO = 'confirma-nuke-navegador-0123456789';
const CLIENT = { clientId: 'bi-comercial', clientSecret: 'segredo-do-cliente-0123456789' };

let db: TestDatabase;
let idp: TestIdp;
let svc: Pipeline;
let browser: Browser;
let base: string;

/** A FLUXO_PAGAR_RECEBER of position 15/11/2026: payable 1.500,00 (overdue 1.000,00), receivable 500,00 (overdue 300,00). */
export function fluxoXlsx(): Promise<Buffer> {
  return escrever(fluxoSheets({
    posicao: '15/11/2026',
    totalReceber: 500,
    titulos: [
      titulo({ tipo: 'Pagar', documento: 'NF-100', pessoa: 'Distribuidora Alfa', vencimento: utc(2026, 11, 1), valor: 1000, saldo: 1000 }),
      titulo({ tipo: 'Pagar', documento: 'NF-101', pessoa: 'Distribuidora Alfa', vencimento: utc(2026, 12, 5), valor: 500, saldo: 500 }),
      titulo({ tipo: 'Receber', documento: 'DP-7', parcela: '2', pessoa: 'Posto Central', vencimento: utc(2026, 10, 20), valor: 800, saldo: 300 }),
      titulo({ tipo: 'Receber', documento: 'DP-8', pessoa: 'Posto Sul', vencimento: utc(2026, 12, 2), valor: 200, saldo: 200 }),
    ],
  }), 'exceljs');
}

async function foto(page: Page, nome: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${nome}.png`), fullPage: true });
}

async function entrar(ctx: BrowserContext, login: string, destino = '/processamentos'): Promise<Page> {
  const page = await ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${base}${destino}`);
  expect(new URL(page.url()).pathname).toBe('/login');
  await page.getByRole('button', { name: 'Entrar com a conta da empresa' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('qualquer');
  await page.locator('button[type="submit"]').click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForLoadState('load');
  return page;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const port = await portaLivre();
  base = `http://127.0.0.1:${port}`;
  idp = await startIdp({ ...CLIENT, redirectUri: `${base}/login/callback` });
  db = await createTestDatabase();
  svc = await startPipeline(db, {
    env: {
      OIDC_ISSUER_URL: idp.issuer, OIDC_CLIENT_ID: CLIENT.clientId, OIDC_CLIENT_SECRET: CLIENT.clientSecret,
      OIDC_DOMINIO: DOMINIO, PUBLIC_BASE_URL: base, XLS_IMPORTAR_TOKEN: IMPORTAR_TOKEN, XLS_IMPORTAR_ESPERA_SEGUNDOS: '30',
      // the reset screens: manual restart, the docstore a schema of this database
      REPLICATOR_CONFIRM_SECRET: RESET_SEGREDO, REPLICATOR_RESTART: 'manual',
      REPLICATOR_DOCSTORE_URL: `${db.url}?schema=powersync`, REPLICATOR_POLL_MS: '100',
    },
  });
  await svc.app.listen({ port, host: '127.0.0.1' });
  browser = await abrirChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await idp?.close();
  await db?.drop();
});

describe('login through the identity provider', () => {
  it('an allowed, verified e-mail of the domain gets in and returns to `from`', async () => {
    const ctx = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const page = await ctx.newPage();
      await page.goto(`${base}/pedidos?estado=CANCELADO`);
      await foto(page, '01-login');
      await page.close();
      const p = await entrar(ctx, `ana@${DOMINIO}`, '/pedidos?estado=CANCELADO');
      expect(p.url()).toBe(`${base}/pedidos?estado=CANCELADO`);
      await expect(p.locator('.usuario').textContent()).resolves.toBe('ana');
      const cookies = await ctx.cookies(base);
      const sessao = cookies.find((c) => c.name === 'bi_sessao');
      expect(sessao).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    } finally { await ctx.close(); }
  });

  it('another domain is refused (403 page)', async () => {
    const ctx = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const p = await entrar(ctx, 'ze@outra.com.br');
      await expect(p.locator('.banner-erro').textContent()).resolves.toContain('não é do domínio empresa.com.br');
      await foto(p, '02-login-outro-dominio');
      expect((await ctx.cookies(base)).some((c) => c.name === 'bi_sessao')).toBe(false);
      // hd of another organisation is refused even with an e-mail of the domain
      const p2 = await entrar(await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' }), `bia+hd=outra.com.br@${DOMINIO}`);
      await expect(p2.locator('.banner-erro').textContent()).resolves.toContain('organização outra.com.br');
      await p2.context().close();
    } finally { await ctx.close(); }
  });

  it('a `from` with Unicode (/。x) survives the whole login: the callback lands on its encoded path, never a 500', async () => {
    const ctx = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const p = await entrar(ctx, `ana@${DOMINIO}`, '/login?from=/%E3%80%82x');
      expect(p.url()).toBe(`${base}/%E3%80%82x`);
      await expect(p.locator('h1').textContent()).resolves.toBe('Página não encontrada');
      expect((await ctx.cookies(base)).some((c) => c.name === 'bi_sessao')).toBe(true);
    } finally { await ctx.close(); }
  });

  it('an unverified e-mail is refused', async () => {
    const ctx = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const p = await entrar(ctx, `naoverificado@${DOMINIO}`);
      await expect(p.locator('.banner-erro').textContent()).resolves.toContain('não está verificado');
      await foto(p, '03-login-nao-verificado');
    } finally { await ctx.close(); }
  });
});

describe('every screen and form', () => {
  let ctx: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await db.pool.query(`insert into partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro, cliente_nome, recurso, origem)
      values ('PED-9001', 'CAPTURADO', 'received', 1520.75, now(), now(), 'Posto Central', '{}', 'poll')`);
    ctx = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    page = await entrar(ctx, `ana@${DOMINIO}`);
  }, 60_000);
  afterAll(async () => { await ctx?.close(); });

  it('import page: a FLUXO file, with progress, then its result; a resend says so', async () => {
    const imp = await ctx.newPage();
    await imp.goto(`${base}/xls/importar?k=${IMPORTAR_TOKEN}`);
    await foto(imp, '10-importar');
    await imp.getByLabel('Sua identificação (matrícula ou e-mail)').fill('ana.souza');
    await imp.getByLabel('Seu nome').fill('Ana Souza');
    const bytes = await fluxoXlsx();
    await imp.getByLabel('Planilhas (.xlsx, .xls ou .ods; uma ou mais)').setInputFiles([{ name: 'fluxo-15-11.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: bytes }]);
    await imp.getByRole('button', { name: 'Importar' }).click();
    await imp.waitForURL(/\/xls\/importar\/conjunto\//);
    await imp.locator('section.resultado').first().waitFor({ timeout: 40_000 });
    await foto(imp, '11-importar-resultado');
    const texto = await imp.locator('section.resultado').first().textContent();
    expect(texto).toContain('fluxo-15-11.xlsx');
    expect(texto).toContain('Contas a pagar e receber');
    expect(texto).toContain('Sucesso');
    expect(texto).toMatch(/Posição \(data do relatório\)\s*15\/11\/2026/);
    const celulas = async (i: number) => (await imp.locator('section.resultado table tbody tr').nth(i).locator('th, td').allTextContents())
      .map((t) => t.replace(/\s+/g, ' ').trim()).join(' | ');
    expect(await celulas(0)).toBe('A pagar | 2 | R$ 1.500,00 | R$ 1.000,00 (1)');
    expect(await celulas(1)).toBe('A receber | 2 | R$ 500,00 | R$ 300,00 (1)');
    // a resend of the same file
    await imp.goto(`${base}/xls/importar?k=${IMPORTAR_TOKEN}`);
    await imp.getByLabel('Sua identificação (matrícula ou e-mail)').fill('ana.souza');
    await imp.getByLabel('Seu nome').fill('Ana Souza');
    await imp.getByLabel('Planilhas (.xlsx, .xls ou .ods; uma ou mais)').setInputFiles([{ name: 'fluxo-15-11.xlsx', mimeType: 'application/octet-stream', buffer: bytes }]);
    await imp.getByRole('button', { name: 'Importar' }).click();
    await imp.locator('section.resultado').first().waitFor({ timeout: 40_000 });
    await expect(imp.locator('section.resultado').first().textContent()).resolves.toMatch(/já tinha sido enviado/);
    await foto(imp, '12-importar-reenvio');
    // a type the page does not take
    await imp.goto(`${base}/xls/importar?k=${IMPORTAR_TOKEN}`);
    await imp.getByLabel('Sua identificação (matrícula ou e-mail)').fill('ana.souza');
    await imp.getByLabel('Seu nome').fill('Ana Souza');
    const meta = await buildWorkbook([{ name: 'Plan1', rows: [['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem']] }]);
    await imp.getByLabel('Planilhas (.xlsx, .xls ou .ods; uma ou mais)').setInputFiles([{ name: 'meta.xlsx', mimeType: 'application/octet-stream', buffer: meta }]);
    await imp.getByRole('button', { name: 'Importar' }).click();
    await expect(imp.locator('.banner-erro').textContent()).resolves.toContain('meta.xlsx: é uma planilha de Metas por vendedor');
    await foto(imp, '13-importar-recusa');
    await imp.close();
  }, 90_000);

  it('import page: visible progress while the files wait, then the result (COMPRAS)', async () => {
    // no worker for a moment: the page shows its progress
    for (const r of svc.runners) await r.stop(2000);
    const imp = await ctx.newPage();
    await imp.goto(`${base}/compras/importar?k=${IMPORTAR_TOKEN}`);
    await imp.getByLabel('Sua identificação (matrícula ou e-mail)').fill('ana.souza');
    await imp.getByLabel('Seu nome').fill('Ana Souza');
    const compras = await escrever([{ name: 'Compras', rows: tabela(H.COMPRAS, [
      [utc(2026, 11, 5), '55.555.555/0001-55', 'Distribuidora', 9001, 'Diesel S10', 1202, 5000, 29500.5],
    ]) }], 'exceljs');
    await imp.getByLabel('Planilhas (.xlsx, .xls ou .ods; uma ou mais)').setInputFiles([{ name: 'compras-novembro.xlsx', mimeType: 'application/octet-stream', buffer: compras }]);
    await imp.getByRole('button', { name: 'Importar' }).click();
    await imp.waitForURL(/\/compras\/importar\/conjunto\//);
    await expect(imp.locator('h1').textContent()).resolves.toBe('Importando…');
    await expect(imp.locator('progress').getAttribute('value')).resolves.toBe('0');
    await expect(imp.locator('ul.em-andamento').textContent()).resolves.toContain('Ainda na fila: compras-novembro.xlsx');
    await foto(imp, '14-importar-progresso');
    const runner = new JobRunner(db.pool, jobHandlers(svc.ctx), svc.app.log, { concurrency: 1, pollIntervalMs: 50 });
    svc.runners.push(runner);
    await runner.start(null);
    await imp.locator('section.resultado').first().waitFor({ timeout: 40_000 });
    const texto = await imp.locator('section.resultado').first().textContent();
    expect(texto).toContain('Compras de combustível');
    expect(texto).toContain('Sucesso');
    await foto(imp, '15-importar-compras');
    await imp.close();
  }, 90_000);

  it('processings: list, filters, detail, log, download link', async () => {
    await page.goto(`${base}/processamentos`);
    await foto(page, '20-processamentos');
    await page.getByLabel('Tipo').selectOption('FLUXO_PAGAR_RECEBER');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    expect(page.url()).toContain('tipo=FLUXO_PAGAR_RECEBER');
    await page.getByRole('link', { name: 'fluxo-15-11.xlsx' }).first().click();
    await page.waitForURL(/\/processamentos\/[0-9a-f-]{36}$/);
    await expect(page.locator('h1').textContent()).resolves.toContain('fluxo-15-11.xlsx');
    await expect(page.locator('ol.log-amigavel').textContent()).resolves.toContain('Concluído com sucesso.');
    await foto(page, '21-processamento-detalhe');
    const download = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Baixar o arquivo original' }).click()]);
    expect(download[0].suggestedFilename()).toBe('fluxo-15-11.xlsx');
  });

  it('configuration: create, edit, the 400 by type, delete', async () => {
    await page.goto(`${base}/admin`);
    await foto(page, '30-admin');
    await page.getByRole('link', { name: 'Configurações' }).first().click();
    await foto(page, '31-configuracoes');
    await page.getByRole('link', { name: 'Nova configuração' }).click();
    await page.getByLabel('Chave').fill('intervalo_navegador');
    await page.getByLabel('Tipo').selectOption('integer');
    await page.getByLabel('Valor').fill('dez');
    await page.getByRole('button', { name: 'Criar' }).click();
    await expect(page.locator('.banner-erro').textContent()).resolves.toContain('Nada foi gravado: corrija o campo indicado abaixo.');
    // the error beside its field, tied to it for screen readers
    await expect(page.locator('#c-valor-erro').textContent()).resolves.toContain("Valor 'dez' inválido: use número inteiro");
    await expect(page.getByLabel('Valor').getAttribute('aria-invalid')).resolves.toBe('true');
    await foto(page, '32-configuracao-nova-erro');
    await page.getByLabel('Valor').fill('10');
    await page.getByRole('button', { name: 'Criar' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Configuração criada');
    await page.getByRole('link', { name: 'Editar intervalo_navegador' }).click();
    await foto(page, '33-configuracao-editar');
    await page.getByLabel('Valor').fill('20');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Configuração salva');
    await page.getByRole('button', { name: 'Remover intervalo_navegador' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Configuração removida');
  });

  it('recipients: add, edit, remove; a tampered CSRF token is refused', async () => {
    await page.goto(`${base}/destinatarios`);
    await page.getByLabel('E-mail').fill('operacao@empresa.com.br');
    await page.getByLabel('Nome (opcional)').fill('Operação');
    await page.getByRole('button', { name: 'Adicionar' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Destinatário adicionado');
    await foto(page, '40-destinatarios');
    await page.getByRole('link', { name: 'Editar operacao@empresa.com.br' }).click();
    await page.getByLabel('Nome (opcional)').fill('Operação 24h');
    await foto(page, '41-destinatario-editar');
    await page.getByRole('button', { name: 'Salvar' }).click();
    await expect(page.locator('table').textContent()).resolves.toContain('Operação 24h');
    // CSRF: the form's token tampered in the page
    await page.getByLabel('E-mail').fill('intruso@empresa.com.br');
    await page.locator('form.formulario input[name="_csrf"]').evaluate((el) => { (el as unknown as { value: string }).value = 'adulterado-adulterado-adulterado-adulterado'; });
    const [resp] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Adicionar' }).click()]);
    expect(resp.status()).toBe(400);
    await expect(page.locator('main').textContent()).resolves.toContain('token CSRF inválido');
    await foto(page, '42-csrf-recusado');
    await expect(page.getByRole('link', { name: 'Voltar' }).getAttribute('href')).resolves.toMatch(/^\/destinatarios(\?|$)/);
    expect((await db.pool.query(`select count(*)::int as n from destinatario where email = 'intruso@empresa.com.br'`)).rows[0].n).toBe(0);
    await page.goto(`${base}/destinatarios`);
    await page.getByRole('button', { name: 'Remover operacao@empresa.com.br' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Destinatário removido');
  });

  it('replication reset: refusal of a wrong secret, a real run (manual restart) followed live, the failed detail with instructions', async () => {
    await db.pool.query('create schema powersync; create table powersync.dados (id int); insert into powersync.dados values (1)');
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'Reset da replicação' }).first().click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Reset da replicação');
    await foto(page, '60-replicacao');
    await page.getByLabel('Motivo (opcional, até 500 caracteres)').fill('teste no navegador');
    await page.getByLabel('Segredo de confirmação').fill('segredo-errado');
    await page.getByLabel(/Entendo que a sincronização para/).check();
    await page.getByRole('button', { name: 'Resetar a replicação' }).click();
    await expect(page.locator('.banner-erro').textContent()).resolves.toContain('Segredo de confirmação inválido');
    await foto(page, '61-replicacao-recusa');
    expect((await db.pool.query('select count(*)::int n from xls_resetar_replicator')).rows[0].n).toBe(0);
    await page.getByLabel('Segredo de confirmação').fill(RESET_SEGREDO);
    await page.getByLabel(/Entendo que a sincronização para/).check();
    await page.getByRole('button', { name: 'Resetar a replicação' }).click();
    await page.waitForURL(/\/admin\/replicacao\/[0-9a-f-]{36}\?ok=iniciado$/);
    // the page refreshes itself until the run ends (manual restart: no engine to wait for)
    await page.locator('.status-SUCESSO').first().waitFor({ timeout: 40_000 });
    const texto = await page.locator('main').textContent();
    expect(texto).toContain('FINALIZAR');
    expect(texto).toContain('reinício manual');
    expect(texto).toContain('MANUAL');
    await foto(page, '62-replicacao-sucesso');
    expect((await db.pool.query(`select count(*)::int n from pg_namespace where nspname = 'powersync'`)).rows[0].n).toBe(0);
    // a failed one, as the orphan rule leaves it: the manual recovery instructions are on the detail
    const { rows } = await db.pool.query(`select id from replicacao_resetar('falha simulada', 'psql')`);
    await db.pool.query(`update app.job set status = 'done' where payload ->> 'id' = $1`, [rows[0].id]);
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'EM_ANDAMENTO')`, [rows[0].id]);
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'SUCESSO', 'ok')`, [rows[0].id]);
    await db.pool.query(`select replicacao_passo($1, 'PAUSAR', 'EM_ANDAMENTO')`, [rows[0].id]);
    await db.pool.query(`select replicacao_falhar($1, 'interrompida após reinício da aplicação')`, [rows[0].id]);
    await page.goto(`${base}/admin/replicacao`);
    await page.goto(`${base}/admin/replicacao/${rows[0].id}`);
    await expect(page.locator('section.banner-erro h2').textContent()).resolves.toContain('O que fazer à mão (falha em PAUSAR)');
    await foto(page, '63-replicacao-erro');
  }, 90_000);

  it('orders console: the watchdog in words, Enfileirar', async () => {
    await page.goto(`${base}/pedidos`);
    await expect(page.locator('section.saude h2').textContent()).resolves.toBe('Nenhum evento recebido ainda');
    await expect(page.locator('section.saude').textContent()).resolves.toContain('Nenhum evento do webhook foi recebido ainda.');
    await foto(page, '50-pedidos');
    await page.getByRole('button', { name: 'Enfileirar o pedido PED-9001' }).click();
    await expect(page.locator('.banner-ok').textContent()).resolves.toContain('Pedido PED-9001 enfileirado');
    await page.getByRole('link', { name: /Enfileirados/ }).click();
    await expect(page.locator('table').textContent()).resolves.toContain('PED-9001');
    await foto(page, '51-pedidos-enfileirados');
  });

  it('keyboard: the skip link is the first stop and every field has a label', async () => {
    for (const url of ['/processamentos', '/admin/configuracoes/nova', '/destinatarios', '/pedidos', `/xls/importar?k=${IMPORTAR_TOKEN}`]) {
      await page.goto(`${base}${url}`);
      await page.keyboard.press('Tab');
      // (browser-side code as text: the project's TypeScript has no DOM types)
      await expect(page.evaluate('document.activeElement && document.activeElement.textContent')).resolves.toBe('Pular para o conteúdo');
      const semRotulo = await page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter((el) => !el.labels || el.labels.length === 0).map((el) => el.name)`);
      expect(semRotulo, url).toEqual([]);
    }
  });

  it('logout ends the session', async () => {
    await page.goto(`${base}/processamentos`);
    await page.getByRole('button', { name: 'Sair' }).click();
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.goto(`${base}/processamentos`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });
});
