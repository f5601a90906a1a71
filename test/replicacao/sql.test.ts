/** The reset's SQL from psql: start, one EM_ANDAMENTO, step log, ultimo_nuke, the orphan rule. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { limpar, ultimoNuke } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterEach(async () => {
  await limpar(db.pool);
  await db.pool.query('delete from bi_titulo; delete from bi_centro_custo');
});
afterAll(async () => { await db?.drop(); });

async function iniciar(motivo: string | null = null): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>('select id from replicacao_resetar($1)', [motivo]);
  return rows[0]!.id;
}

async function exec(id: string) {
  const { rows } = await db.pool.query('select * from xls_resetar_replicator where id = $1', [id]);
  return rows[0];
}

/** VERIFICAR_PARIDADE ended SUCESSO: what replicacao_finalizar requires before ultimo_nuke moves. */
async function paridadeConferida(id: string): Promise<void> {
  await db.pool.query(`select replicacao_passo($1, 'VERIFICAR_PARIDADE', 'EM_ANDAMENTO')`, [id]);
  await db.pool.query(`select replicacao_passo($1, 'VERIFICAR_PARIDADE', 'SUCESSO', 'ok')`, [id]);
}

async function conexao(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  return c;
}

describe('replicacao_resetar', () => {
  it('starts an execution and its job (one attempt); a second one is RR409 with the running id', async () => {
    const id = await iniciar('pelo psql');
    expect(await exec(id)).toMatchObject({ status: 'EM_ANDAMENTO', motivo: 'pelo psql', solicitante: 'psql', step_atual: null });
    const job = await db.pool.query(`select kind, max_attempts from app.job where id = (select job_id from xls_resetar_replicator where id = $1)`, [id]);
    expect(job.rows[0]).toEqual({ kind: 'replicacao_resetar', max_attempts: 1 });
    await expect(iniciar()).rejects.toMatchObject({ code: 'RR409', detail: id });
  });

  it('motivo: trimmed, empty is null, more than 500 characters is RR400', async () => {
    await expect(iniciar('m'.repeat(501))).rejects.toMatchObject({ code: 'RR400' });
    const id = await iniciar('   ');
    expect((await exec(id)).motivo).toBeNull();
  });

  it('the partial unique index holds even for direct inserts; ended executions do not count', async () => {
    await db.pool.query(`insert into xls_resetar_replicator (status, finalizado_em, erro_mensagem) values ('ERRO', now(), 'x'), ('SUCESSO', now(), null)`);
    await db.pool.query(`insert into xls_resetar_replicator default values`);
    await expect(db.pool.query(`insert into xls_resetar_replicator default values`)).rejects.toMatchObject({ code: '23505' });
    await expect(db.pool.query(`insert into xls_resetar_replicator (motivo) values (repeat('a', 501))`)).rejects.toMatchObject({ code: '23514' });
  });
});

describe('steps and outcome', () => {
  it('replicacao_passo records each step; refusals have codes', async () => {
    const id = await iniciar();
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'EM_ANDAMENTO', 'conferindo')`, [id]);
    expect((await exec(id)).step_atual).toBe('VALIDAR');
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'SUCESSO', 'ok')`, [id]);
    const { rows } = await db.pool.query(`select step, ordem, status, mensagem, finalizado_em is not null fim from xls_resetar_replicator_passo where execucao_id = $1`, [id]);
    expect(rows).toEqual([{ step: 'VALIDAR', ordem: 1, status: 'SUCESSO', mensagem: 'ok', fim: true }]);
    await expect(db.pool.query(`select replicacao_passo($1, 'OUTRO', 'SUCESSO')`, [id])).rejects.toMatchObject({ code: 'RR400' });
    await expect(db.pool.query(`select replicacao_passo($1, 'PAUSAR', 'FEITO')`, [id])).rejects.toMatchObject({ code: 'RR400' });
    await expect(db.pool.query(`select replicacao_passo('00000000-0000-4000-8000-000000000000', 'PAUSAR', 'SUCESSO')`)).rejects.toMatchObject({ code: 'RR404' });
    await db.pool.query(`select replicacao_falhar($1, 'fim')`, [id]);
    await expect(db.pool.query(`select replicacao_passo($1, 'PAUSAR', 'EM_ANDAMENTO')`, [id])).rejects.toMatchObject({ code: 'RR409' });
    await expect(db.pool.query(`select replicacao_finalizar($1)`, [id])).rejects.toMatchObject({ code: 'RR409' });
  });

  it('replicacao_finalizar advances ultimo_nuke (never backwards), ends SUCESSO and queues the bot notice', async () => {
    // a stored value in the future (clock skew): it still moves forward
    await db.pool.query(`update bi_configuracao set valor = '2099-01-01T00:00:00.000Z' where chave = 'ultimo_nuke'`);
    const id = await iniciar('finalizar');
    await paridadeConferida(id);
    const { rows } = await db.pool.query('select * from replicacao_finalizar($1)', [id]);
    expect(rows[0]).toMatchObject({ status: 'SUCESSO', ultimo_nuke: '2099-01-01T00:00:00.001Z', step_atual: 'FINALIZAR' });
    expect(await ultimoNuke(db.pool)).toBe('2099-01-01T00:00:00.001Z');
    const bot = await db.pool.query(`select payload ->> 'texto' t from app.job where kind = 'bot_mensagem' and payload ->> 'texto' like $1`, [`%${id}%`]);
    expect(bot.rows[0].t).toMatch(/concluído/);
    await db.pool.query(`update bi_configuracao set valor = '2020-01-01T00:00:00.000Z' where chave = 'ultimo_nuke'`);
    const agora = Date.now();
    const novo = (await db.pool.query<{ v: string }>('select replicacao_ultimo_nuke_avancar() v')).rows[0]!.v;
    expect(novo).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(novo) - agora)).toBeLessThan(60_000);
  });

  it('replicacao_finalizar creates ultimo_nuke when the row is missing', async () => {
    await db.pool.query(`delete from bi_configuracao where chave = 'ultimo_nuke'`);
    const id = await iniciar('finalizar sem linha');
    await paridadeConferida(id);
    const agora = Date.now();
    const { rows } = await db.pool.query('select * from replicacao_finalizar($1)', [id]);
    expect(rows[0]).toMatchObject({ status: 'SUCESSO' });
    const { rows: linha } = await db.pool.query(`select valor, tipo, sistema from bi_configuracao where chave = 'ultimo_nuke'`);
    expect(linha).toEqual([{ valor: rows[0].ultimo_nuke, tipo: 'string', sistema: true }]);
    expect(Math.abs(Date.parse(linha[0].valor) - agora)).toBeLessThan(60_000);
  });

  it('a step that fails keeps the first failed step; replicacao_falhar closes the running step and notifies', async () => {
    const id = await iniciar();
    await db.pool.query(`select replicacao_passo($1, 'DROP_DOCSTORE', 'EM_ANDAMENTO')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'DROP_DOCSTORE', 'ERRO', 'mongo fora')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'RESUME', 'EM_ANDAMENTO')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'RESUME', 'SUCESSO', 'ok')`, [id]);
    const { rows } = await db.pool.query('select * from replicacao_falhar($1, $2)', [id, 'DROP_DOCSTORE: mongo fora']);
    expect(rows[0]).toMatchObject({ status: 'ERRO', step_atual: 'RESUME', step_falho: 'DROP_DOCSTORE', erro_mensagem: 'DROP_DOCSTORE: mongo fora' });
    const txt = await db.pool.query(`select payload ->> 'texto' t from app.job where kind = 'bot_mensagem' and payload ->> 'texto' like $1`, [`%${id}%`]);
    expect(txt.rows[0].t).toMatch(/ERRO[\s\S]*Passo: DROP_DOCSTORE/);
    // a no-op on an ended execution
    expect((await db.pool.query('select status from replicacao_falhar($1, $2)', [id, 'outra'])).rows[0].status).toBe('ERRO');
  });

  it('replicacao_instrucoes has a text for every step', async () => {
    const { rows } = await db.pool.query(`select s, replicacao_instrucoes(s, e) t from unnest(array['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA',
      'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'FINALIZAR']) s, unnest(array['hosting', 'manual']) e`);
    for (const r of rows) expect(String(r.t ?? '').length, r.s).toBeGreaterThan(60);
    expect(rows).toHaveLength(18);
    expect((await db.pool.query(`select replicacao_instrucoes('OUTRO') t`)).rows[0].t).toBeNull();
  });
});

describe('parity (VERIFICAR_PARIDADE)', () => {
  // buckets named so that their order is not the tables' (the queries are kept and read by table)
  const consultas = [
    { bucket: 'atuais', consulta: 'SELECT id, posicao, atual FROM bi_titulo WHERE atual = true' },
    { bucket: 'todos', consulta: 'SELECT id, codigo, descricao FROM bi_centro_custo' },
  ];
  const hash = async (ids: string[]) => (await db.pool.query<{ s: string }>(
    'select coalesce(sum(app.replicacao_id_hash(i)), 0)::text s from unnest($1::text[]) i', [ids])).rows[0]!.s;

  it('replicacao_consultas_definir keeps the sync configuration\'s queries, and refuses what is not SELECT … FROM bi_… [WHERE …]', async () => {
    expect((await db.pool.query('select replicacao_consultas_definir($1::jsonb) n', [JSON.stringify(consultas)])).rows[0].n).toBe(2);
    expect((await db.pool.query('select tabela, bucket, filtro from app.replicacao_consulta order by 1')).rows).toEqual([
      { tabela: 'bi_centro_custo', bucket: 'todos', filtro: null },
      { tabela: 'bi_titulo', bucket: 'atuais', filtro: 'atual = true' },
    ]);
    for (const bad of [
      [{ bucket: 'x', consulta: 'DELETE FROM bi_titulo' }],
      [{ bucket: 'x', consulta: 'SELECT id FROM bi_titulo; drop table bi_titulo' }],
      [{ bucket: 'x', consulta: 'SELECT id FROM xls_processamento' }],
      [{ bucket: 'x', consulta: 'SELECT id FROM bi_nao_existe' }],
      [{ bucket: 'x', consulta: 'SELECT id FROM bi_titulo' }, { bucket: 'y', consulta: 'SELECT id FROM bi_titulo WHERE atual' }],
    ]) {
      await expect(db.pool.query('select replicacao_consultas_definir($1::jsonb)', [JSON.stringify(bad)]), JSON.stringify(bad)).rejects.toMatchObject({ code: 'RR400' });
    }
    await expect(db.pool.query(`select replicacao_consultas_definir('{}'::jsonb)`)).rejects.toMatchObject({ code: 'RR400' });
    // a refusal keeps the queries in place (one transaction)
    expect((await db.pool.query('select count(*)::int n from app.replicacao_consulta')).rows[0].n).toBe(2);
  });

  it('replicacao_paridade compares rows under the filters and the ids; a missing, extra or different row is a difference', async () => {
    await db.pool.query('select replicacao_consultas_definir($1::jsonb)', [JSON.stringify(consultas)]);
    const { rows: cc } = await db.pool.query<{ id: string }>(
      `insert into bi_centro_custo (codigo, descricao) select 'P' || g, 'c' || g from generate_series(1, 4) g returning id::text`);
    const { rows: tt } = await db.pool.query<{ id: string; atual: boolean }>(
      `insert into bi_titulo (posicao, tipo, documento, parcela, pessoa, vencimento, valor, saldo, atual)
       select date '2026-11-01' + g, 'PAGAR', 'D' || g, '1', 'p', date '2026-12-01', 10, 10, g % 2 = 0 from generate_series(1, 6) g returning id::text, atual`);
    const atuais = tt.filter((t) => t.atual).map((t) => t.id);
    // in the table's order, as a DBA reads it in psql
    expect((await db.pool.query('select tabela, linhas::int from replicacao_paridade_postgres()')).rows)
      .toEqual([{ tabela: 'bi_centro_custo', linhas: 4 }, { tabela: 'bi_titulo', linhas: 3 }]);
    const ids = cc.map((r) => r.id);
    const motor = async (ccIds: string[], tIds: string[], extra: object[] = []) => (await db.pool.query(
      'select tabela, postgres::int, motor::int, igual from replicacao_paridade($1::jsonb)',
      [JSON.stringify([{ tabela: 'bi_centro_custo', linhas: ccIds.length, ids: await hash(ccIds) },
        { tabela: 'bi_titulo', linhas: tIds.length, ids: await hash(tIds) }, ...extra])])).rows;
    expect(await motor(ids, atuais)).toEqual([
      { tabela: 'bi_centro_custo', postgres: 4, motor: 4, igual: true }, { tabela: 'bi_titulo', postgres: 3, motor: 3, igual: true }]);
    // a row the engine lacks; a non-current position it serves (the filter); the same count with another id
    expect((await motor(ids.slice(1), atuais))[0]).toEqual({ tabela: 'bi_centro_custo', postgres: 4, motor: 3, igual: false });
    expect((await motor(ids, tt.map((t) => t.id)))[1]).toEqual({ tabela: 'bi_titulo', postgres: 3, motor: 6, igual: false });
    const outro = (await db.pool.query<{ id: string }>('select gen_random_uuid()::text id')).rows[0]!.id;
    expect((await motor([...ids.slice(1), outro], atuais))[0]).toEqual({ tabela: 'bi_centro_custo', postgres: 4, motor: 4, igual: false });
    // a table only the engine has, and a table the engine lacks entirely
    expect(await motor(ids, atuais, [{ tabela: 'bi_intrusa', linhas: 1, ids: '5' }])).toContainEqual({ tabela: 'bi_intrusa', postgres: 0, motor: 1, igual: false });
    // a table the engine has and Postgres not: rows or ids alone make it different
    expect(await motor(ids, atuais, [{ tabela: 'bi_intrusa', linhas: 1, ids: '0' }])).toContainEqual({ tabela: 'bi_intrusa', postgres: 0, motor: 1, igual: false });
    expect(await motor(ids, atuais, [{ tabela: 'bi_intrusa', linhas: 0, ids: '1' }])).toContainEqual({ tabela: 'bi_intrusa', postgres: 0, motor: 0, igual: false });
    expect((await db.pool.query(`select tabela, postgres::int, motor::int, igual from replicacao_paridade('[]') order by 1`)).rows[1])
      .toEqual({ tabela: 'bi_titulo', postgres: 3, motor: 0, igual: false });
  });

  it('replicacao_paridade_conferir keeps the figures on the execution; replicacao_finalizar refuses until the step ended SUCESSO or AVISO', async () => {
    await db.pool.query('select replicacao_consultas_definir($1::jsonb)', [JSON.stringify(consultas)]);
    await db.pool.query(`insert into bi_centro_custo (codigo) values ('Z1'), ('Z2')`);
    const id = await iniciar('paridade');
    const conferir = async (motor: object[]) => (await db.pool.query('select replicacao_paridade_conferir($1, $2::jsonb) ok', [id, JSON.stringify(motor)])).rows[0].ok;
    expect(await conferir([{ tabela: 'bi_centro_custo', linhas: 1, ids: '0' }])).toBe(false);
    expect((await exec(id)).paridade).toEqual([
      { tabela: 'bi_centro_custo', postgres: 2, motor: 1, igual: false }, { tabela: 'bi_titulo', postgres: 0, motor: 0, igual: true }]);
    const ids = (await db.pool.query<{ id: string }>('select id::text from bi_centro_custo')).rows.map((r) => r.id);
    expect(await conferir([{ tabela: 'bi_centro_custo', linhas: 2, ids: await hash(ids) }])).toBe(true);
    // no table configured is never "equal"
    await db.pool.query(`delete from app.replicacao_consulta`);
    expect(await conferir([])).toBe(false);
    // FINALIZAR: not without the step (other steps done do not count), not while it runs, not
    // after an ERRO of it; yes after SUCESSO or AVISO
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'EM_ANDAMENTO')`, [id]);
    await db.pool.query(`select replicacao_passo($1, 'VALIDAR', 'SUCESSO', 'ok')`, [id]);
    await expect(db.pool.query('select replicacao_finalizar($1)', [id])).rejects.toMatchObject({ code: 'RR409' });
    await db.pool.query(`select replicacao_passo($1, 'VERIFICAR_PARIDADE', 'EM_ANDAMENTO')`, [id]);
    await expect(db.pool.query('select replicacao_finalizar($1)', [id])).rejects.toMatchObject({ code: 'RR409' });
    await db.pool.query(`select replicacao_passo($1, 'VERIFICAR_PARIDADE', 'AVISO', 'não conferida')`, [id]);
    expect((await db.pool.query('select status from replicacao_finalizar($1)', [id])).rows[0].status).toBe('SUCESSO');
    const id2 = await iniciar('paridade errada');
    await db.pool.query(`select replicacao_passo($1, 'VERIFICAR_PARIDADE', 'ERRO', 'diferente')`, [id2]);
    await expect(db.pool.query('select replicacao_finalizar($1)', [id2])).rejects.toMatchObject({ code: 'RR409' });
    await db.pool.query(`select replicacao_falhar($1, 'fim')`, [id2]);
    // an ended execution, with another one running: refused, and the running one untouched
    const id3 = await iniciar('a que roda');
    await expect(db.pool.query('select replicacao_paridade_conferir($1, $2::jsonb)', [id2, '[]'])).rejects.toMatchObject({ code: 'RR409' });
    expect((await exec(id3)).paridade).toBeNull();
  });
});

describe('replicacao_instrucoes', () => {
  it('says what to do by hand per step and strategy: PAUSAR differs under hosting and manual; VERIFICAR_PARIDADE says ultimo_nuke stayed', async () => {
    const texto = async (step: string, estrategia: string) =>
      (await db.pool.query<{ t: string }>('select replicacao_instrucoes($1, $2) t', [step, estrategia])).rows[0]!.t;
    expect(await texto('PAUSAR', 'hosting')).toMatch(/painel da plataforma/);
    expect(await texto('PAUSAR', 'manual')).toMatch(/^O pedido de parada manual não foi registrado/);
    expect(await texto('VERIFICAR_PARIDADE', 'hosting')).toMatch(/ultimo_nuke NÃO foi avançado/);
    expect(await texto('VERIFICAR_PARIDADE', 'manual')).toMatch(/replicacao_ultimo_nuke_avancar/);
  });
});

describe('orphan rule (replicacao_recuperar) and the execution lock', () => {
  it('an execution taken by a session that died is ERRO "interrompida após reinício da aplicação", step_atual kept; a new reset can start', async () => {
    const id = await iniciar('órfã');
    const c = await conexao();
    const assumida = await c.query('select * from replicacao_assumir($1, $2, $3)', [id, 'w-morto', 'manual']);
    expect(assumida.rows[0]).toMatchObject({ worker: 'w-morto', estrategia: 'manual' });
    await c.query(`select replicacao_passo($1, 'AGUARDAR_PARADA', 'EM_ANDAMENTO')`, [id]);
    // alive: another session cannot take it, and the orphan rule leaves it alone
    const c2 = await conexao();
    expect((await c2.query('select (replicacao_assumir($1, $2, $3)).id', [id, 'w-2', 'manual'])).rows[0].id).toBeNull();
    expect((await db.pool.query('select * from replicacao_recuperar()')).rows).toEqual([]);
    // the process dies: its connection (and lock) goes
    await c.query('select pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
    await c.end().catch(() => undefined);
    const { rows } = await db.pool.query('select * from replicacao_recuperar()');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id, status: 'ERRO', erro_mensagem: 'interrompida após reinício da aplicação', step_atual: 'AGUARDAR_PARADA' });
    const passo = await db.pool.query(`select status from xls_resetar_replicator_passo where execucao_id = $1 and step = 'AGUARDAR_PARADA'`, [id]);
    expect(passo.rows[0].status).toBe('ERRO');
    expect(await iniciar('depois da órfã')).toMatch(/-/);
    await c2.end();
  });

  it('leaves alone an execution whose job is queued, or just claimed, and takes one whose job is gone', async () => {
    const id = await iniciar();
    expect((await db.pool.query('select * from replicacao_recuperar()')).rows).toEqual([]);
    await db.pool.query(`update app.job set status = 'running', locked_by = 'w', locked_at = now() where id = (select job_id from xls_resetar_replicator where id = $1)`, [id]);
    expect((await db.pool.query('select * from replicacao_recuperar()')).rows).toEqual([]);
    await db.pool.query(`update app.job set status = 'failed' where id = (select job_id from xls_resetar_replicator where id = $1)`, [id]);
    const { rows } = await db.pool.query('select id, status from replicacao_recuperar()');
    expect(rows).toEqual([{ id, status: 'ERRO' }]);
  });

  it('a job that takes an execution already taken by a dead process ends it in ERRO instead of running the steps again', async () => {
    const id = await iniciar();
    await db.pool.query(`update xls_resetar_replicator set assumido_em = now() - interval '1 minute', worker = 'w-morto', step_atual = 'RESET_SLOT' where id = $1`, [id]);
    const c = await conexao();
    try {
      const { rows } = await c.query('select * from replicacao_assumir($1, $2, $3)', [id, 'w-novo', 'hosting']);
      expect(rows[0]).toMatchObject({ status: 'ERRO', erro_mensagem: 'interrompida após reinício da aplicação', step_atual: 'RESET_SLOT', worker: 'w-morto' });
      // the lock was let go
      const l = await db.pool.query(`select count(*)::int n from pg_locks where locktype = 'advisory' and pid = $1`, [(await c.query('select pg_backend_pid() p')).rows[0].p]);
      expect(l.rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
    await expect(db.pool.query(`select replicacao_assumir('00000000-0000-4000-8000-000000000000', 'w', 'manual')`)).rejects.toMatchObject({ code: 'RR404' });
  });

  it('replicacao_slots_remover refuses an empty prefix', async () => {
    await expect(db.pool.query(`select replicacao_slots_remover('')`)).rejects.toMatchObject({ code: 'RR400' });
    expect((await db.pool.query(`select replicacao_slots_remover('nenhum_prefixo_') r`)).rows[0].r).toEqual([]);
  });
});
