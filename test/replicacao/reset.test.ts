/**
 * The reset of the replication on real parts: real logical slots held active by a real
 * replication client (pg_recvlogical), a local fake of the hosting platform's REST API that
 * stops and starts it, the docstore as a real Postgres schema with data, an unreachable
 * MongoDB, the messaging bot and the error tracker.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startFakeBot, type FakeBot } from '../harness/fake-bot.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';
import { startFakeSyncEngine, slotAtivo, waitUntil, type FakeSyncEngine } from '../harness/sync-engine.js';
import { startFakeHosting, type FakeHosting } from '../harness/fake-hosting.js';
import { aguardar, iniciar, limpar, startServico, terminou, ultimoNuke, type Servico } from './helpers.js';
import { logCapture } from '../harness/partner.js';

let db: TestDatabase;
let bot: FakeBot;
let tracker: ErrtrackerReceiver;
let engine: FakeSyncEngine;
let hosting: FakeHosting;
let svc: Servico | null = null;
let dbName: string;

beforeAll(async () => {
  [db, bot, tracker] = await Promise.all([createTestDatabase(), startFakeBot(), startErrtrackerReceiver()]);
  initErrtracker({ dsn: tracker.dsn, release: 'test', environment: 'test', commit: null });
  dbName = db.name;
  // the stand-in writes what the real engine leaves in its storage (schema powersync of the
  // docstore database, here the same one) each time it starts: what VERIFICAR_PARIDADE reads
  engine = startFakeSyncEngine(db.url, 'powersync_', { armazenamento: { url: db.url } });
  hosting = await startFakeHosting(engine);
});

afterEach(async () => {
  // an engine start the fake platform scheduled must not spill into the next test
  await waitUntil(async () => !engine.running || (await slotAtivo(db.url, engine.slots.at(-1)!)), 10_000, 'motor estável');
  await svc?.close();
  svc = null;
  await limpar(db.pool);
  hosting.ignoreSuspend = false;
  hosting.failResume = null;
  hosting.calls.length = 0;
});

afterAll(async () => {
  await flushErrtracker();
  await engine?.close();
  await db?.pool.query(`select pg_drop_replication_slot(slot_name) from pg_replication_slots
                         where database = current_database() and not active`).catch(() => undefined);
  await hosting?.close();
  await Promise.all([db?.drop(), bot?.close(), tracker?.close()]);
});

function envBase(extra: Record<string, string> = {}): Record<string, string> {
  return {
    BOT_TOKEN: bot.token, BOT_CHAT_ID: '42', BOT_API_URL: bot.url,
    REPLICATOR_DOCSTORE_URL: `${db.url}?schema=powersync`,
    REPLICATOR_PARADA_LIMITE_S: '20', REPLICATOR_REPLICACAO_LIMITE_S: '30',
    ...extra,
  };
}

function envHosting(extra: Record<string, string> = {}): Record<string, string> {
  return envBase({
    REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_URL: hosting.url,
    REPLICATOR_HOSTING_API_KEY: hosting.apiKey, REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId, ...extra,
  });
}

async function criarDocstore(): Promise<void> {
  await db.pool.query(`drop schema if exists powersync cascade; drop schema if exists vizinho cascade;
    create schema powersync; create table powersync.bucket_data (id bigint primary key, dados text);
    insert into powersync.bucket_data select g, 'x' from generate_series(1, 50) g;
    create schema vizinho; create table vizinho.guardado (id int primary key);
    insert into vizinho.guardado select generate_series(1, 7);`);
}

async function schemas(): Promise<string[]> {
  const { rows } = await db.pool.query<{ n: string }>(`select nspname n from pg_namespace where nspname in ('powersync', 'vizinho') order by 1`);
  return rows.map((r) => r.n);
}

async function slotsDoBanco(): Promise<Array<{ slot_name: string; active: boolean }>> {
  const { rows } = await db.pool.query(`select slot_name, active from pg_replication_slots where database = current_database() order by slot_name`);
  return rows;
}

describe('reset with the hosting strategy (Render API fake) on real slots', () => {
  it('waits for the slot to go inactive, drops every prefixed slot, drops the docstore only, recreates the publication, sees a new slot active, advances ultimo_nuke', async () => {
    await criarDocstore();
    const slot1 = await engine.start();
    await db.pool.query('create table powersync.antes_do_reset (id int)'); // the engine's storage before the reset
    // a second prefixed slot (two can coexist) and a slot of someone else
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [`powersync_${dbName}_velho`]);
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [`outro_${dbName}`]);
    const antes = await ultimoNuke(db.pool);
    const clientesAntes = (await db.pool.query('select count(*)::int n from bi_configuracao')).rows[0].n;
    // a publication gone wrong (a bi_* table left out): RECRIAR_PUBLICACAO drops it and creates it again
    await db.pool.query('alter publication powersync drop table public.bi_cliente');
    const pubAntes = (await db.pool.query(`select oid::text from pg_publication where pubname = 'powersync'`)).rows[0].oid;
    const listen = new pg.Client({ connectionString: db.url });
    await listen.connect();
    const notificacoes: string[] = [];
    listen.on('notification', (n) => notificacoes.push(String(n.payload)));
    await listen.query('listen app_config');

    svc = await startServico(db, db.pool, envHosting());
    const res = await iniciar(svc.app, { motivo: 'aparelhos com dados divergentes' });
    expect(res.statusCode, res.body).toBe(202);
    const inicio = res.json();
    expect(inicio).toMatchObject({ status: 'EM_ANDAMENTO', motivo: 'aparelhos com dados divergentes', finalizadoEm: null });
    expect(res.headers.location).toBe(`/api/transporte/admin/resetar-replicator/${inicio.id}`);

    const d = await aguardar(svc.app, inicio.id, terminou);
    expect(d.status, JSON.stringify(d, null, 1)).toBe('SUCESSO');
    expect(d.passos.map((p) => [p.step, p.status])).toEqual([
      ['VALIDAR', 'SUCESSO'], ['PAUSAR', 'SUCESSO'], ['AGUARDAR_PARADA', 'SUCESSO'], ['RESET_SLOT', 'SUCESSO'],
      ['DROP_DOCSTORE', 'SUCESSO'], ['RECRIAR_PUBLICACAO', 'SUCESSO'], ['RESUME', 'SUCESSO'],
      ['AGUARDAR_REPLICACAO', 'SUCESSO'], ['VERIFICAR_PARIDADE', 'SUCESSO'], ['FINALIZAR', 'SUCESSO'],
    ]);
    for (let i = 1; i < d.passos.length; i++) expect(d.passos[i]!.iniciadoEm >= d.passos[i - 1]!.finalizadoEm!).toBe(true);
    expect(d.stepAtual).toBe('FINALIZAR');
    expect(d.stepFalho).toBeNull();
    expect(d.estrategia).toBe('hosting');
    expect(d.reinicioManual).toBe(false);
    expect(d.instrucoes).toBeNull();
    // the slot held by the engine was dropped only after it went inactive, with the other prefixed one
    expect(d.slotsRemovidos.sort()).toEqual([slot1, `powersync_${dbName}_velho`].sort());
    expect(d.passos.find((p) => p.step === 'AGUARDAR_PARADA')!.mensagem).toMatch(/motor parado em/);
    // a new slot, active, created by the engine the platform resumed
    expect(engine.slots).toHaveLength(2);
    expect(d.slotNovo).toBe(engine.slots[1]);
    expect(await slotAtivo(db.url, engine.slots[1]!)).toBe(true);
    expect((await slotsDoBanco()).map((s) => s.slot_name).sort()).toEqual([engine.slots[1], `outro_${dbName}`].sort());
    // the docstore schema was dropped (nothing else was touched) and the resumed engine made a new one
    expect(await schemas()).toEqual(['powersync', 'vizinho']);
    expect((await db.pool.query(`select to_regclass('powersync.antes_do_reset') t`)).rows[0].t).toBeNull();
    // parity: every synced table, the engine's figures equal to Postgres'
    const paridade = (await db.pool.query('select paridade from xls_resetar_replicator where id = $1', [inicio.id])).rows[0].paridade;
    const sincronizadas = (await db.pool.query('select tabela from app.replicacao_consulta order by 1')).rows.map((r) => r.tabela);
    expect(paridade.map((t: { tabela: string }) => t.tabela)).toEqual(sincronizadas);
    expect(paridade.every((t: { igual: boolean; postgres: number; motor: number }) => t.igual && t.postgres === t.motor)).toBe(true);
    expect(paridade.find((t: { tabela: string }) => t.tabela === 'bi_configuracao').postgres).toBe(clientesAntes);
    expect(d.passos.find((p) => p.step === 'VERIFICAR_PARIDADE')!.mensagem).toMatch(new RegExp(`motor completo em .*: ${sincronizadas.length} tabela\\(s\\)`));
    expect((await db.pool.query('select count(*)::int n from vizinho.guardado')).rows[0].n).toBe(7);
    expect((await db.pool.query('select count(*)::int n from bi_configuracao')).rows[0].n).toBe(clientesAntes);
    // the publication was recreated (a new one) and covers exactly the bi_* tables again
    expect((await db.pool.query(`select oid::text from pg_publication where pubname = 'powersync'`)).rows[0].oid).not.toBe(pubAntes);
    const publicadas = (await db.pool.query(`select tablename from pg_publication_tables where pubname = 'powersync' and schemaname = 'public' order by 1`)).rows;
    const bi = (await db.pool.query(`select relname as tablename from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname like 'bi\\_%' and not c.relispartition order by 1`)).rows;
    expect(publicadas).toEqual(bi);
    expect(publicadas).toContainEqual({ tablename: 'bi_cliente' });
    // ultimo_nuke advanced, and every replica's configuration cache was told (NOTIFY app_config)
    const depois = await ultimoNuke(db.pool);
    expect(Date.parse(depois)).toBeGreaterThan(Date.parse(antes));
    expect(d.ultimoNuke).toBe(depois);
    await waitUntil(async () => notificacoes.includes('ultimo_nuke'), 5_000, 'NOTIFY app_config ultimo_nuke');
    await listen.end();
    // the platform's API was called as documented
    expect(hosting.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /v1/services/${hosting.serviceId}`, `POST /v1/services/${hosting.serviceId}/suspend`, `POST /v1/services/${hosting.serviceId}/resume`,
    ]);
    expect(hosting.calls.every((c) => c.auth === `Bearer ${hosting.apiKey}`)).toBe(true);
    const msg = await bot.waitFor((m) => m.text.includes(inicio.id));
    expect(msg.text).toContain('concluído');
    expect(msg.text).toContain(engine.slots[1]);
  }, 90_000);

  it('an engine that does not stop: ERRO at AGUARDAR_PARADA after the time limit, nothing dropped, manual instructions', async () => {
    if (!engine.running) await engine.start();
    const slot = engine.slots.at(-1)!;
    await criarDocstore();
    hosting.ignoreSuspend = true;
    const antes = await ultimoNuke(db.pool);
    svc = await startServico(db, db.pool, envHosting({ REPLICATOR_PARADA_LIMITE_S: '2' }));
    const res = await iniciar(svc.app, {});
    expect(res.statusCode, res.body).toBe(202);
    const d = await aguardar(svc.app, res.json().id, terminou);
    expect(d.status).toBe('ERRO');
    expect(d.stepAtual).toBe('AGUARDAR_PARADA');
    expect(d.stepFalho).toBe('AGUARDAR_PARADA');
    expect(d.erroMensagem).toContain(slot);
    expect(d.passos.map((p) => [p.step, p.status])).toEqual([['VALIDAR', 'SUCESSO'], ['PAUSAR', 'SUCESSO'], ['AGUARDAR_PARADA', 'ERRO']]);
    expect(d.instrucoes).toMatch(/replicacao_slots/);
    // no automatic cleanup: the slot and the docstore are still there, no resume was asked
    expect(await slotAtivo(db.url, slot)).toBe(true);
    expect(await schemas()).toEqual(['powersync', 'vizinho']);
    expect(hosting.calls.map((c) => c.path)).not.toContain(`/v1/services/${hosting.serviceId}/resume`);
    expect(await ultimoNuke(db.pool)).toBe(antes);
    const msg = await bot.waitFor((m) => m.text.includes(d.id));
    expect(msg.text).toContain('ERRO');
    await flushErrtracker();
    const ev = await tracker.waitFor((e) => String(e.message ?? '').includes(d.id));
    expect(ev.level).toBe('error');
    expect(ev.message).toContain('AGUARDAR_PARADA');
  }, 90_000);

  it('an engine that lacks rows: ERRO at VERIFICAR_PARIDADE after its limit, with the table and both figures; ultimo_nuke stays', async () => {
    if (!engine.running) await engine.start();
    const antes = await ultimoNuke(db.pool);
    const primeira = (await db.pool.query('select tabela from app.replicacao_consulta order by 1 limit 1')).rows[0]?.tabela;
    engine.faltando = 2;
    try {
      // the first synced table needs rows for the engine to lack two of them
      await db.pool.query(`insert into ${primeira} (id, codigo, descricao) select gen_random_uuid(), 'CC' || g, 'centro ' || g from generate_series(1, 5) g`);
      svc = await startServico(db, db.pool, envHosting({ REPLICATOR_PARIDADE_LIMITE_S: '2', REPLICATOR_POLL_MS: '200' }));
      const res = await iniciar(svc.app, { motivo: 'motor incompleto' });
      expect(res.statusCode, res.body).toBe(202);
      const d = await aguardar(svc.app, res.json().id, terminou);
      expect(d.status, JSON.stringify(d, null, 1)).toBe('ERRO');
      expect(d.stepFalho).toBe('VERIFICAR_PARIDADE');
      expect(d.passos.map((p) => [p.step, p.status]).slice(-3)).toEqual([['RESUME', 'SUCESSO'], ['AGUARDAR_REPLICACAO', 'SUCESSO'], ['VERIFICAR_PARIDADE', 'ERRO']]);
      expect(d.erroMensagem).toContain(`${primeira}: Postgres 5, motor 3`);
      expect(d.erroMensagem).toMatch(/ultimo_nuke não avançou/);
      expect(d.instrucoes).toMatch(/ultimo_nuke NÃO foi avançado/);
      expect(await ultimoNuke(db.pool)).toBe(antes);
      const paridade = (await db.pool.query('select paridade from xls_resetar_replicator where id = $1', [d.id])).rows[0].paridade;
      expect(paridade.filter((t: { igual: boolean }) => !t.igual)).toEqual([{ tabela: primeira, postgres: 5, motor: 3, igual: false }]);
    } finally {
      engine.faltando = 0;
      await db.pool.query(`delete from ${primeira}`);
    }
  }, 60_000);

  it('an engine that never comes back: ERRO at AGUARDAR_REPLICACAO after its limit (REPLICATOR_REPLICACAO_LIMITE_S), so a new reset may start', async () => {
    await criarDocstore();
    if (!engine.running) await engine.start();
    hosting.ignoreResume = true;
    try {
      svc = await startServico(db, db.pool, envHosting({ REPLICATOR_REPLICACAO_LIMITE_S: '2' }));
      const res = await iniciar(svc.app, { motivo: 'motor que não volta' });
      expect(res.statusCode, res.body).toBe(202);
      const d = await aguardar(svc.app, res.json().id, terminou);
      expect(d.status, JSON.stringify(d, null, 1)).toBe('ERRO');
      expect(d.stepFalho).toBe('AGUARDAR_REPLICACAO');
      expect(d.erroMensagem).toMatch(/nenhum slot .* ficou ativo em 2 s/);
      expect(d.passos.map((p) => [p.step, p.status]).slice(-2)).toEqual([['RESUME', 'SUCESSO'], ['AGUARDAR_REPLICACAO', 'ERRO']]);
      // nothing holds the reset any more: a new one would not be refused with 409
      expect((await db.pool.query(`select count(*)::int n from xls_resetar_replicator where status = 'EM_ANDAMENTO'`)).rows[0].n).toBe(0);
    } finally {
      hosting.ignoreResume = false;
      if (!engine.running) await engine.start();
    }
  }, 60_000);

  it('DROP_DOCSTORE fails (unreachable MongoDB): RESUME is still attempted, the engine comes back on a new slot, ERRO with instructions', async () => {
    if (!engine.running) await engine.start();
    const slotAntes = engine.slots.at(-1)!;
    const quantos = engine.slots.length;
    const antes = await ultimoNuke(db.pool);
    svc = await startServico(db, db.pool, envHosting({
      REPLICATOR_DOCSTORE_URL: 'mongodb://127.0.0.1:1/powersync', REPLICATOR_DOCSTORE_TIMEOUT_MS: '1500',
    }));
    const res = await iniciar(svc.app, { motivo: 'mongo fora' });
    expect(res.statusCode, res.body).toBe(202);
    const d = await aguardar(svc.app, res.json().id, terminou);
    expect(d.status).toBe('ERRO');
    expect(d.stepFalho).toBe('DROP_DOCSTORE');
    expect(d.erroMensagem).toMatch(/^DROP_DOCSTORE: /);
    expect(d.passos.map((p) => [p.step, p.status])).toEqual([
      ['VALIDAR', 'SUCESSO'], ['PAUSAR', 'SUCESSO'], ['AGUARDAR_PARADA', 'SUCESSO'], ['RESET_SLOT', 'SUCESSO'],
      ['DROP_DOCSTORE', 'ERRO'], ['RECRIAR_PUBLICACAO', 'PULADO'], ['RESUME', 'SUCESSO'], ['AGUARDAR_REPLICACAO', 'PULADO'],
    ]);
    expect(d.slotsRemovidos).toEqual([slotAntes]);
    expect(hosting.calls.map((c) => `${c.method} ${c.path}`)).toContain(`POST /v1/services/${hosting.serviceId}/resume`);
    // the engine came back on a new slot
    await waitUntil(async () => engine.slots.length > quantos, 10_000, 'motor retomado');
    const novo = engine.slots.at(-1)!;
    expect(novo).not.toBe(slotAntes);
    await waitUntil(() => slotAtivo(db.url, novo), 10_000, 'novo slot ativo');
    expect(d.instrucoes).toMatch(/dropDatabase/);
    expect(await ultimoNuke(db.pool)).toBe(antes);
    await bot.waitFor((m) => m.text.includes(d.id) && m.text.includes('DROP_DOCSTORE'));
    await flushErrtracker();
    await tracker.waitFor((e) => String(e.message ?? '').includes(d.id) && String(e.message).includes('DROP_DOCSTORE'));
  }, 90_000);

  it('RESUME fails at the platform: ERRO at RESUME, the engine stays down, instructions say to resume by hand', async () => {
    if (!engine.running) await engine.start();
    await criarDocstore();
    hosting.failResume = 500;
    svc = await startServico(db, db.pool, envHosting());
    const res = await iniciar(svc.app, {});
    const d = await aguardar(svc.app, res.json().id, terminou);
    expect(d.status).toBe('ERRO');
    expect(d.stepFalho).toBe('RESUME');
    expect(d.erroMensagem).toContain('500');
    expect(d.passos.at(-1)).toMatchObject({ step: 'RESUME', status: 'ERRO' });
    expect(d.instrucoes).toMatch(/Retome-o à mão/);
    expect(engine.running).toBe(false);
    expect(await schemas()).toEqual(['vizinho']);
  }, 90_000);
});

describe('refusals on real slots', () => {
  it('VALIDAR fails when the platform refuses the API key: nothing was stopped', async () => {
    if (!engine.running) await engine.start();
    svc = await startServico(db, db.pool, envHosting({ REPLICATOR_HOSTING_API_KEY: 'rnd_errada' }));
    const res = await iniciar(svc.app, {});
    const d = await aguardar(svc.app, res.json().id, terminou);
    expect(d).toMatchObject({ status: 'ERRO', stepFalho: 'VALIDAR' });
    expect(d.erroMensagem).toContain('401');
    expect(hosting.calls.map((c) => c.method)).toEqual(['GET']);
    expect(engine.running).toBe(true);
    expect(await slotAtivo(db.url, engine.slots.at(-1)!)).toBe(true);
  }, 90_000);

  it('replicacao_slots_remover refuses while a prefixed slot is active (RR409) and drops nothing', async () => {
    if (!engine.running) await engine.start();
    const ativo = engine.slots.at(-1)!;
    await db.pool.query(`select pg_create_logical_replication_slot($1, 'test_decoding')`, [`powersync_${dbName}_parado`]);
    await expect(db.pool.query(`select replicacao_slots_remover('powersync_')`)).rejects.toMatchObject({ code: 'RR409' });
    const { rows } = await db.pool.query(`select slot_name, active from replicacao_slots('powersync_')`);
    expect(rows).toEqual(expect.arrayContaining([{ slot_name: ativo, active: true }, { slot_name: `powersync_${dbName}_parado`, active: false }]));
    await db.pool.query(`select pg_drop_replication_slot($1)`, [`powersync_${dbName}_parado`]);
  }, 60_000);
});

describe('reset with the manual strategy', () => {
  it('asks for the stop, waits for it, says the restart is manual, skips AGUARDAR_REPLICACAO with a warning', async () => {
    await criarDocstore();
    if (!engine.running) await engine.start();
    const slot = engine.slots.at(-1)!;
    const antes = await ultimoNuke(db.pool);
    const logs = logCapture();
    svc = await startServico(db, db.pool, envBase({ REPLICATOR_RESTART: 'manual', LOG_LEVEL: 'info' }), { logStream: logs.stream });
    const res = await iniciar(svc.app, null);
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().id;
    expect(res.json().motivo).toBeNull();
    // the progress tells the operator to stop the engine; the reset waits for the slot
    const esperando = await aguardar(svc.app, id, (x) => x.stepAtual === 'AGUARDAR_PARADA');
    expect(esperando.reinicioManual).toBe(true);
    expect(esperando.passos.find((p) => p.step === 'PAUSAR')).toMatchObject({ status: 'AVISO' });
    expect(esperando.passos.find((p) => p.step === 'PAUSAR')!.mensagem).toMatch(/reinício manual/);
    await new Promise((r) => setTimeout(r, 500));
    expect((await aguardar(svc.app, id, () => true)).stepAtual).toBe('AGUARDAR_PARADA');
    await engine.stop(); // the operator stops it by hand
    const d = await aguardar(svc.app, id, terminou);
    expect(d.status, JSON.stringify(d, null, 1)).toBe('SUCESSO');
    expect(d.passos.map((p) => [p.step, p.status])).toEqual([
      ['VALIDAR', 'SUCESSO'], ['PAUSAR', 'AVISO'], ['AGUARDAR_PARADA', 'SUCESSO'], ['RESET_SLOT', 'SUCESSO'],
      ['DROP_DOCSTORE', 'SUCESSO'], ['RECRIAR_PUBLICACAO', 'SUCESSO'], ['RESUME', 'AVISO'],
      ['AGUARDAR_REPLICACAO', 'PULADO'], ['VERIFICAR_PARIDADE', 'AVISO'], ['FINALIZAR', 'SUCESSO'],
    ]);
    expect(d.passos.find((p) => p.step === 'RESUME')!.mensagem).toMatch(/reinício manual/);
    // the engine is not back: what could not be checked is said, and the phones are told anyway (manual)
    expect(d.passos.find((p) => p.step === 'VERIFICAR_PARIDADE')!.mensagem)
      .toMatch(/^reinício manual: paridade não conferida \(o motor ainda não criou seu armazenamento/);
    expect(d.passos.find((p) => p.step === 'AGUARDAR_REPLICACAO')!.mensagem).toMatch(/reinício manual/);
    expect(d.slotsRemovidos).toEqual([slot]);
    expect(await slotsDoBanco()).toEqual([expect.objectContaining({ slot_name: `outro_${dbName}` })]);
    expect(await schemas()).toEqual(['vizinho']);
    expect(Date.parse(await ultimoNuke(db.pool))).toBeGreaterThan(Date.parse(antes));
    expect(hosting.calls).toEqual([]);
    // the operator's part is logged as a warning (pino level 40), one line per step that asks for it
    expect(logs.lines.filter((l) => l.level === 40 && l.resetId === id).map((l) => [l.step, l.msg])).toEqual([
      ['PAUSAR', expect.stringMatching(/^reinício manual: pare o motor/)],
      ['RESUME', 'reinício manual: inicie o motor de sincronização agora'],
      ['AGUARDAR_REPLICACAO', expect.stringMatching(/^reinício manual: a volta da replicação não é aguardada/)],
      ['VERIFICAR_PARIDADE', expect.stringMatching(/^reinício manual: paridade não conferida/)],
    ]);
    const msg = await bot.waitFor((m) => m.text.includes(id));
    expect(msg.text).toContain('MANUAL');
  }, 90_000);

  it('VALIDAR fails without a docstore URL: ERRO at once, nothing else ran', async () => {
    svc = await startServico(db, db.pool, envBase({ REPLICATOR_DOCSTORE_URL: '' }));
    const res = await iniciar(svc.app, {});
    const d = await aguardar(svc.app, res.json().id, terminou);
    expect(d.status).toBe('ERRO');
    expect(d.stepFalho).toBe('VALIDAR');
    expect(d.erroMensagem).toContain('REPLICATOR_DOCSTORE_URL');
    expect(d.passos).toHaveLength(1);
    expect(d.instrucoes).toMatch(/Nada foi alterado/);
  }, 90_000);
});
