// @lane service
/**
 * Parity on demand: the "Paridade" section of /admin/replicacao (?paridade=1) and
 * GET /api/transporte/admin/replicacao/paridade. The engine's storage is the stand-in's
 * (test/harness/armazenamento-substituto.mjs: the tables and rows the real engine leaves after
 * its initial copy), in the test database itself. Then the section in Chromium at 390 px and
 * 1366 px (no sideways scroll, no serious axe-core violation), with screenshots in
 * test-artifacts/layout/ (replicacao-paridade-*): look at them after a change.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { escreverArmazenamento } from '../harness/sync-engine.js';
import { carregarConsultas } from '../../src/replicacao/consultas.js';
import { projectRoot } from '../../src/paths.js';
import { abrirChromium, axe, medir, portaLivre } from './chromium.js';
import { DOMINIO, HTML, appHabilitado, oidcEnv, sessao, type SessaoTeste } from './helpers.js';

const URL_API = '/api/transporte/admin/replicacao/paridade';
const SHOTS = join(projectRoot, 'test-artifacts', 'layout');

let db: TestDatabase;
let s: SessaoTeste;
const apps: FastifyInstance[] = [];
let docstore: string;

async function app(env: Record<string, string>): Promise<FastifyInstance> {
  const a = await appHabilitado(db, env);
  apps.push(a);
  return a;
}

function secao(html: string): string {
  const m = /<section class="paridade" id="replicacao-paridade"[\s\S]*?<\/section>/.exec(html);
  expect(m, 'seção de paridade ausente').not.toBeNull();
  return m![0];
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  db = await createTestDatabase();
  docstore = `${db.url}?schema=powersync`;
  s = await sessao(db);
  await db.pool.query(`insert into bi_centro_custo (codigo, descricao) select 'PAR' || g, 'centro ' || g from generate_series(1, 12) g`);
  await db.pool.query(`insert into bi_vendedor (codigo, nome) select 'V' || g, 'vendedor ' || g from generate_series(1, 3) g`);
  await carregarConsultas(db.pool);
}, 60_000);

afterAll(async () => {
  for (const a of apps) await a.close();
  await db?.drop();
});

describe('parity on demand', () => {
  it('the list page offers the check without running it; ?paridade=1 shows every synced table equal', async () => {
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela');
    const a = await app({ REPLICATOR_DOCSTORE_URL: docstore });
    const antes = await a.inject({ url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie } });
    expect(antes.statusCode).toBe(200);
    expect(secao(antes.body)).toContain('Conferir paridade agora');
    expect(secao(antes.body)).not.toContain('id="paridade-tabelas"');
    const res = await a.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } });
    expect(res.statusCode).toBe(200);
    const html = secao(res.body);
    const tabelas = (await db.pool.query('select count(*)::int n from app.replicacao_consulta')).rows[0].n;
    expect(html).toContain(`O motor está completo: as ${tabelas} tabelas sincronizadas são iguais ao banco.`);
    expect(html).toMatch(/<code>bi_centro_custo<\/code><\/td>\s*<td data-rotulo="No banco">12<\/td>\s*<td data-rotulo="No motor">12<\/td>/);
    expect(html).toContain('slot <code>powersync_1_tela</code>');
    expect(html).not.toContain('paridade-diferente');
  });

  it('an engine that lacks rows, or serves other ids: the table is marked different with both figures', async () => {
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela', 2);
    const a = await app({ REPLICATOR_DOCSTORE_URL: docstore });
    let html = secao((await a.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body);
    expect(html).toContain('O motor difere do banco em 1 tabela(s).');
    expect(html).toMatch(/<tr class="paridade-diferente">\s*<td data-rotulo="Tabela"><code>bi_centro_custo<\/code><\/td>\s*<td data-rotulo="No banco">12<\/td>\s*<td data-rotulo="No motor">10<\/td>\s*<td data-rotulo="Situação"><span class="status status-ERRO">diferente<\/span>/);
    // same count, one id the engine has and Postgres does not
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela');
    await db.pool.query(`update powersync.bucket_data set row_id = gen_random_uuid()::text
                          where op_id = (select min(op_id) from powersync.bucket_data where table_name = 'bi_vendedor')`);
    html = secao((await a.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body);
    expect(html).toMatch(/<code>bi_vendedor<\/code><\/td>\s*<td data-rotulo="No banco">3<\/td>\s*<td data-rotulo="No motor">3<\/td>\s*<td data-rotulo="Situação"><span class="status status-ERRO">ids diferentes<\/span>/);
  });

  it('an engine not read says why: no storage yet, a copy in progress, no docstore URL, MongoDB', async () => {
    const a = await app({ REPLICATOR_DOCSTORE_URL: docstore });
    await db.pool.query('drop schema if exists powersync cascade');
    expect(secao((await a.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body))
      .toContain('Não foi possível conferir: o motor ainda não criou seu armazenamento (schema powersync).');
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela');
    await db.pool.query(`update powersync.sync_rules set snapshot_done = false; update powersync.source_tables set snapshot_done = false where table_name = 'bi_titulo'`);
    expect(secao((await a.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body))
      .toMatch(/Não foi possível conferir: cópia inicial do motor em andamento \(\d+ de \d+ tabela\(s\) copiadas\)/);
    const sem = await app({});
    expect(secao((await sem.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body))
      .toContain('REPLICATOR_DOCSTORE_URL não definida');
    const mongo = await app({ REPLICATOR_DOCSTORE_URL: 'mongodb://127.0.0.1:1/powersync' });
    expect(secao((await mongo.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body))
      .toContain('o armazenamento do motor é MongoDB');
    const fechado = await app({ REPLICATOR_DOCSTORE_URL: `postgres://x:y@127.0.0.1:${await portaLivre()}/nada` });
    expect(secao((await fechado.inject({ url: '/admin/replicacao?paridade=1', headers: { ...HTML, cookie: s.cookie } })).body))
      .toContain('armazenamento do motor inacessível');
  });

  it('GET /api/transporte/admin/replicacao/paridade: 401 without Bearer; the figures per table', async () => {
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela', 1);
    const a = await testApp(db, { REPLICATOR_DOCSTORE_URL: docstore });
    apps.push(a);
    expect((await a.inject({ url: URL_API })).statusCode).toBe(401);
    const res = await a.inject({ url: URL_API, headers: bearer() });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({ conferida: true, motivo: null, slot: 'powersync_1_tela', igual: false });
    expect(p.tabelas.find((t: { tabela: string }) => t.tabela === 'bi_centro_custo')).toEqual({ tabela: 'bi_centro_custo', postgres: 12, motor: 11, igual: false });
    expect(p.tabelas.filter((t: { igual: boolean }) => !t.igual)).toHaveLength(1);
  });

  it('the section in Chromium at 390 px and 1366 px: no sideways scroll, no serious axe violation', async () => {
    await escreverArmazenamento(db.url, db.url, 'powersync_1_tela', 2);
    const port = await portaLivre();
    const base = `http://127.0.0.1:${port}`;
    const servidor = await testApp(db, { ...oidcEnv('http://127.0.0.1:9/', base), REPLICATOR_DOCSTORE_URL: docstore, REPLICATOR_CONFIRM_SECRET: 'segredo-paridade-0123456789' });
    apps.push(servidor);
    await servidor.listen({ port, host: '127.0.0.1' });
    const browser = await abrirChromium();
    const problemas: string[] = [];
    try {
      const cookie = (await sessao(db, `ana.souza@${DOMINIO}`)).token;
      for (const largura of [{ width: 390, height: 844 }, { width: 1366, height: 900 }]) {
        const ctx = await browser.newContext({ viewport: largura, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo', bypassCSP: true });
        try {
          await ctx.addCookies([{ name: 'bi_sessao', value: cookie, url: base }]);
          const page = await ctx.newPage();
          expect((await page.goto(`${base}/admin/replicacao`, { waitUntil: 'load' }))?.status()).toBe(200);
          await page.getByRole('button', { name: 'Conferir paridade agora' }).click();
          await page.waitForSelector('#paridade-tabelas');
          expect(page.url()).toContain('paridade=1');
          const m = await medir(page);
          if (m.scrollWidth > m.innerWidth) problemas.push(`${largura.width}: ${m.scrollWidth} px de largura em ${m.innerWidth} (${m.largos.join('; ')})`);
          for (const v of await axe(page)) problemas.push(`${largura.width}: axe ${v.impact} ${v.id} (${v.help})`);
          await page.locator('#replicacao-paridade').screenshot({ path: join(SHOTS, `replicacao-paridade-${largura.width}.png`) });
        } finally { await ctx.close(); }
      }
    } finally {
      await browser.close();
    }
    expect(problemas).toEqual([]);
  }, 90_000);
});
