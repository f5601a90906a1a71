/**
 * The reset of the replication (docs/replicacao.md, "The reset") against the real sync engine
 * and the reference phone. The service runs the reset with the `hosting` strategy; the local
 * fake of the hosting platform's API suspends and resumes the real engine (its stop() and
 * start()); REPLICATOR_DOCSTORE_URL is the engine's storage. Every test compares the phone
 * with Postgres table by table.
 *
 * - a phone that synced before: rows inserted, updated and deleted while the engine is
 *   stopped and again during its initial copy; the reset ends SUCESSO with its ten steps and
 *   every table equal in its parity figures; the phone clears once and ends equal to Postgres;
 * - a phone closed during the whole reset, opened again on the same file: it clears and ends
 *   equal to Postgres;
 * - DROP_DOCSTORE refused (a role that does not own the storage schema): the engine is resumed
 *   anyway and comes back on a new slot from its old storage, ERRO at DROP_DOCSTORE,
 *   ultimo_nuke stays, the phone does not clear and ends equal to Postgres;
 * - an engine deployed with another sync configuration (one table narrowed): ERRO at
 *   VERIFICAR_PARIDADE with the table and both figures, ultimo_nuke stays, the phone keeps its
 *   rows and does not clear;
 * - the engine redeployed with that narrower configuration while the reset has it suspended:
 *   the same ERRO, ultimo_nuke stays and no phone clears, yet a connected phone already holds
 *   the engine's finished copy (the engine's client syncs it), as the error message says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { adminQuery, createTestDatabase, type TestDatabase } from '../harness/db.js';
import {
  abrirCelular, aguardarCelularIgual, dumpCelular, dumpPostgres, startMotor, tabelasSincronizadas, type CelularDeTeste, type Linha, type Motor,
} from '../harness/motor.js';
import { startFakeHosting, type FakeHosting } from '../harness/fake-hosting.js';
import type { FakeSyncEngine } from '../harness/sync-engine.js';
import { projectRoot } from '../../src/paths.js';
import { aguardar, iniciar, startServico, terminou, ultimoNuke, type Detalhe, type Servico } from '../replicacao/helpers.js';
import { logCapture, type LogCapture } from '../harness/partner.js';

const DEZ_PASSOS = ['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME',
  'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR'];

/** Limits short enough for a test, long enough for an engine that takes 8–30 s to boot on a loaded two-core machine. */
const LIMITES = {
  REPLICATOR_PARADA_LIMITE_S: '60', REPLICATOR_REPLICACAO_LIMITE_S: '120', REPLICATOR_PARIDADE_LIMITE_S: '120', REPLICATOR_POLL_MS: '250',
};

/** Seeds a few bi_* tables; bi_movimento is large enough for the engine's initial copy to take a while. */
async function semear(db: TestDatabase, movimentos: number): Promise<void> {
  await db.pool.query(`insert into bi_produto (codigo, descricao) select 'P' || i, 'Produto ' || i from generate_series(1, 40) i`);
  await db.pool.query(`insert into bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf)
    select 'C' || i, 'Cliente ' || i, lpad(i::text, 14, '0'), 'POSTO', 'Cidade ' || (i % 5), case when i % 3 = 0 then 'RJ' else 'SP' end
      from generate_series(1, 30) i`);
  await db.pool.query(`insert into bi_vendedor (codigo, nome, filial) select 'V' || i, 'Vendedor ' || i, 'F' || (i % 3) from generate_series(1, 12) i`);
  await db.pool.query(`insert into bi_titulo (posicao, tipo, documento, parcela, pessoa, vencimento, valor, saldo, atual)
    select date '2026-11-20', case when i % 2 = 0 then 'PAGAR' else 'RECEBER' end, 'D' || i, '1', 'Pessoa ' || i,
           date '2026-12-01' + i, 100 + i, 50 + i, i <= 15
      from generate_series(1, 20) i`);
  await db.pool.query(`insert into bi_movimento (filial, data, lancamento, conta, descricao_conta, historico, debito, credito, placa)
    select 'F' || (i % 7), date '2026-11-01' + (i % 30), 'L' || i, '3.1.01.' || (i % 40), 'Conta ' || (i % 40),
           'Lançamento ' || i, 1000 + i % 100, null, null
      from generate_series(1, $1) i`, [movimentos]);
}

/**
 * An engine deployed with another sync configuration than the repository's: its bi_cliente
 * query has a WHERE the repository's has not, so it serves the clients of SP only.
 */
const REGRAS_SP = readFileSync(join(projectRoot, 'sync-engine', 'sync-rules.yaml'), 'utf8')
  .replace(/(SELECT [^\n]* FROM bi_cliente)$/m, `$1 WHERE uf = 'SP'`);

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** How long each step took, for the figures printed by each test. */
function duracoes(d: Detalhe): string {
  const total = Date.parse(d.finalizadoEm!) - Date.parse(d.iniciadoEm);
  const passos = d.passos.filter((p) => p.finalizadoEm)
    .map((p) => [p.step, Date.parse(p.finalizadoEm!) - Date.parse(p.iniciadoEm)] as const)
    .filter(([, ms]) => ms >= 500).map(([step, ms]) => `${step} ${s(ms)}`);
  return `reset ${s(total)} (${passos.join(', ')})`;
}

const slotsDoMotor = async (db: TestDatabase) => (await db.pool.query<{ slot_name: string; active: boolean }>(
  `select slot_name, active from pg_replication_slots where database = current_database() and slot_name like 'powersync\\_%' order by 1`)).rows;

async function esperar(pred: () => Promise<boolean>, timeoutMs: number, oque: string, intervaloMs = 100): Promise<void> {
  for (const limite = Date.now() + timeoutMs; !(await pred());) {
    if (Date.now() > limite) throw new Error(`tempo esgotado: ${oque}`);
    await new Promise((r) => setTimeout(r, intervaloMs));
  }
}

describe('the reset against the real engine (hosting strategy)', () => {
  let db: TestDatabase;
  let motor: Motor;
  let hosting: FakeHosting;
  let svc: Servico | null = null;
  /** the service's log lines of the latest reset */
  let logs: LogCapture;
  const celulares: CelularDeTeste[] = [];
  const pastas: string[] = [];
  const papeis: string[] = [];
  /** run (and awaited) by the platform's resume before the engine starts again: writes made with the engine stopped */
  let antesDeRetomar: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    db = await createTestDatabase();
    await semear(db, 30_000);
    motor = await startMotor(db);
    // the platform drives the real engine; a resume first runs what the test wants done while it is stopped
    const plataforma: FakeSyncEngine = {
      get running() { return motor.running; },
      get slots() { return motor.slots; },
      stop: () => motor.stop(),
      start: async () => {
        const f = antesDeRetomar;
        antesDeRetomar = null;
        await f?.();
        return motor.start();
      },
      close: () => motor.close(),
    };
    hosting = await startFakeHosting(plataforma);
  });

  afterEach(async () => {
    await svc?.close();
    svc = null;
    antesDeRetomar = null;
  });

  afterAll(async (suite) => {
    for (const c of celulares) await c.fechar().catch(() => undefined);
    await hosting?.close();
    await motor?.close(suite);
    await db?.drop();
    for (const p of papeis) await adminQuery(`drop role if exists ${pg.escapeIdentifier(p)}`).catch(() => undefined);
    for (const p of pastas) rmSync(p, { recursive: true, force: true });
  });

  function env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_URL: hosting.url,
      REPLICATOR_HOSTING_API_KEY: hosting.apiKey, REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId,
      REPLICATOR_DOCSTORE_URL: motor.docstoreUrl, ...LIMITES, ...extra,
    };
  }

  async function resetar(motivo: string, extra: Record<string, string> = {}, durante?: (id: string) => Promise<void>): Promise<Detalhe> {
    logs = logCapture();
    svc = await startServico(db, db.pool, env(extra), { logStream: logs.stream });
    const res = await iniciar(svc.app, { motivo });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().id as string;
    await durante?.(id);
    return aguardar(svc.app, id, terminou, 240_000);
  }

  /** The engine is running again with an active slot, and its storage's ACTIVE rules are on that slot. */
  async function motorDeVolta(): Promise<string> {
    let slot = '';
    await esperar(async () => {
      if (!motor.running) return false;
      const ativos = (await slotsDoMotor(db)).filter((x) => x.active);
      if (ativos.length !== 1) return false;
      const regras = await motor.storage<{ slot_name: string }>(
        `select slot_name from powersync.sync_rules where state = 'ACTIVE' and snapshot_done and last_checkpoint is not null`).catch(() => []);
      slot = ativos[0]!.slot_name;
      return regras.some((r) => r.slot_name === slot);
    }, 180_000, 'o motor voltar com um slot ativo e a cópia inicial feita', 250);
    return slot;
  }

  it('a phone that synced before: rows changed with the engine stopped and during its initial copy; SUCESSO in ten steps, parity equal, the phone clears once and ends equal to Postgres', async () => {
    const registro: Array<[number, string]> = [];
    const celular = await abrirCelular(motor, { log: (l) => registro.push([Date.now(), l]) });
    celulares.push(celular);
    await aguardarCelularIgual(db, celular, { timeoutMs: 120_000 });
    const nukeAntes = await ultimoNuke(db.pool);
    expect(await celular.ultimoNuke()).toBe(nukeAntes);
    const [slotAntes] = motor.slots;

    let comMotorParado = false;
    antesDeRetomar = async () => {
      // the engine is stopped, its slot and storage dropped: what it copies when it comes back
      comMotorParado = !motor.running && (await slotsDoMotor(db)).length === 0;
      await db.pool.query(`insert into bi_produto (codigo, descricao) select 'PN' || i, 'Produto novo ' || i from generate_series(1, 5) i`);
      await db.pool.query(`update bi_cliente set nome = nome || ' (alterado com o motor parado)' where codigo in ('C1', 'C2', 'C3')`);
      await db.pool.query(`delete from bi_vendedor where codigo in ('V1', 'V2')`);
      await db.pool.query(`update bi_titulo set atual = false where documento = 'D1'`); // leaves the phones
      await db.pool.query(`update bi_titulo set atual = true where documento = 'D20'`); // reaches them
    };
    /** bi_movimento's copy in the engine's new storage (rules PROCESSING): undefined before the copy has its tables */
    const copiaMovimento = async () => (await motor.storage<{ feita: boolean; linhas: number | null; regras: boolean }>(
      `select t.snapshot_done feita, t.snapshot_replicated_count linhas, r.snapshot_done regras
         from powersync.source_tables t join powersync.sync_rules r on r.id = t.group_id
        where r.state = 'PROCESSING' and t.table_name = 'bi_movimento'`).catch(() => []))[0];
    let duranteCopia: { antes: unknown; depois: unknown } | null = null;
    let celularNaCopia: { produtos: Linha[]; copiaInacabada: boolean } | null = null;
    const produtosAntes = await dumpCelular(db, celular, 'bi_produto');
    const t0 = Date.now();
    const d = await resetar('paridade no motor real', {}, async () => {
      // during the engine's initial copy: bi_movimento partly copied in the new storage (the engine
      // records its progress every 10,000 rows)
      let antes: Awaited<ReturnType<typeof copiaMovimento>>;
      await esperar(async () => (antes = await copiaMovimento()) !== undefined && !antes.feita && (antes.linhas ?? 0) > 0,
        180_000, 'a cópia de bi_movimento começar', 10);
      // the phone, connected all along, still holds what it held before the reset (read before the copy is seen unfinished again)
      celularNaCopia = { produtos: await dumpCelular(db, celular, 'bi_produto'), copiaInacabada: (await copiaMovimento())?.regras === false };
      await db.pool.query(`update bi_movimento set historico = historico || ' (durante a cópia)' where lancamento in (select 'L' || i from generate_series(1, 30000, 97) i)`);
      await db.pool.query(`delete from bi_movimento where lancamento in (select 'L' || i from generate_series(5, 30000, 211) i)`);
      await db.pool.query(`insert into bi_movimento (filial, data, lancamento, conta, descricao_conta, historico, debito)
        select 'F9', date '2026-11-30', 'LN' || i, '3.1.09', 'Conta nova', 'Inserido durante a cópia', 10 * i from generate_series(1, 20) i`);
      await db.pool.query(`delete from bi_produto where codigo = 'P40'`);
      await db.pool.query(`update bi_produto set descricao = 'Produto novo 1 (durante a cópia)' where codigo = 'PN1'`);
      duranteCopia = { antes, depois: await copiaMovimento() ?? 'cópia concluída' };
    });
    const tReset = Date.now() - t0;

    expect(d.status, JSON.stringify(d, null, 1)).toBe('SUCESSO');
    expect(d.passos.map((p) => [p.step, p.status])).toEqual(DEZ_PASSOS.map((p) => [p, 'SUCESSO']));
    expect(comMotorParado).toBe(true);
    // the writes began while the engine was copying bi_movimento
    expect(duranteCopia).toMatchObject({ antes: { feita: false, linhas: expect.any(Number), regras: false } });
    // nothing of an unfinished copy reaches a phone: it kept its data until the engine's copy was done
    expect(celularNaCopia!.copiaInacabada).toBe(true);
    expect(celularNaCopia!.produtos).toEqual(produtosAntes);
    expect(d.slotsRemovidos).toEqual([slotAntes]);
    expect(d.slotNovo).not.toBe(slotAntes);
    // parity: every synced table, the engine's figures equal to Postgres' (rows changed during the reset included)
    const { rows: [{ paridade }] } = await db.pool.query('select paridade from xls_resetar_replicator where id = $1', [d.id]);
    const tabelas = (await tabelasSincronizadas(db)).map((t) => t.tabela).sort();
    expect(paridade.map((t: { tabela: string }) => t.tabela).sort()).toEqual(tabelas);
    expect(paridade.filter((t: { igual: boolean }) => !t.igual)).toEqual([]);
    const figura = (t: string) => paridade.find((x: { tabela: string }) => x.tabela === t);
    expect(figura('bi_movimento')).toMatchObject({ postgres: (await dumpPostgres(db, 'bi_movimento')).length, igual: true });
    expect(figura('bi_produto')).toMatchObject({ postgres: 44, motor: 44 });
    expect(figura('bi_titulo')).toMatchObject({ postgres: 15, motor: 15 });
    expect(d.passos.find((p) => p.step === 'VERIFICAR_PARIDADE')!.mensagem).toMatch(/^motor completo em /);

    // the phone sees the new ultimo_nuke, clears once, and syncs from zero
    const nukeDepois = await ultimoNuke(db.pool);
    expect(Date.parse(nukeDepois)).toBeGreaterThan(Date.parse(nukeAntes));
    expect(d.ultimoNuke).toBe(nukeDepois);
    await aguardarCelularIgual(db, celular, { timeoutMs: 120_000 });
    await celular.aguardarSincronia(60_000);
    await aguardarCelularIgual(db, celular, { timeoutMs: 30_000 });
    const tIgual = Date.now();
    expect(celular.limpezas).toBe(1);
    expect(await celular.ultimoNuke()).toBe(nukeDepois);
    const limpeza = registro.find(([, l]) => l.startsWith('ultimo_nuke mudou'));
    expect(limpeza?.[1]).toContain(nukeDepois);
    // the rows changed during the reset are on the phone
    const produtos = await dumpCelular(db, celular, 'bi_produto');
    expect(produtos.map((p) => p.codigo)).toEqual(expect.arrayContaining(['PN1', 'PN5']));
    expect(produtos.map((p) => p.codigo)).not.toContain('P40');
    expect((await dumpCelular(db, celular, 'bi_titulo')).map((t) => t.documento)).not.toContain('D1');
    const naCopia = (ls: Linha[]) => ls.filter((m) => m.historico?.endsWith('(durante a cópia)')).length;
    expect(naCopia(await dumpCelular(db, celular, 'bi_movimento'))).toBe(naCopia(await dumpPostgres(db, 'bi_movimento')));
    expect(naCopia(await dumpPostgres(db, 'bi_movimento'))).toBeGreaterThan(300);
    const fim = Date.parse(d.finalizadoEm!);
    console.info(`[reset no motor real] celular on-line: ${duracoes(d)}; esperado pelo teste ${s(tReset)}; `
      + `o celular limpou ${s(limpeza![0] - fim)} após FINALIZAR e ficou igual ao Postgres ${s(tIgual - fim)} após FINALIZAR; `
      + `gravações durante a cópia: ${JSON.stringify(duranteCopia)}`);
    await celular.fechar();
  }, 360_000);

  it('a phone closed during the whole reset, opened again on the same file: it sees the new ultimo_nuke, clears once, ends equal to Postgres', async () => {
    const pasta = mkdtempSync(join(tmpdir(), 'bi-celular-fora-'));
    pastas.push(pasta);
    const arquivo = join(pasta, 'celular.db');
    const antes = await abrirCelular(motor, { arquivo });
    await aguardarCelularIgual(db, antes, { timeoutMs: 120_000 });
    const nukeAntes = await ultimoNuke(db.pool);
    expect(await antes.ultimoNuke()).toBe(nukeAntes);
    const guardado = await dumpCelular(db, antes, 'bi_cliente');
    await antes.fechar();

    antesDeRetomar = async () => {
      await db.pool.query(`update bi_cliente set nome = 'Cliente renomeado com o celular desligado' where codigo = 'C10'`);
      await db.pool.query(`delete from bi_produto where codigo in ('P1', 'P2')`);
    };
    const d = await resetar('celular desligado durante o reset');
    expect(d.status, JSON.stringify(d, null, 1)).toBe('SUCESSO');
    expect(d.passos.map((p) => [p.step, p.status])).toEqual(DEZ_PASSOS.map((p) => [p, 'SUCESSO']));
    const nukeDepois = await ultimoNuke(db.pool);
    expect(Date.parse(nukeDepois)).toBeGreaterThan(Date.parse(nukeAntes));
    await db.pool.query(`insert into bi_cliente (codigo, nome, uf) values ('C900', 'Cliente depois do reset', 'SP')`);

    // the same phone, the same file: what it held while it was off, the old ultimo_nuke
    const registro: Array<[number, string]> = [];
    const t0 = Date.now();
    const celular = await abrirCelular(motor, { arquivo, conectar: false, log: (l) => registro.push([Date.now(), l]) });
    celulares.push(celular);
    expect(await celular.ultimoNuke()).toBe(nukeAntes);
    expect(await dumpCelular(db, celular, 'bi_cliente')).toEqual(guardado);
    expect(celular.limpezas).toBe(0);
    await celular.conectar();
    await celular.aguardarSincronia(120_000);
    await aguardarCelularIgual(db, celular, { timeoutMs: 60_000 });
    const tIgual = Date.now();
    expect(celular.limpezas).toBe(1);
    expect(await celular.ultimoNuke()).toBe(nukeDepois);
    const limpeza = registro.find(([, l]) => l.startsWith('ultimo_nuke mudou'));
    expect(limpeza?.[1]).toBe(`ultimo_nuke mudou de ${nukeAntes} para ${nukeDepois}: limpando os dados e sincronizando do zero`);
    const clientes = await dumpCelular(db, celular, 'bi_cliente');
    expect(clientes.find((c) => c.codigo === 'C10')?.nome).toBe('Cliente renomeado com o celular desligado');
    expect(clientes.map((c) => c.codigo)).toContain('C900');
    console.info(`[reset no motor real] celular desligado: ${duracoes(d)}; religado, limpou ${s(limpeza![0] - t0)} após abrir `
      + `e ficou igual ao Postgres ${s(tIgual - t0)} após abrir`);
    await celular.fechar();
  }, 360_000);

  it('DROP_DOCSTORE refused (a role that does not own the storage schema): RESUME still happens, the engine comes back on a new slot, ERRO, ultimo_nuke stays, the phone does not clear and ends equal to Postgres', async () => {
    const celular = await abrirCelular(motor);
    celulares.push(celular);
    await aguardarCelularIgual(db, celular, { timeoutMs: 120_000 });
    const nukeAntes = await ultimoNuke(db.pool);
    const [slotAntes] = (await slotsDoMotor(db)).filter((x) => x.active).map((x) => x.slot_name);
    expect(slotAntes).toBeDefined();
    // REPLICATOR_DOCSTORE_URL with a role that reaches the storage database but does not own the schema powersync
    const papel = `${db.name}_sem_dono`;
    papeis.push(papel);
    await adminQuery(`create role ${pg.escapeIdentifier(papel)} login`);
    const docstore = new URL(motor.docstoreUrl);
    docstore.username = papel;

    antesDeRetomar = async () => {
      await db.pool.query(`insert into bi_vendedor (codigo, nome, filial) values ('V50', 'Vendedor do reset falho', 'F1')`);
      await db.pool.query(`update bi_produto set descricao = 'Produto alterado no reset falho' where codigo = 'P3'`);
    };
    const t0 = Date.now();
    const d = await resetar('docstore sem permissão', { REPLICATOR_DOCSTORE_URL: docstore.toString() });
    expect(d.status, JSON.stringify(d, null, 1)).toBe('ERRO');
    expect(d.stepFalho).toBe('DROP_DOCSTORE');
    expect(d.erroMensagem).toMatch(/^DROP_DOCSTORE: .*(owner|dono).*powersync/);
    expect(d.passos.map((p) => [p.step, p.status])).toEqual([
      ['VALIDAR', 'SUCESSO'], ['PAUSAR', 'SUCESSO'], ['AGUARDAR_PARADA', 'SUCESSO'], ['RESET_SLOT', 'SUCESSO'],
      ['DROP_DOCSTORE', 'ERRO'], ['RECRIAR_PUBLICACAO', 'PULADO'], ['RESUME', 'SUCESSO'], ['AGUARDAR_REPLICACAO', 'PULADO'],
    ]);
    expect(d.slotsRemovidos).toEqual([slotAntes]);
    expect(await ultimoNuke(db.pool)).toBe(nukeAntes);
    expect(hosting.calls.map((c) => c.path).at(-1)).toBe(`/v1/services/${hosting.serviceId}/resume`);
    expect(logs.lines.filter((l) => l.level === 50 && l.resetId === d.id).map((l) => l.step)).toEqual(['DROP_DOCSTORE']);

    // the engine came back from its old storage (not dropped) and replicates again on a new slot
    const slotNovo = await motorDeVolta();
    const tDeVolta = Date.now();
    expect(slotNovo).not.toBe(slotAntes);
    const regras = await motor.storage<{ slot_name: string; state: string }>('select slot_name, state from powersync.sync_rules order by id');
    expect(regras.map((r) => r.slot_name)).toEqual(expect.arrayContaining([slotAntes, slotNovo]));
    expect(regras.find((r) => r.slot_name === slotNovo)!.state).toBe('ACTIVE');

    // rows written after the reset reach the phone, which never cleared
    await db.pool.query(`insert into bi_produto (codigo, descricao) values ('P900', 'Produto depois do reset falho')`);
    await db.pool.query(`update bi_cliente set uf = 'MG' where codigo = 'C4'`);
    await db.pool.query(`delete from bi_vendedor where codigo = 'V3'`);
    await celular.aguardarSincronia(120_000);
    await aguardarCelularIgual(db, celular, { timeoutMs: 60_000 });
    expect(celular.limpezas).toBe(0);
    expect(await celular.ultimoNuke()).toBe(nukeAntes);
    const produtos = await dumpCelular(db, celular, 'bi_produto');
    expect(produtos.find((p) => p.codigo === 'P3')?.descricao).toBe('Produto alterado no reset falho');
    expect(produtos.map((p) => p.codigo)).toContain('P900');
    console.info(`[reset no motor real] DROP_DOCSTORE recusado: reset ${s(Date.parse(d.finalizadoEm!) - Date.parse(d.iniciadoEm))}; `
      + `motor de volta num slot novo ${s(tDeVolta - t0)} após o início; celular igual ao Postgres ${s(Date.now() - tDeVolta)} depois`);
  }, 360_000);

  it('the engine redeployed with a narrower sync configuration while suspended: ERRO at VERIFICAR_PARIDADE, ultimo_nuke stays and no phone clears, yet a connected phone already holds the engine\'s copy', async () => {
    const celular = await abrirCelular(motor);
    celulares.push(celular);
    await aguardarCelularIgual(db, celular, { timeoutMs: 120_000 });
    const nukeAntes = await ultimoNuke(db.pool);
    const clientes = await dumpPostgres(db, 'bi_cliente');
    const sp = clientes.filter((c) => c.uf === 'SP');
    expect(sp.length).toBeLessThan(clientes.length);
    const outras = (await tabelasSincronizadas(db)).map((t) => t.tabela).filter((t) => t !== 'bi_cliente');

    motor.usarRegrasSync(REGRAS_SP); // what the platform starts at the resume
    try {
      const d = await resetar('motor reimplantado com outra configuração', { REPLICATOR_PARIDADE_LIMITE_S: '20' });
      expect(d.status, JSON.stringify(d, null, 1)).toBe('ERRO');
      expect(d.stepFalho).toBe('VERIFICAR_PARIDADE');
      expect(d.erroMensagem).toContain(`tabelas diferentes: bi_cliente: Postgres ${clientes.length}, motor ${sp.length}`);
      // the message says what the phones do: not told to clear, but the connected ones take the engine's copy
      expect(d.erroMensagem).toContain('a cópia do motor está concluída: os aparelhos conectados já recebem o que ele serve, diferente do Postgres');
      expect(d.instrucoes).toContain('uma cópia concluída, mesmo diferente do Postgres, os aparelhos conectados já recebem (sem limpar)');
      expect(await ultimoNuke(db.pool)).toBe(nukeAntes);

      // the phone never cleared, yet it holds what the engine serves: the clients of SP only
      await esperar(async () => JSON.stringify(await dumpCelular(db, celular, 'bi_cliente')) === JSON.stringify(sp), 120_000,
        'o celular receber a cópia do motor');
      await celular.aguardarSincronia(60_000);
      expect(await dumpCelular(db, celular, 'bi_cliente')).toEqual(sp);
      expect(celular.limpezas).toBe(0);
      expect(await celular.ultimoNuke()).toBe(nukeAntes);
      await aguardarCelularIgual(db, celular, { tabelas: outras, timeoutMs: 30_000 });
      console.info(`[reset no motor real] motor reimplantado com menos linhas: ${duracoes(d)}`);
    } finally {
      motor.usarRegrasSync(undefined);
    }
  }, 360_000);
});

describe('an engine that serves less than the sync configuration says', () => {
  let db: TestDatabase;
  let motor: Motor;
  let hosting: FakeHosting;
  let svc: Servico | null = null;
  let celular: CelularDeTeste | undefined;
  const logs = logCapture();

  beforeAll(async () => {
    expect(REGRAS_SP).toContain(`FROM bi_cliente WHERE uf = 'SP'`);
    db = await createTestDatabase();
    await semear(db, 1_000);
    // deployed so from the start: it serves the clients of SP only (20 of 30)
    motor = await startMotor(db, { regrasSync: REGRAS_SP });
    hosting = await startFakeHosting(motor);
  });

  afterAll(async (suite) => {
    await svc?.close();
    await celular?.fechar();
    await hosting?.close();
    await motor?.close(suite);
    await db?.drop();
  });

  it('ERRO at VERIFICAR_PARIDADE after its limit, naming the table with both figures; ultimo_nuke stays; the phone does not clear and keeps its rows', async () => {
    const outras = (await tabelasSincronizadas(db)).map((t) => t.tabela).filter((t) => t !== 'bi_cliente');
    const sp = async () => (await dumpPostgres(db, 'bi_cliente')).filter((c) => c.uf === 'SP');
    celular = await abrirCelular(motor);
    // the phone holds what this engine serves: every other table as Postgres, the clients of SP
    await aguardarCelularIgual(db, celular, { tabelas: outras, timeoutMs: 120_000 });
    await celular.aguardarSincronia(60_000);
    expect(await dumpCelular(db, celular, 'bi_cliente')).toEqual(await sp());
    const antes: Record<string, Linha[]> = {};
    for (const t of [...outras, 'bi_cliente']) antes[t] = await dumpCelular(db, celular, t);
    const nukeAntes = await ultimoNuke(db.pool);
    expect(await celular.ultimoNuke()).toBe(nukeAntes);

    svc = await startServico(db, db.pool, {
      REPLICATOR_RESTART: 'hosting', REPLICATOR_HOSTING_API_URL: hosting.url,
      REPLICATOR_HOSTING_API_KEY: hosting.apiKey, REPLICATOR_HOSTING_SERVICE_ID: hosting.serviceId,
      REPLICATOR_DOCSTORE_URL: motor.docstoreUrl, ...LIMITES, REPLICATOR_PARIDADE_LIMITE_S: '20',
    }, { logStream: logs.stream });
    const res = await iniciar(svc.app, { motivo: 'motor com outra configuração' });
    expect(res.statusCode, res.body).toBe(202);
    const d = await aguardar(svc.app, res.json().id, terminou, 240_000);
    expect(d.status, JSON.stringify(d, null, 1)).toBe('ERRO');
    expect(d.stepFalho).toBe('VERIFICAR_PARIDADE');
    expect(d.passos.map((p) => [p.step, p.status])).toEqual(DEZ_PASSOS.slice(0, 9).map((p, i) => [p, i < 8 ? 'SUCESSO' : 'ERRO']));
    expect(d.erroMensagem).toMatch(/o motor não ficou igual ao Postgres em 20 s; ultimo_nuke não avançou \(nenhum aparelho foi mandado limpar os dados\)/);
    expect(d.erroMensagem).toContain('tabelas diferentes: bi_cliente: Postgres 30, motor 20');
    const { rows: [{ paridade }] } = await db.pool.query('select paridade from xls_resetar_replicator where id = $1', [d.id]);
    expect(paridade.filter((t: { igual: boolean }) => !t.igual)).toEqual([{ tabela: 'bi_cliente', postgres: 30, motor: 20, igual: false }]);
    expect(await ultimoNuke(db.pool)).toBe(nukeAntes);
    expect(logs.lines.filter((l) => l.level === 50 && l.resetId === d.id).map((l) => l.step)).toEqual(['VERIFICAR_PARIDADE']);

    // the phone: no clear, the same ultimo_nuke, every row as before (each other table still equal to Postgres)
    await celular.aguardarSincronia(120_000);
    expect(celular.limpezas).toBe(0);
    expect(await celular.ultimoNuke()).toBe(nukeAntes);
    for (const t of [...outras, 'bi_cliente']) expect(await dumpCelular(db, celular, t), t).toEqual(antes[t]);
    await aguardarCelularIgual(db, celular, { tabelas: outras, timeoutMs: 10_000 });

    // the engine goes on from its rebuilt storage: a change after the failed reset reaches the phone, which still has not cleared
    const t0 = Date.now();
    await db.pool.query(`insert into bi_cliente (codigo, nome, uf) values ('C901', 'Cliente depois da paridade', 'SP')`);
    await db.pool.query(`update bi_produto set descricao = 'Produto depois da paridade' where codigo = 'P5'`);
    await celular.aguardarSincronia(120_000);
    await aguardarCelularIgual(db, celular, { tabelas: outras, timeoutMs: 60_000 });
    expect(await dumpCelular(db, celular, 'bi_cliente')).toEqual(await sp());
    expect(celular.limpezas).toBe(0);
    console.info(`[reset no motor real] paridade diferente: ${duracoes(d)}; uma alteração depois chegou ao celular em ${s(Date.now() - t0)}`);
  }, 360_000);
});
