/**
 * bi_configuracao travels in a bucket of priority 0: a change of it reaches a phone while the
 * phone is still downloading a large bucket (here 100,000 rows of bi_movimento, a first sync),
 * before that download completes — how `ultimo_nuke` reaches a phone that is busy.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { abrirCelular, aguardarCelularIgual, operacoesNoCelular, startMotor, type CelularDeTeste, type Motor } from '../harness/motor.js';

const LINHAS = 100_000;
let db: TestDatabase;
let motor: Motor;
let celular: CelularDeTeste | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
  // a large table before the engine starts: its initial copy holds it
  await db.pool.query(`insert into bi_movimento (filial, data, lancamento, conta, descricao_conta, historico, debito, credito, placa)
    select 'F' || (i % 7), date '2026-11-01' + (i % 30), 'L' || i, '3.1.01.' || (i % 40), 'Conta ' || (i % 40),
           'Lançamento ' || i || ' ' || repeat('histórico ', 4), 1000 + i % 100, null, null
      from generate_series(1, $1) i`, [LINHAS]);
  motor = await startMotor(db);
});
afterAll(async (suite) => {
  await celular?.fechar();
  await motor?.close(suite);
  await db?.drop();
});

it('a configuration change reaches a phone before its download of a large bucket completes', async () => {
  const visiveis = async () => (await celular!.contagens()).bi_movimento ?? 0;
  const valor = async () => (await celular!.linhas('bi_configuracao')).find((r) => r.chave === 'slow_query_timeout_ms')?.valor;
  celular = await abrirCelular(motor);
  // the download is under way: thousands of the large bucket's operations have arrived (the
  // engine yields to a new checkpoint after 1,000), none of its rows is visible yet
  let baixadas = 0;
  for (const limite = Date.now() + 60_000; baixadas < 5000; baixadas = (await operacoesNoCelular(celular)).comercial ?? 0) {
    if (Date.now() > limite) throw new Error(`o download não começou (${baixadas} operações)`);
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(await visiveis()).toBe(0);
  await db.pool.query(`update bi_configuracao set valor = '7777' where chave = 'slow_query_timeout_ms'`);

  let visto: { visiveis: number; baixadas: number } | undefined;
  for (const limite = Date.now() + 60_000; !visto && Date.now() < limite;) {
    if (await valor() === '7777') visto = { visiveis: await visiveis(), baixadas: (await operacoesNoCelular(celular)).comercial ?? 0 };
    else await new Promise((r) => setTimeout(r, 10));
  }
  expect(visto, 'o valor novo não chegou ao celular').toBeDefined();
  expect(visto, `o valor novo chegou com o download de ${LINHAS} linhas concluído`).toMatchObject({ visiveis: 0 });
  expect(visto!.baixadas).toBeLessThan(LINHAS);
  await aguardarCelularIgual(db, celular, { timeoutMs: 180_000 });
});
