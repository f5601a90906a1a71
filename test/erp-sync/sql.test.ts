/** The decision in SQL: public.erp_sync(items, dry_run, idempotency_key), as a DBA would call it. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { erpSync, type ErpSyncResponse } from '../../src/erp/db.js';
import { EAN, gtin, item, loadCatalogue, variantes, wrongCheckDigit } from './helpers.js';

let db: TestDatabase;
let ids: Record<string, number>;

beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });
beforeEach(async () => {
  await db.pool.query('truncate produto, variante, erp_sync_audit, erp_sync_audit_variante restart identity cascade');
  ids = await loadCatalogue(db.pool);
});

const sync = (items: unknown[], dryRun = true, key: string | null = null) => erpSync(db.pool, items, dryRun, key);

async function sqlError(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(() => null, (e: { code: string; message: string }) => e);
  expect(err, 'expected an SQL error').not.toBeNull();
  return err!;
}

describe('gtin_valido', () => {
  it('accepts 8, 12, 13 and 14 digits with the right check digit', async () => {
    const good = [EAN.ean8, EAN.upc, EAN.oleo1l, EAN.gtin14, '4006381333931', '96385074', '036000291452'];
    const bad = [wrongCheckDigit(EAN.oleo1l), wrongCheckDigit(EAN.ean8), wrongCheckDigit(EAN.upc), wrongCheckDigit(EAN.gtin14),
      '123456789', '1234567890', '12345678901', '123456789012345', '789100000001a', ' 7891000000011', '', '1234567'];
    const { rows } = await db.pool.query<{ c: string; ok: boolean }>('select c, gtin_valido(c) as ok from unnest($1::text[]) c', [[...good, ...bad]]);
    expect(rows.filter((r) => r.ok).map((r) => r.c)).toEqual(good);
    expect((await db.pool.query('select gtin_valido(null) as ok')).rows[0].ok).toBeNull();
  });
});

describe('per-item validation', () => {
  it('sem_ean_nem_sku: neither key, or empty/null keys; idx is 0-based', async () => {
    const r = await sync([
      item({ ean: EAN.arla }, 90, 85),
      item({}),
      item({ ean: '', sku: '  ' }),
      item({ ean: null, sku: null }),
      item({ ean: null, sku: { x: 1 } }),
    ]);
    expect(r.erros).toEqual([1, 2, 3, 4].map((idx) => ({ idx, erro: 'sem_ean_nem_sku' })));
    expect(r.casados).toBe(1);
  });

  it('ean_invalido: wrong check digit, wrong length, not digits, a JSON number; no fall-back to sku', async () => {
    const r = await sync([
      item({ ean: wrongCheckDigit(EAN.oleo1l) }),
      item({ ean: '12345678901' }),
      item({ ean: '78910000000AB' }),
      item({ ean: Number(EAN.oleo1l) }),
      item({ ean: wrongCheckDigit(EAN.oleo1l), sku: 'OLEO-1L' }),
      item({ ean: ` ${EAN.oleo1l} ` }, 40, 36.5),
    ]);
    expect(r.erros).toEqual([0, 1, 2, 3, 4].map((idx) => ({ idx, erro: 'ean_invalido' })));
    expect(r.itens.map((i) => [i.idx, i.sku])).toEqual([[5, 'OLEO-1L']]);
    expect(r.nao_encontrados).toEqual([]);
  });

  it('every GTIN length matches (8, 12, 13, 14 digits)', async () => {
    const r = await sync([item({ ean: EAN.ean8 }), item({ ean: EAN.upc }), item({ ean: EAN.gtin14 }), item({ ean: EAN.oleo20l })]);
    expect(r.erros).toEqual([]);
    expect(r.itens.map((i) => i.sku)).toEqual(['GRAXA', 'ADITIVO', 'CAIXA', 'OLEO-20L']);
  });

  it('preco_invalido: missing, not a number, negative, more than 2 decimals, too large; 0 and 10.50 are prices', async () => {
    const k = (n: number) => ({ sku: `X${n}` });
    const r = await sync([
      { ...k(0), preco_desconto: 1 },
      { ...k(1), preco_cheio: 1 },
      item(k(2), '10.50', 1),
      item(k(3), 1, -0.01),
      item(k(4), 1.001, 1),
      item(k(5), 1e10, 1),
      item(k(6), null, 1),
      item(k(7), 0, 0),
      item(k(8), 10.5, 9.99),
    ]);
    expect(r.erros).toEqual([0, 1, 2, 3, 4, 5, 6].map((idx) => ({ idx, erro: 'preco_invalido' })));
    expect(r.nao_encontrados).toEqual(['X7', 'X8']);
  });

  it('estoque_invalido: not an integer, negative, not a number, too large; absent or null is no change; 3.0 is 3', async () => {
    const r = await sync([
      item({ sku: 'A' }, 1, 1, { estoque: 1.5 }),
      item({ sku: 'B' }, 1, 1, { estoque: -1 }),
      item({ sku: 'C' }, 1, 1, { estoque: '3' }),
      item({ sku: 'D' }, 1, 1, { estoque: 2147483648 }),
      item({ sku: 'OLEO-1L' }, 40, 36.5),
      item({ sku: 'OLEO-20L' }, 600, 550, { estoque: null }),
      item({ sku: 'ARLA-20L' }, 90, 85, { estoque: 3.0 }),
    ]);
    expect(r.erros).toEqual([0, 1, 2, 3].map((idx) => ({ idx, erro: 'estoque_invalido' })));
    expect(r.itens.map((i) => [i.sku, i.estoque_recebido, i.vai_atualizar_estoque])).toEqual([
      ['OLEO-1L', null, false], ['OLEO-20L', null, false], ['ARLA-20L', 3, true],
    ]);
  });

  it('estoque: 2147483647, the largest integer a variant holds, is accepted; one more is estoque_invalido', async () => {
    const r = await sync([item({ sku: 'ARLA-20L' }, 90, 85, { estoque: 2147483647 })]);
    expect(r.erros).toEqual([]);
    expect(r.itens.map((i) => [i.sku, i.estoque_recebido])).toEqual([['ARLA-20L', 2147483647]]);
  });

  it('an item with several faults carries every code, in a fixed order', async () => {
    const r = await sync([{ ean: wrongCheckDigit(EAN.arla), preco_cheio: -1, preco_desconto: 1, estoque: -1 }]);
    expect(r.erros).toEqual([{ idx: 0, erro: 'ean_invalido' }, { idx: 0, erro: 'preco_invalido' }, { idx: 0, erro: 'estoque_invalido' }]);
  });

  it('item_duplicado: the same EAN or sku earlier in the request, or the same variant by another key', async () => {
    const r = await sync([
      item({ ean: EAN.oleo1l }, 41, 37),
      item({ ean: EAN.oleo1l }, 42, 38),
      item({ sku: 'ARLA-20L' }, 91, 86),
      item({ sku: 'ARLA-20L' }, 92, 87),
      item({ sku: 'OLEO-1L' }, 43, 39), // same variant as idx 0, named by sku
      item({ ean: EAN.semCadastro }),
      item({ ean: EAN.semCadastro }),
    ], false);
    expect(r.erros).toEqual([1, 3, 4, 6].map((idx) => ({ idx, erro: 'item_duplicado' })));
    expect(r.itens.map((i) => [i.idx, i.sku, i.preco_cheio_recebido])).toEqual([[0, 'OLEO-1L', 41], [2, 'ARLA-20L', 91]]);
    expect(r.nao_encontrados).toEqual([EAN.semCadastro]);
    const v = await variantes(db.pool);
    expect([v['OLEO-1L']!.preco_cheio, v['ARLA-20L']!.preco_cheio]).toEqual(['41.00', '91.00']);
  });

  it('a duplicate of an item with an error is still a duplicate (the request is ambiguous about that key)', async () => {
    const r = await sync([item({ ean: EAN.arla }, -1, 1), item({ ean: EAN.arla }, 90, 85)]);
    expect(r.erros).toEqual([{ idx: 0, erro: 'preco_invalido' }, { idx: 1, erro: 'item_duplicado' }]);
    expect(r.casados).toBe(0);
  });
});

describe('matching', () => {
  it('by EAN, else by sku; nao_encontrados lists the EAN or the sku; never creates a variant', async () => {
    const before = (await db.pool.query('select count(*)::int as n from variante')).rows[0].n;
    const r = await sync([
      item({ ean: EAN.semCadastro }),
      item({ sku: 'NAO-EXISTE' }),
      item({ sku: 'FLANELA' }, 5, 4.5, { estoque: 90 }),
      item({ ean: EAN.oleo1l, sku: 'outro-sku-ignorado' }, 40, 36.5, { estoque: 10 }),
    ], false);
    expect(r.nao_encontrados).toEqual([EAN.semCadastro, 'NAO-EXISTE']);
    expect(r.itens.map((i) => [i.idx, i.ean, i.sku])).toEqual([[2, null, 'FLANELA'], [3, EAN.oleo1l, 'OLEO-1L']]);
    expect(r.casados).toBe(2);
    expect((await db.pool.query('select count(*)::int as n from variante')).rows[0].n).toBe(before);
  });

  it('ambiguos: an EAN shared by several variants gives {idx, ean, skus} and updates nothing', async () => {
    const before = await variantes(db.pool);
    const r = await sync([item({ sku: 'ARLA-20L' }, 90, 85), item({ ean: EAN.partilhado }, 1, 1, { estoque: 99 })], false);
    expect(r.ambiguos).toEqual([{ idx: 1, ean: EAN.partilhado, skus: ['FILTRO-KIT', 'FILTRO-UN'] }]);
    expect(r.casados).toBe(1);
    expect(r.nao_encontrados).toEqual([]);
    expect(r.itens.map((i) => i.sku)).toEqual(['ARLA-20L']);
    const after = await variantes(db.pool);
    expect(after['FILTRO-UN']).toEqual(before['FILTRO-UN']);
    expect(after['FILTRO-KIT']).toEqual(before['FILTRO-KIT']);
    // the shared EAN's variants stay reachable by sku
    const bySku = await sync([item({ sku: 'FILTRO-KIT' }, 150, 139)]);
    expect(bySku.itens[0]).toMatchObject({ sku: 'FILTRO-KIT', ean: EAN.partilhado, vai_atualizar_preco: true });
  });

  it('itens carry both prices and stock received and stored; the flags compare them', async () => {
    const r = await sync([
      item({ ean: EAN.oleo1l }, 40, 36.5, { estoque: 10 }), // equal
      item({ ean: EAN.oleo20l }, 600, 549.9, { estoque: 5 }), // cash price differs
      item({ ean: EAN.arla }, 95, 85, { estoque: 8 }), // full price and stock differ
      item({ sku: 'SEM-PRECO' }, 1, 1), // stored prices null
    ]);
    expect(r.itens).toEqual([
      { idx: 0, ean: EAN.oleo1l, sku: 'OLEO-1L', preco_recebido: 36.5, preco_cheio_recebido: 40, estoque_recebido: 10,
        preco_atual: 36.5, preco_cheio_atual: 40, estoque_atual: 10, vai_atualizar_preco: false, vai_atualizar_estoque: false },
      { idx: 1, ean: EAN.oleo20l, sku: 'OLEO-20L', preco_recebido: 549.9, preco_cheio_recebido: 600, estoque_recebido: 5,
        preco_atual: 550, preco_cheio_atual: 600, estoque_atual: 5, vai_atualizar_preco: true, vai_atualizar_estoque: false },
      { idx: 2, ean: EAN.arla, sku: 'ARLA-20L', preco_recebido: 85, preco_cheio_recebido: 95, estoque_recebido: 8,
        preco_atual: 85, preco_cheio_atual: 90, estoque_atual: 7, vai_atualizar_preco: true, vai_atualizar_estoque: true },
      { idx: 3, ean: null, sku: 'SEM-PRECO', preco_recebido: 1, preco_cheio_recebido: 1, estoque_recebido: null,
        preco_atual: null, preco_cheio_atual: null, estoque_atual: 0, vai_atualizar_preco: true, vai_atualizar_estoque: false },
    ]);
  });
});

describe('dry run and real mode', () => {
  const payload = () => [
    item({ ean: EAN.oleo1l }, 40, 36.5, { estoque: 10 }), // unchanged
    item({ ean: EAN.oleo20l }, 610, 560), // prices only; stock absent
    item({ sku: 'FLANELA' }, 5, 4.5, { estoque: 80 }), // stock only
    item({ ean: EAN.partilhado }, 1, 1),
    item({ ean: EAN.semCadastro }),
    item({}),
  ];

  it('dry run writes nothing but the audit row', async () => {
    const before = await variantes(db.pool);
    const r = await sync(payload(), true);
    expect(r).toMatchObject({ dry_run: true, recebidos: 6, casados: 3, atualizados: 0 });
    expect(r.itens.map((i) => [i.vai_atualizar_preco, i.vai_atualizar_estoque])).toEqual([[false, false], [true, false], [false, true]]);
    expect(await variantes(db.pool)).toEqual(before);
    const { rows } = await db.pool.query('select * from erp_sync_audit');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ dry_run: true, recebidos: 6, casados: 3, atualizados: 0, nao_encontrados: 1, ambiguos: 1, erros: 1,
      idempotency_key: null, replay_of: null, application_name: 'bi-test' });
    expect(rows[0].request_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].response).toEqual(r);
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit_variante')).rows[0].n).toBe(0);
  });

  it('real mode applies what differs, counts atualizados, leaves equal variants unwritten, and records before/after', async () => {
    const before = await variantes(db.pool);
    const r = await sync(payload(), false);
    expect(r).toMatchObject({ dry_run: false, recebidos: 6, casados: 3, atualizados: 2 });
    // *_atual is the value stored before this request
    expect(r.itens[1]).toMatchObject({ preco_cheio_atual: 600, preco_cheio_recebido: 610, preco_atual: 550, preco_recebido: 560 });
    const after = await variantes(db.pool);
    expect(after['OLEO-1L']).toEqual(before['OLEO-1L']); // same xmin: not rewritten
    expect(after['OLEO-20L']).toMatchObject({ preco_cheio: '610.00', preco_desconto: '560.00', estoque: 5 });
    expect(after['FLANELA']).toMatchObject({ preco_cheio: '5.00', preco_desconto: '4.50', estoque: 80 });
    expect(after['FILTRO-UN']).toEqual(before['FILTRO-UN']);
    const changes = (await db.pool.query(`select a.called_at is not null as t, c.* from erp_sync_audit_variante c
      join erp_sync_audit a on a.id = c.audit_id order by c.idx`)).rows;
    expect(changes).toEqual([
      expect.objectContaining({ variante_id: ids['OLEO-20L'], idx: 1, sku: 'OLEO-20L', ean: EAN.oleo20l,
        preco_cheio_antes: '600.00', preco_cheio_depois: '610.00', preco_desconto_antes: '550.00', preco_desconto_depois: '560.00',
        estoque_antes: 5, estoque_depois: 5 }),
      expect.objectContaining({ variante_id: ids['FLANELA'], idx: 2, sku: 'FLANELA', ean: null,
        preco_cheio_antes: '5.00', preco_cheio_depois: '5.00', estoque_antes: 100, estoque_depois: 80 }),
    ]);
    // the same request again changes nothing
    const again = await sync(payload(), false);
    expect(again.atualizados).toBe(0);
    expect(again.itens.every((i) => !i.vai_atualizar_preco && !i.vai_atualizar_estoque)).toBe(true);
    expect(await variantes(db.pool)).toEqual(after);
    const audit = (await db.pool.query('select dry_run, atualizados from erp_sync_audit order by id')).rows;
    expect(audit).toEqual([{ dry_run: false, atualizados: 2 }, { dry_run: false, atualizados: 0 }]);
  });

  it('a failure inside the call rolls back every change of the request', async () => {
    const before = await variantes(db.pool);
    // a trigger that refuses the second change: the first must not survive
    const c = await db.pool.connect();
    try {
      await c.query(`create function public.tg_test_recusa() returns trigger language plpgsql as $$
        begin if new.sku = 'FLANELA' then raise exception 'recusado'; end if; return new; end $$`);
      await c.query('create trigger _999_test before update on variante for each row execute function public.tg_test_recusa()');
      await sqlError(erpSync(c, payload(), false, null));
    } finally {
      await c.query('drop trigger _999_test on variante; drop function public.tg_test_recusa()');
      c.release();
    }
    expect(await variantes(db.pool)).toEqual(before);
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit')).rows[0].n).toBe(0);
  });
});

describe('envelope errors from SQL (psql callers)', () => {
  it('ES400 for items that are not a non-empty list of objects, ES413 above 200', async () => {
    for (const bad of ['{}', '"x"', '[]', '[1]', '[{}, []]']) {
      expect((await sqlError(db.pool.query('select erp_sync($1::jsonb)', [bad]))).code).toBe('ES400');
    }
    expect((await sqlError(db.pool.query('select erp_sync(null)'))).code).toBe('ES400');
    expect((await sqlError(db.pool.query('select erp_sync($1::jsonb, null)', ['[{}]']))).code).toBe('ES400');
    const e = await sqlError(sync(Array.from({ length: 201 }, () => ({}))));
    expect(e.code).toBe('ES413');
    expect(e.message).toMatch(/201.*200/);
    expect((await sync(Array.from({ length: 200 }, () => ({})))).erros).toHaveLength(400); // sem_ean_nem_sku + preco_invalido each
  });
});

describe('idempotency', () => {
  const body = () => [item({ ean: EAN.arla }, 91, 86, { estoque: 7 })];

  it('the same key and items within 24 h answer the stored response and apply nothing twice', async () => {
    const first = await sync(body(), false, 'chave-1');
    expect(first.atualizados).toBe(1);
    // someone changes the variant afterwards; a retry must not put the old values back
    await db.pool.query("update variante set preco_cheio = 99 where sku = 'ARLA-20L'");
    const replay = await sync(body(), false, 'chave-1');
    expect(replay).toEqual(first);
    expect((await variantes(db.pool))['ARLA-20L']!.preco_cheio).toBe('99.00');
    const audit = (await db.pool.query('select id, replay_of, atualizados, response is null as sem_resposta, request_sha256 from erp_sync_audit order by id')).rows;
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({ replay_of: audit[0].id, atualizados: 1, sem_resposta: true, request_sha256: audit[0].request_sha256 });
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit_variante')).rows[0].n).toBe(1);
  });

  it('the request hash ignores key order and whitespace', async () => {
    await sync([{ ean: EAN.arla, preco_cheio: 91, preco_desconto: 86 }], true, 'chave-ordem');
    const r = await db.pool.query('select erp_sync($1::jsonb, true, $2) as r',
      [`[ { "preco_desconto": 86, "preco_cheio": 91,   "ean": "${EAN.arla}" } ]`, 'chave-ordem']);
    expect((r.rows[0].r as ErpSyncResponse).casados).toBe(1);
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit where replay_of is not null')).rows[0].n).toBe(1);
  });

  it('the same key with other items is ES422; after 24 h the key is free again', async () => {
    await sync(body(), false, 'chave-2');
    const e = await sqlError(sync([item({ ean: EAN.arla }, 92, 86)], false, 'chave-2'));
    expect(e.code).toBe('ES422');
    await db.pool.query("update erp_sync_audit set called_at = now() - interval '25 hours'");
    const later = await sync([item({ ean: EAN.arla }, 92, 86)], false, 'chave-2');
    expect(later.atualizados).toBe(1);
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit where replay_of is null')).rows[0].n).toBe(2);
  });

  it('keys are checked: 1 to 255 visible ASCII characters', async () => {
    for (const key of ['', 'x'.repeat(256), 'chave\u00e7', 'a\nb']) {
      expect((await sqlError(sync(body(), true, key))).code).toBe('ES400');
    }
    expect((await sync(body(), true, 'x'.repeat(255))).casados).toBe(1);
  });

  it('different keys are independent; no key never replays', async () => {
    const a = await sync(body(), false, 'k-a');
    const b = await sync(body(), false, 'k-b');
    expect([a.atualizados, b.atualizados]).toEqual([1, 0]);
    const c = await sync(body(), false);
    expect(c.atualizados).toBe(0);
    expect((await db.pool.query('select count(*)::int as n from erp_sync_audit where replay_of is null')).rows[0].n).toBe(3);
  });
});

describe('catalogo_carregar', () => {
  it('upserts by codigo_erp and sku, rewriting only what differs, and reports counts', async () => {
    const before = await variantes(db.pool);
    const { rows } = await db.pool.query('select catalogo_carregar($1::jsonb) as r', [JSON.stringify([
      { codigo_erp: 'OLEO', nome: 'Óleo 15W40', variantes: [
        { sku: 'OLEO-1L', ean: EAN.oleo1l, preco_cheio: 40, preco_desconto: 36.5, estoque: 10 },
        { sku: 'OLEO-5L', ean: gtin('789100000005'), preco_cheio: 170, preco_desconto: 160, estoque: 4 },
      ] },
      { codigo_erp: 'ARLA', nome: 'ARLA 32 novo nome', variantes: [
        { sku: 'ARLA-20L', ean: EAN.arla, preco_cheio: 90, preco_desconto: 84, estoque: 7 },
      ] },
      { codigo_erp: 'NOVO', nome: 'Produto sem variantes' },
    ])]);
    expect(rows[0].r).toEqual({ produtos_inseridos: 1, produtos_atualizados: 1, variantes_inseridas: 1, variantes_atualizadas: 1 });
    const after = await variantes(db.pool);
    expect(after['OLEO-1L']).toEqual(before['OLEO-1L']);
    expect(after['ARLA-20L']!.preco_desconto).toBe('84.00');
    expect(after['OLEO-20L']).toEqual(before['OLEO-20L']); // absent: kept, nothing deleted
  });

  it('CT400 names the offending element', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /lista/],
      [[{ nome: 'x' }], /produto\[0\]/],
      [[{ codigo_erp: 'A', nome: 'a', variantes: {} }], /produto\[0\]/],
      [[{ codigo_erp: 'A', nome: 'a', variantes: [{ sku: 'S' }, { ean: '1' }] }], /produto\[0\]\.variantes\[1\]/],
      [[{ codigo_erp: 'A', nome: 'a', variantes: [{ sku: 'S', preco_cheio: '1' }] }], /variantes\[0\]/],
      [[{ codigo_erp: 'A', nome: 'a', variantes: [{ sku: 'S', estoque: 1.5 }] }], /variantes\[0\]/],
      [[{ codigo_erp: 'A', nome: 'a', variantes: [{ sku: 'S' }] }, { codigo_erp: 'B', nome: 'b', variantes: [{ sku: 'S' }] }], /sku S/],
    ];
    for (const [catalogo, msg] of cases) {
      const e = await sqlError(db.pool.query('select catalogo_carregar($1::jsonb)', [JSON.stringify(catalogo)]));
      expect(e.code).toBe('CT400');
      expect(e.message).toMatch(msg);
    }
  });
});
