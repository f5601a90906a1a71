// @lane service
/**
 * The replication health panel of /admin/replicacao and its JSON, on real slots: the tests'
 * sync engine (pg_recvlogical) holds a prefixed slot active, a local HTTP server stands for
 * the engine's liveness probe, a closed port for an engine that is down. Then the panel in
 * Chromium at 390 px and 1366 px (no sideways scroll, no serious axe-core violation), with
 * screenshots in test-artifacts/layout/ (replicacao-saude-*): look at them after a change.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { bearer, testApp } from '../harness/service.js';
import { startFakeSyncEngine, slotAtivo, waitUntil, type FakeSyncEngine } from '../harness/sync-engine.js';
import { projectRoot } from '../../src/paths.js';
import { abrirChromium, axe, medir, portaLivre } from './chromium.js';
import { DOMINIO, HTML, appHabilitado, oidcEnv, sessao, type SessaoTeste } from './helpers.js';

const SAUDE_URL = '/api/transporte/admin/replicacao/saude';
const SHOTS = join(projectRoot, 'test-artifacts', 'layout');

let db: TestDatabase;
let engine: FakeSyncEngine;
let s: SessaoTeste;
/** the engine's HTTP side: answers GET /probes/liveness with `status` */
let motor: Server;
let motorUrl: string;
let motorStatus = 200;
let motorPedidos: string[] = [];
let fechada: string;
const apps: FastifyInstance[] = [];

async function app(env: Record<string, string>): Promise<FastifyInstance> {
  const a = await appHabilitado(db, env);
  apps.push(a);
  return a;
}

const pagina = async (a: FastifyInstance) => a.inject({ url: '/admin/replicacao', headers: { ...HTML, cookie: s.cookie } });

/** The panel's section alone. */
function painel(html: string): string {
  const m = /<section class="saude saude-(ok|atencao|erro)" id="replicacao-saude"[\s\S]*?<\/section>/.exec(html);
  expect(m, 'painel de saúde ausente').not.toBeNull();
  return m![0];
}

async function escrever(): Promise<void> {
  await db.pool.query(`insert into bi_saude_tela select g, repeat(md5(g::text), 8)
    from (select coalesce(max(id), 0) n from bi_saude_tela) m, generate_series(m.n + 1, m.n + 4000) g`);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  db = await createTestDatabase();
  await db.pool.query('create table bi_saude_tela (id int primary key, texto text)');
  engine = startFakeSyncEngine(db.url);
  await engine.start();
  s = await sessao(db);
  motor = createServer((req, res) => {
    motorPedidos.push(`${req.method} ${req.url}`);
    res.writeHead(req.url === '/probes/liveness' ? motorStatus : 404, { 'content-type': 'application/json' }).end('{"ready":true}');
  });
  await new Promise<void>((r) => motor.listen(0, '127.0.0.1', r));
  motorUrl = `http://127.0.0.1:${(motor.address() as AddressInfo).port}/`;
  fechada = `http://127.0.0.1:${await portaLivre()}`;
}, 60_000);

afterAll(async () => {
  for (const a of apps) await a.close();
  await new Promise<void>((r) => motor?.close(() => r()));
  await engine?.close();
  await db?.pool.query(`select pg_drop_replication_slot(slot_name) from pg_replication_slots
                         where database = current_database() and not active`).catch(() => undefined);
  await db?.drop();
});

describe('the health panel of /admin/replicacao', () => {
  it('an active slot and an engine that answers: "Replicação em dia", the slot active with its pid, its lag in words; above the reset', async () => {
    motorPedidos = [];
    const res = await pagina(await app({ SYNC_ENGINE_URL: motorUrl }));
    expect(res.statusCode).toBe(200);
    const p = painel(res.body);
    expect(p).toContain('saude-ok');
    expect(p).toContain('Replicação em dia');
    expect(p).toMatch(/Motor de sincronização: <strong>acessível<\/strong> \(respondeu em \d+\sms\)\./);
    expect(p).toContain(`<code class="id">${engine.slots[0]}</code>`);
    const pid = (await db.pool.query(`select active_pid from pg_replication_slots where slot_name = $1`, [engine.slots[0]])).rows[0].active_pid;
    expect(p).toContain(`>Ativo (processo ${pid})<`);
    expect(p).toMatch(/<td data-rotulo="Atraso em dados">\d+(,\d)?\s(bytes|kB|MB)<\/td>/);
    expect(p).toContain('O que estes números querem dizer');
    expect(p).toContain('Quando se preocupar');
    // the probe is GET {SYNC_ENGINE_URL}/probes/liveness (the trailing slash of the setting dropped)
    expect(motorPedidos).toEqual(['GET /probes/liveness']);
    // the panel comes before the reset's history and form
    expect(res.body.indexOf('id="replicacao-saude"')).toBeLessThan(res.body.indexOf('Histórico de resets'));
    expect(res.body.indexOf('Histórico de resets')).toBeLessThan(res.body.indexOf('Novo reset'));
  });

  it('SYNC_ENGINE_URL unset: "motor não configurado", and no probe', async () => {
    motorPedidos = [];
    const p = painel((await pagina(await app({}))).body);
    expect(p).toContain('<strong>Motor não configurado</strong>: defina <code>SYNC_ENGINE_URL</code>');
    expect(p).toContain('Replicação em dia'); // the slots still say how replication goes
    expect(motorPedidos).toEqual([]);
  });

  it('an engine that does not answer (a closed port) or answers 503: the panel says it is unreachable and why', async () => {
    const fechado = painel((await pagina(await app({ SYNC_ENGINE_URL: fechada }))).body);
    expect(fechado).toContain('saude-erro');
    expect(fechado).toContain('Replicação interrompida: motor inacessível');
    expect(fechado).toContain('<strong>inacessível</strong> (conexão recusada');
    expect(fechado).toContain('os celulares não conseguem sincronizar');
    expect(fechado).toContain('>Ativo (processo'); // the engine still reads the database
    motorStatus = 503;
    try {
      const p503 = painel((await pagina(await app({ SYNC_ENGINE_URL: motorUrl }))).body);
      expect(p503).toContain('<strong>inacessível</strong> (respondeu HTTP 503).');
    } finally { motorStatus = 200; }
  });

  it('the client stopped and writes go on: the slot inactive since the last minute it was seen active, "Replicação parada", the lag grows', async () => {
    const a = await app({ SYNC_ENGINE_URL: motorUrl });
    await db.pool.query('select app.replicacao_slots_observar()');
    await engine.stop();
    await waitUntil(async () => !(await slotAtivo(db.url, engine.slots[0]!)), 10_000, 'slot inativo');
    const antes = (await db.pool.query(`select lag_bytes::float8 n from replicacao_saude()`)).rows[0].n as number;
    await escrever();
    const p = painel((await pagina(a)).body);
    expect(p).toContain('saude-erro');
    expect(p).toContain('Replicação parada');
    expect(p).toMatch(/>Inativo desde \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(há [^)]+\)</);
    expect(p).toContain('— (sem cliente)');
    const depois = (await db.pool.query(`select lag_bytes::float8 n from replicacao_saude()`)).rows[0].n as number;
    expect(depois).toBeGreaterThan(antes + 500_000);
    expect(p).toMatch(/<td data-rotulo="Atraso em dados">[\d,]+\s(kB|MB)<\/td>/);
    await engine.start(); // a new slot, active: the old one stays without a client
    const q = painel((await pagina(a)).body);
    expect(q).toContain('saude-atencao');
    expect(q).toContain('Replicação com slot sem cliente');
  }, 60_000);
});

describe('GET /api/transporte/admin/replicacao/saude', () => {
  it('without Bearer: 401 problem+json', async () => {
    const a = await testApp(db, { SYNC_ENGINE_URL: fechada });
    apps.push(a);
    const res = await a.inject({ url: SAUDE_URL });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 401 });
  });

  it('200 with the engine, the headline and every slot with every key', async () => {
    const a = await testApp(db, { SYNC_ENGINE_URL: fechada });
    apps.push(a);
    const res = await a.inject({ url: SAUDE_URL, headers: bearer() });
    expect(res.statusCode, res.body).toBe(200);
    const b = res.json();
    expect(Object.keys(b).sort()).toEqual(['motor', 'situacao', 'slots', 'verificadoEm']);
    expect(Date.parse(b.verificadoEm)).toBeGreaterThan(Date.now() - 60_000);
    expect(b.motor).toMatchObject({ configurado: true, acessivel: false, httpStatus: null });
    expect(b.motor.erro).toMatch(/conexão recusada/);
    expect(b.situacao).toMatchObject({ nivel: 'erro', titulo: 'Replicação interrompida: motor inacessível' });
    const ativo = engine.slots.at(-1)!;
    expect(b.slots.map((x: { slotName: string }) => x.slotName)).toEqual([...engine.slots].sort());
    for (const x of b.slots) {
      expect(Object.keys(x).sort()).toEqual(['active', 'activePid', 'confirmedFlushLsn', 'currentLsn', 'flushLagSeconds', 'inactiveAtLeast',
        'inactiveSince', 'lagBytes', 'replayLagSeconds', 'retainedBytes', 'safeWalSize', 'slotName', 'walStatus', 'writeLagSeconds']);
      expect(x.lagBytes).toBeGreaterThanOrEqual(0);
      expect(x.currentLsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    }
    const [velho, novo] = [b.slots.find((x: { slotName: string }) => x.slotName !== ativo), b.slots.find((x: { slotName: string }) => x.slotName === ativo)];
    expect(novo).toMatchObject({ active: true, inactiveSince: null, walStatus: 'reserved' });
    expect(novo.activePid).toBeGreaterThan(0);
    expect(velho).toMatchObject({ active: false, activePid: null, inactiveAtLeast: false, writeLagSeconds: null });
    expect(Date.parse(velho.inactiveSince)).toBeLessThanOrEqual(Date.now());
    expect(velho.lagBytes).toBeGreaterThan(500_000);
    // the unconfigured engine
    const sem = await testApp(db, {});
    apps.push(sem);
    expect((await sem.inject({ url: SAUDE_URL, headers: bearer() })).json().motor).toEqual(
      { configurado: false, acessivel: null, httpStatus: null, erro: null, duracaoMs: null });
  });
});

describe('the panel in a browser', () => {
  let browser: Browser;
  let base: string;
  let servidor: FastifyInstance;
  /** the same service without SYNC_ENGINE_URL */
  let baseSemMotor: string;

  beforeAll(async () => {
    const port = await portaLivre();
    base = `http://127.0.0.1:${port}`;
    servidor = await testApp(db, { ...oidcEnv('http://127.0.0.1:9/', base), SYNC_ENGINE_URL: motorUrl, REPLICATOR_CONFIRM_SECRET: 'segredo-saude-0123456789' });
    apps.push(servidor);
    await servidor.listen({ port, host: '127.0.0.1' });
    const port2 = await portaLivre();
    baseSemMotor = `http://127.0.0.1:${port2}`;
    const semMotor = await testApp(db, { ...oidcEnv('http://127.0.0.1:9/', baseSemMotor), REPLICATOR_CONFIRM_SECRET: 'segredo-saude-0123456789' });
    apps.push(semMotor);
    await semMotor.listen({ port: port2, host: '127.0.0.1' });
    browser = await abrirChromium();
  }, 60_000);
  afterAll(async () => { await browser?.close(); });

  async function fotografar(nome: string, em = base): Promise<string[]> {
    const cookie = (await sessao(db, `ana.souza@${DOMINIO}`)).token;
    const problemas: string[] = [];
    for (const largura of [{ width: 390, height: 844 }, { width: 1366, height: 900 }]) {
      // axe is injected as an inline script: the page's CSP would refuse it
      const ctx = await browser.newContext({ viewport: largura, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo', bypassCSP: true });
      try {
        await ctx.addCookies([{ name: 'bi_sessao', value: cookie, url: em }]);
        const page = await ctx.newPage();
        const res = await page.goto(`${em}/admin/replicacao`, { waitUntil: 'load' });
        expect(res?.status()).toBe(200);
        // the explanations open, so the screenshot shows them too
        await page.locator('#replicacao-saude summary').click();
        const m = await medir(page);
        if (m.scrollWidth > m.innerWidth) problemas.push(`${nome} ${largura.width}: ${m.scrollWidth} px de largura em ${m.innerWidth} (${m.largos.join('; ')})`);
        for (const v of await axe(page)) {
          problemas.push(`${nome} ${largura.width}: axe ${v.impact} ${v.id} (${v.help}) em ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')}`);
        }
        await page.screenshot({ path: join(SHOTS, `replicacao-saude-${nome}-${largura.width}.png`), fullPage: true });
      } finally { await ctx.close(); }
    }
    return problemas;
  }

  it('at 390 px and 1366 px, with one slot active and one without a client, then in order, then with the engine down, then without SYNC_ENGINE_URL: no sideways scroll, no serious axe violation', async () => {
    const problemas = await fotografar('slot-sem-cliente');
    // the old slot dropped: one slot, active, and an engine that answers
    for (const velho of engine.slots.slice(0, -1)) await db.pool.query('select pg_drop_replication_slot($1)', [velho]);
    problemas.push(...await fotografar('em-dia'));
    // the engine stops altogether: its HTTP side refuses, its slot goes inactive (seen active a moment ago)
    await db.pool.query('select app.replicacao_slots_observar()');
    await new Promise<void>((r) => motor.close(() => r()));
    await engine.stop();
    await waitUntil(async () => !(await slotAtivo(db.url, engine.slots.at(-1)!)), 10_000, 'slot inativo');
    await escrever();
    const p = painel((await pagina(servidor)).body);
    expect(p).toContain('Replicação parada: motor inacessível');
    expect(p).toMatch(/>Inativo desde \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(há [^)]+\)</);
    problemas.push(...await fotografar('motor-parado'));
    problemas.push(...await fotografar('motor-nao-configurado', baseSemMotor));
    expect(problemas).toEqual([]);
  }, 120_000);
});
