/**
 * The harness' engine is what a hosting platform runs: stop() and start() are its suspend and
 * resume (test/harness/fake-hosting.ts drives any FakeSyncEngine, this one too). Started again
 * it serves the same data from the same slot; started after its storage schema and slot were
 * dropped (what the reset's RESET_SLOT and DROP_DOCSTORE do), it makes a new slot, copies
 * everything again, and a new phone receives it all.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { abrirCelular, aguardarCelularIgual, startMotor, type CelularDeTeste, type Motor } from '../harness/motor.js';

let db: TestDatabase;
let motor: Motor;
const celulares: CelularDeTeste[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  motor = await startMotor(db);
});
afterAll(async (suite) => {
  for (const c of celulares) await c.fechar();
  await motor?.close(suite);
  await db?.drop();
});

const slotsAtivos = async () => (await db.pool.query(`select slot_name from pg_replication_slots
  where database = current_database() and slot_name like 'powersync\\_%' and active order by 1`)).rows.map((r) => r.slot_name as string);

it('stopped and started again, it serves the same slot; after its storage and slot are dropped, start() makes new ones and copies everything again', async () => {
  await db.pool.query(`insert into bi_produto (codigo, descricao) select 'P' || i, 'Produto ' || i from generate_series(1, 50) i`);
  const primeiro = await abrirCelular(motor);
  celulares.push(primeiro);
  await aguardarCelularIgual(db, primeiro);
  const [slot] = motor.slots;
  expect(await slotsAtivos()).toEqual([slot]);

  await motor.stop();
  expect(motor.running).toBe(false);
  await db.pool.query(`update bi_produto set descricao = descricao || ' (com o motor parado)' where codigo in ('P1', 'P2')`);
  expect(await motor.start()).toBe(slot);
  await aguardarCelularIgual(db, primeiro);

  // what the reset does with the engine stopped: drop its slot and its storage schema
  await motor.stop();
  await primeiro.desconectar();
  for (const limite = Date.now() + 15_000; (await slotsAtivos()).length > 0;) {
    if (Date.now() > limite) throw new Error('o slot do motor parado continuou ativo');
    await new Promise((r) => setTimeout(r, 50));
  }
  await db.pool.query('select replicacao_slots_remover()');
  const storage = new pg.Client({ connectionString: motor.storageUrl });
  await storage.connect();
  await storage.query('drop schema powersync cascade');
  await storage.end();
  await db.pool.query(`delete from bi_produto where codigo = 'P3'`);

  const novo = await motor.start();
  expect(novo).not.toBe(slot);
  expect(motor.slots).toEqual([slot, novo]);
  expect(await slotsAtivos()).toEqual([novo]);
  const segundo = await abrirCelular(motor);
  celulares.push(segundo);
  await aguardarCelularIgual(db, segundo);
  expect((await segundo.contagens()).bi_produto).toBe(49);
});
