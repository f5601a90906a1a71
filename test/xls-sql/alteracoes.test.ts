/**
 * Change sets of the merges (app.xls_alteracao), the undo (public.xls_desfazer), the row
 * history (public.xls_linhagem) and the retention purge: values asserted, tables compared by
 * ordered dumps before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { completeJobs, fat, importar, iniciar, mov, periodoNov, processarNovo, receberAvulso, type Row } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  // these tests remove many rows on purpose: the mass-deletion guard has its own tests
  await db.pool.query(`update bi_configuracao set valor = '100' where chave = 'xls_exclusao_limite_percentual'`);
});
afterAll(async () => { await db?.drop(); });

let n = 0;
const rows = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows;
/** Every column of every row, ordered by id: what "exactly as before" means. */
const dump = async (tabela: string) => rows(`select to_jsonb(t) j from public.${tabela} t order by t.id`).then((r) => r.map((x) => x.j));
const R18_TABELAS = ['bi_faturamento', 'bi_movimento', 'bi_filial', 'bi_cliente', 'bi_vendedor', 'bi_produto', 'bi_veiculo'];
const dumpAll = async (tabelas: string[]) => Object.fromEntries(await Promise.all(tabelas.map(async (t) => [t, await dump(t)])));
const r18 = (fats: Row[], movs: Row[] = [mov(0)]) =>
  processarNovo(db.pool, `r18-alt-${++n}`, 'RELATORIO18', { staging: { faturamento: fats, movimento: movs }, meta: periodoNov, chunk: 40 });
const desfazer = (id: string, por = 'ana@empresa.com.br') => db.pool.query('select public.xls_desfazer($1, $2) r', [id, por]).then((r) => r.rows[0].r);
const contagens = async (id: string) => (await rows('select public.xls_alteracoes($1, null, null, 1, 0) r', [id]))[0].r.contagens;

describe('change set of a processing', () => {
  it('a first import records every row it inserted; a 1 % change the rows before and after; an identical re-import nothing', async () => {
    const base = Array.from({ length: 100 }, (_, i) => fat(i));
    const a = await r18(base);
    expect(a.desfecho.status).toBe('SUCESSO');
    expect(await contagens(a.id)).toEqual({
      bi_faturamento: { INSERIDA: 100 }, bi_movimento: { INSERIDA: 1 },
      bi_filial: { INSERIDA: 1 }, bi_cliente: { INSERIDA: 50 }, bi_vendedor: { INSERIDA: 5 }, bi_produto: { INSERIDA: 7 },
    });
    const inserida = async (id: string, i: number) =>
      (await rows(`select public.xls_alteracoes($1, 'bi_faturamento', 'INSERIDA', 1, $2) r`, [id, i]))[0].r.itens[0];
    const ins = await inserida(a.id, 0);
    expect(ins.chave).toEqual({ filial: '01', nota_fiscal: '1000', serie: '1', item: '1' });
    expect(ins.antes).toBeNull();
    expect(ins.depois).toMatchObject({ nota_fiscal: '1000', cliente: 'C0', valor_total: 62.9 });
    // the change set stores the ids of a statement's inserted rows only (one row per statement and
    // table: here one per chunk of 40 rows); key and values are read back
    const guardadas = await rows(`select cardinality(linha_ids) n, linha_id, chave, depois from app.xls_alteracao
                                    where processamento_id = $1 and operacao = 'INSERIDA' and tabela = 'bi_faturamento' order by seq`, [a.id]);
    expect(guardadas).toEqual([40, 40, 20].map((n) => ({ n, linha_id: null, chave: null, depois: null })));

    const um = await r18(base.map((r, i) => (i === 7 ? { ...r, valor_total: '999.99' } : r)));
    expect(await contagens(um.id)).toEqual({ bi_faturamento: { ALTERADA: 1 } });
    const [alt] = await rows(`select chave, antes ->> 'valor_total' a, depois ->> 'valor_total' d from app.xls_alteracao where processamento_id = $1`, [um.id]);
    expect(alt).toEqual({ chave: { filial: '01', nota_fiscal: '1007', serie: '1', item: '1' }, a: '69.9', d: '999.99' });
    // the first import's INSERIDA still shows the row as it inserted it, not as stored now
    const ins7 = await inserida(a.id, 7);
    expect(ins7.chave).toEqual({ filial: '01', nota_fiscal: '1007', serie: '1', item: '1' });
    expect(ins7.depois).toMatchObject({ nota_fiscal: '1007', valor_total: 69.9 });
    expect((await inserida(a.id, 8)).depois).toMatchObject({ nota_fiscal: '1008', valor_total: 70.9 });

    const igual = await r18(base.map((r, i) => (i === 7 ? { ...r, valor_total: '999.99' } : r)));
    expect(igual.merge.linhasEfetivas).toBe(0);
    expect(await contagens(igual.id)).toEqual({});
    await expect(desfazer(igual.id)).rejects.toMatchObject({ code: 'XL409', message: expect.stringContaining('não alterou nenhuma linha') });
  });

  it('the API page: filters by table and operation, Page limits, 404 and 400', async () => {
    const a = await r18([fat(500), fat(501)], [mov(500)]);
    const pagina = async (tabela: string | null, op: string | null, limite = 20, desloc = 0) =>
      (await rows('select public.xls_alteracoes($1, $2, $3, $4, $5) r', [a.id, tabela, op, limite, desloc]))[0].r;
    const p = await pagina('bi_faturamento', 'INSERIDA', 1, 1);
    expect(p.total).toBe(2);
    expect(p.itens).toHaveLength(1);
    expect(p.itens[0]).toMatchObject({ tabela: 'bi_faturamento', operacao: 'INSERIDA', chave: { nota_fiscal: '1501' } });
    // the period now holds only this file's rows: the previous test's 100 invoices and its movement were removed
    expect((await pagina('bi_faturamento', 'REMOVIDA')).total).toBe(100);
    expect((await pagina(null, 'REMOVIDA')).total).toBe(101);
    expect((await pagina('bi_vendedor', 'REMOVIDA')).total).toBe(0);
    await expect(pagina(null, 'APAGADA')).rejects.toMatchObject({ code: 'XL400' });
    await expect(pagina(null, null, 101)).rejects.toMatchObject({ code: 'XL400' });
    await expect(db.pool.query('select public.xls_alteracoes($1)', ['00000000-0000-0000-0000-000000000000'])).rejects.toMatchObject({ code: 'XL404' });
  });
});

describe('undo', () => {
  it('of a first import, then of a 1 % change with removals: every table exactly as before (ordered dumps)', async () => {
    await db.pool.query(`delete from bi_faturamento; delete from bi_movimento;`);
    const antes = await dumpAll(R18_TABELAS);
    const base = Array.from({ length: 60 }, (_, i) => fat(1000 + i, { cliente: `CU${i % 6}`, vendedor: `VU${i % 3}` }));
    const a = await r18(base);
    const depoisA = await dumpAll(R18_TABELAS);
    expect(depoisA.bi_faturamento).toHaveLength(60);
    // a 1 % change: one value changed, two rows removed (the file no longer carries them), one seller renamed
    const b = await r18(base.slice(2).map((r, i) => (i === 0 ? { ...r, valor_total: '1.23', nome_vendedor: 'Vendedora Nova' } : r)));
    expect(b.merge).toMatchObject({ linhasRemovidas: 2 });
    expect((await contagens(b.id)).bi_faturamento).toEqual({ ALTERADA: 1, REMOVIDA: 2 });

    // the older one cannot be undone while the later one stands
    const conflito = await desfazer(a.id).catch((e) => e);
    expect(conflito).toMatchObject({ code: 'XL409' });
    expect(conflito.message).toContain(`r18-alt-${n}.xlsx`);
    // the data a program reads is in the DETAIL (docs/error-codes.md), never in the HINT
    expect(JSON.parse(conflito.detail)).toEqual({ motivo: 'conflito', conflitos: [expect.objectContaining({ id: b.id })] });

    const rb = await desfazer(b.id);
    expect(rb.tabelas.bi_faturamento).toEqual({ removidas: 0, restauradas: 1, reinseridas: 2 });
    expect(await dumpAll(R18_TABELAS)).toEqual(depoisA);
    await expect(desfazer(b.id)).rejects.toMatchObject({ code: 'XL409', detail: 'ja_desfeito' });

    // now the first one can go
    const ra = await desfazer(a.id, 'api');
    expect(ra.tabelas.bi_faturamento).toMatchObject({ removidas: 60 });
    expect(await dumpAll(R18_TABELAS)).toEqual(antes);
    // the rows it inserted are gone, and its change set still shows each exactly as it was inserted
    const inseridas = (await rows(`select public.xls_alteracoes($1, 'bi_faturamento', 'INSERIDA', 100, 0) r`, [a.id]))[0].r.itens;
    const porId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
    expect(inseridas.map((x: { depois: { id: string } }) => x.depois).sort(porId)).toEqual(depoisA.bi_faturamento);
    expect(await rows('select desfeito_por, desfeito_em is not null d, status from xls_processamento where id = $1', [a.id]))
      .toEqual([{ desfeito_por: 'api', d: true, status: 'SUCESSO' }]);
  });

  it('of a FLUXO position: the older position is atual again, exactly as before', async () => {
    const tit = (linha: number, o: Row = {}): Row => ({
      linha, tipo: 'RECEBER', documento: `U${linha}`, parcela: '1', pessoa: 'Cliente', cnpj_cpf: '12345678000190', emissao: '2026-10-01',
      vencimento: '2026-11-20', valor: '100', saldo: '100', centro_custo: 'CCU', descricao_centro_custo: 'Vendas', ...o,
    });
    const fluxo = (posicao: string, titulo: Row[]) => processarNovo(db.pool, `fluxo-alt-${++n}`, 'FLUXO_PAGAR_RECEBER',
      { staging: { titulo }, meta: { posicao, total_receber_grupo: null, grupo_problema: 'aba Grupo sem a linha Total' } });
    await fluxo('2026-10-01', [tit(2), tit(3, { saldo: '50' })]);
    const antes = await dumpAll(['bi_titulo', 'bi_centro_custo']);
    const novo = await fluxo('2026-10-08', [tit(2, { saldo: '70' }), tit(4)]);
    expect(novo.merge.tabelas).toMatchObject({ fluxo: { atual: true, deixaram_de_ser_atuais: 2 } });
    expect(await contagens(novo.id)).toMatchObject({ bi_titulo: { INSERIDA: 2, ALTERADA: 2 } });
    await desfazer(novo.id);
    expect(await dumpAll(['bi_titulo', 'bi_centro_custo'])).toEqual(antes);
    expect(await rows(`select to_char(posicao, 'YYYY-MM-DD') p, count(*)::int n from bi_titulo where atual and documento like 'U%' group by 1`))
      .toEqual([{ p: '2026-10-01', n: 2 }]);
  });

  it('refusals: unknown id, empty author, a processing still waiting, a processing that wrote nothing', async () => {
    await expect(desfazer('00000000-0000-0000-0000-000000000000')).rejects.toMatchObject({ code: 'XL404' });
    const pendente = await receberAvulso(db.pool, `ainda-pendente-${++n}`);
    await expect(desfazer(pendente.processamentoId!)).rejects.toMatchObject({ code: 'XL409', detail: 'em_andamento' });
    const a = await r18([fat(2000)]);
    await expect(desfazer(a.id, ' ')).rejects.toMatchObject({ code: 'XL400' });
  });
});

describe('undo of a removal that a later import inserted again', () => {
  it('is refused naming the later import (its insertion holds ids only), and allowed once that one is undone', async () => {
    const a = await r18([fat(7000), fat(7001)]);
    const antes = await dump('bi_faturamento');
    const p = await r18([fat(7000)]); // removes 7001
    const q = await r18([fat(7000), fat(7001)]); // inserts 7001 again, under another id
    expect(await contagens(q.id)).toEqual({ bi_faturamento: { INSERIDA: 1 } });
    const conflito = await desfazer(p.id).catch((e) => e);
    expect(conflito).toMatchObject({ code: 'XL409' });
    expect(JSON.parse(conflito.detail)).toEqual({ motivo: 'conflito', conflitos: [expect.objectContaining({ id: q.id, linhas: 1 })] });
    await desfazer(q.id);
    await desfazer(p.id);
    expect(await dump('bi_faturamento')).toEqual(antes);
    expect(a.desfecho.status).toBe('SUCESSO');
  });
});

describe('row history and retention', () => {
  it('xls_linhagem lists the processings that inserted, changed and removed a row, newest first', async () => {
    const a = await r18([fat(3000), fat(3001)]);
    const b = await r18([fat(3000, { valor_total: '5' })]);
    const chave = { filial: '01', nota_fiscal: '4001', serie: '1', item: '1' };
    const h = await rows(`select processamento_id, operacao, arquivo from xls_linhagem('bi_faturamento', $1)`, [JSON.stringify(chave)]);
    expect(h).toEqual([
      { processamento_id: b.id, operacao: 'REMOVIDA', arquivo: `r18-alt-${n}.xlsx` },
      { processamento_id: a.id, operacao: 'INSERIDA', arquivo: `r18-alt-${n - 1}.xlsx` },
    ]);
    const h0 = await rows(`select operacao from xls_linhagem('bi_faturamento', $1)`, [JSON.stringify({ ...chave, nota_fiscal: '4000' })]);
    expect(h0.map((x) => x.operacao)).toEqual(['ALTERADA', 'INSERIDA']);
    // read-only: a DBA may ask a standby
    const c = await db.pool.connect();
    try {
      await c.query('begin transaction read only');
      const r = await c.query(`select operacao from xls_linhagem('bi_faturamento', $1)`, [JSON.stringify({ ...chave, nota_fiscal: '4000' })]);
      expect(r.rows.map((x) => x.operacao)).toEqual(['ALTERADA', 'INSERIDA']);
      await c.query('rollback');
    } finally { c.release(); }
  });

  it('xls_linhagem finds an insertion the undo took back, and one whose processing was received long before it ran', async () => {
    const a = await r18([fat(3100)]);
    const chave = (i: number) => JSON.stringify({ filial: '01', nota_fiscal: String(1000 + i), serie: '1', item: '1' });
    await desfazer(a.id);
    const h = await rows(`select processamento_id, operacao, desfeito_em is not null desfeita, depois ->> 'valor_total' v from xls_linhagem('bi_faturamento', $1)`, [chave(3100)]);
    expect(h).toEqual([{ processamento_id: a.id, operacao: 'INSERIDA', desfeita: true, v: String(fat(3100).valor_total) }]);

    // the insertion is looked for among the processings running when the row was inserted, else in all
    const b = await r18([fat(3200), fat(3201)]);
    await db.pool.query(`update xls_processamento set recebido_em = recebido_em - interval '10 days' where id = $1`, [b.id]);
    const h2 = await rows(`select processamento_id, operacao, depois ->> 'nota_fiscal' nf from xls_linhagem('bi_faturamento', $1)`, [chave(3201)]);
    expect(h2).toEqual([{ processamento_id: b.id, operacao: 'INSERIDA', nf: '4201' }]);
  });

  it('the purge deletes change sets older than xls_alteracoes_retencao_dias and the undo then says why', async () => {
    const velho = await r18([fat(5000)]);
    const novo = await r18([fat(5000), fat(5001)]);
    await db.pool.query(`update bi_configuracao set valor = '30' where chave = 'xls_alteracoes_retencao_dias'`);
    await db.pool.query(`update xls_processamento set finalizado_em = now() - interval '31 days' where id = $1`, [velho.id]);
    const apagadas = (await rows('select app.xls_alteracoes_expurgar() n'))[0].n;
    expect(apagadas).toBeGreaterThan(0);
    expect((await rows('select count(*)::int n from app.xls_alteracao where processamento_id = $1', [velho.id]))[0].n).toBe(0);
    expect((await rows('select count(*)::int n from app.xls_alteracao where processamento_id = $1', [novo.id]))[0].n).toBeGreaterThan(0);
    await expect(desfazer(velho.id)).rejects.toMatchObject({ code: 'XL409', detail: 'expirado', message: expect.stringContaining('retenção de 30 dias') });
    expect((await rows('select app.xls_alteracoes_expurgar() n'))[0].n).toBe(0);
  });
});

describe('the change set belongs to its processing (no per-row foreign key)', () => {
  it('deleting a processing deletes its change set only; a write under a processing id that does not exist is refused, nothing written', async () => {
    const a = await r18([fat(6000), fat(6001)]);
    const b = await r18([fat(6000), fat(6001), fat(6002)]);
    const conta = async (id: string) => (await rows('select count(*)::int n from app.xls_alteracao where processamento_id = $1', [id]))[0].n;
    expect(await conta(a.id)).toBeGreaterThan(0);
    expect(await conta(b.id)).toBe(1);
    await db.pool.query('delete from xls_processamento where id = $1', [a.id]);
    expect(await conta(a.id)).toBe(0);
    expect(await conta(b.id)).toBe(1);

    const c = await db.pool.connect();
    try {
      await c.query('begin');
      await c.query(`select set_config('bi.xls_processamento', '00000000-0000-7000-8000-000000000001', true)`);
      await expect(c.query(`insert into bi_vendedor (codigo, nome) values ('V-FANTASMA', 'x')`))
        .rejects.toMatchObject({ code: '23503', message: expect.stringContaining('processamento inexistente') });
      await c.query('rollback');
    } finally { c.release(); }
    expect((await rows(`select count(*)::int n from bi_vendedor where codigo = 'V-FANTASMA'`))[0].n).toBe(0);
  });
});

describe('the shape of a change-set row', () => {
  it('an INSERIDA holds ids only and a change or removal its id and key: any other shape is refused', async () => {
    const a = await r18([fat(6500)]);
    const ins = (cols: string, vals: string) => db.pool.query(
      `insert into app.xls_alteracao (processamento_id, tabela, operacao, ${cols}) values ($1, 'bi_faturamento', ${vals})`, [a.id]);
    for (const [cols, vals] of [
      ['linha_ids, chave', `'INSERIDA', array[gen_random_uuid()], '{"filial": "01"}'`],
      ['linha_id', `'INSERIDA', gen_random_uuid()`],
      ['linha_ids, depois', `'INSERIDA', array[gen_random_uuid(), gen_random_uuid()], '[{}]'`],
      ['linha_id, antes, depois', `'ALTERADA', gen_random_uuid(), '{}', '{}'`],
      ['linha_ids, chave, antes', `'REMOVIDA', array[gen_random_uuid()], '{"filial": "01"}', '{}'`],
    ]) {
      await expect(ins(cols!, vals!)).rejects.toMatchObject({ code: '23514', message: expect.stringContaining('xls_alteracao') });
    }
    await expect(ins('linha_ids', `'INSERIDA', array[gen_random_uuid()]`)).resolves.toMatchObject({ rowCount: 1 });
  });
});

describe('mass-deletion guard', () => {
  const limites = (pct: number, linhas: number) => db.pool.query(
    `update bi_configuracao set valor = case chave when 'xls_exclusao_limite_percentual' then $1 else $2 end
      where chave in ('xls_exclusao_limite_percentual', 'xls_exclusao_limite_linhas')`, [String(pct), String(linhas)]);

  it('a truncated RELATORIO18 (13 of 600 rows) is held with nothing written; approving it applies it', async () => {
    await limites(100, 100);
    await db.pool.query(`delete from bi_faturamento; delete from bi_movimento;`);
    const completo = Array.from({ length: 600 }, (_, i) => fat(7000 + i));
    await r18(completo);
    await limites(30, 100);
    const antes = await dumpAll(R18_TABELAS);

    const recebido = await receberAvulso(db.pool, `r18-truncado-${++n}`);
    const id = recebido.processamentoId!;
    await iniciar(db.pool, id, 'w-guarda', 'RELATORIO18');
    const err = await importar(db.pool, id, 'w-guarda', 'RELATORIO18', { staging: { faturamento: completo.slice(0, 13), movimento: [mov(0)] }, meta: periodoNov })
      .then(() => null, (e) => e);
    expect(err).toMatchObject({ code: 'XL428' });
    expect(err.message).toContain('removeria 587 de 600 linhas de bi_faturamento');
    expect(JSON.parse(err.detail)).toEqual([expect.objectContaining({ tabela: 'bi_faturamento', remover: 587, escopo: 600, percentual: 97.8 })]);
    expect(await dumpAll(R18_TABELAS)).toEqual(antes);
    await db.pool.query(`select * from public.xls_falhar($1, 'w-guarda', $2, 'XL428')`, [id, err.message]);
    expect(await rows('select status, exclusao_retida from xls_processamento where id = $1', [id])).toEqual([{ status: 'ERRO', exclusao_retida: true }]);
    await completeJobs(db.pool, 'w-guarda');

    // approval of something the guard did not hold is a 409
    const outro = await r18(completo);
    await expect(db.pool.query('select public.xls_aprovar_exclusoes($1, $2)', [outro.id, 'ana@empresa.com.br'])).rejects.toMatchObject({ code: 'XL409' });

    const ids = (await rows('select public.xls_aprovar_exclusoes($1, $2) ids', [id, 'ana@empresa.com.br']))[0].ids;
    expect(ids).toEqual([id]);
    await iniciar(db.pool, id, 'w-guarda-2', 'RELATORIO18');
    const ok = await importar(db.pool, id, 'w-guarda-2', 'RELATORIO18', { staging: { faturamento: completo.slice(0, 13), movimento: [mov(0)] }, meta: periodoNov });
    expect(ok.desfecho.status).toBe('SUCESSO');
    expect(ok.merge.linhasRemovidas).toBe(587);
    expect(await rows('select exclusoes_aprovadas_por, exclusoes_aprovadas_em is not null a from xls_processamento where id = $1', [id]))
      .toEqual([{ exclusoes_aprovadas_por: 'ana@empresa.com.br', a: true }]);
    expect((await rows(`select count(*)::int n from bi_faturamento`))[0].n).toBe(13);
  });

  it('below either limit nothing is held: 30 % of a small table, or few rows of a large one', async () => {
    await limites(30, 100);
    await db.pool.query(`delete from bi_faturamento; delete from bi_movimento;`);
    const base = Array.from({ length: 50 }, (_, i) => fat(9000 + i));
    await r18(base);
    const a = await r18(base.slice(0, 5)); // removes 45 of 50 (90 %), fewer than 100 rows
    expect(a.merge.linhasRemovidas).toBe(45);
  });
});

describe('change-set triggers', () => {
  it('the installer creates only the missing triggers: one a DBA disabled stays disabled', async () => {
    await db.pool.query('alter table public.bi_posto disable trigger _900_xls_alteracao_upd');
    await db.pool.query('drop trigger _900_xls_alteracao_del on public.bi_posto');
    await db.pool.query('select app.xls_alteracao_instalar()');
    const { rows } = await db.pool.query(`select tgname, tgenabled from pg_trigger where tgrelid = 'public.bi_posto'::regclass and tgname like '!_900!_xls!_alteracao%' escape '!' order by tgname`);
    expect(rows).toEqual([
      { tgname: '_900_xls_alteracao_del', tgenabled: 'O' },
      { tgname: '_900_xls_alteracao_ins', tgenabled: 'O' },
      { tgname: '_900_xls_alteracao_upd', tgenabled: 'D' },
    ]);
    await db.pool.query('alter table public.bi_posto enable trigger _900_xls_alteracao_upd');
  });
});

describe('preview entry (xls_simular_abrir)', () => {
  it('refuses a type without import (XL422) and opens nothing; a known type opens a processing in the caller transaction only', async () => {
    const conta = async () => (await rows(`select count(*)::int n from xls_processamento where worker = 'simulacao'`))[0].n;
    const antes = await conta();
    await expect(db.pool.query(`select public.xls_simular_abrir('x.xlsx', repeat('a', 64), 'NAO_EXISTE')`))
      .rejects.toMatchObject({ code: 'XL422', message: expect.stringContaining('NAO_EXISTE ainda não tem importação') });
    const c = await db.pool.connect();
    try {
      await c.query('begin');
      const { rows: [r] } = await c.query(`select public.xls_simular_abrir('x.xlsx', repeat('b', 64), 'RELATORIO18') id`);
      expect((await c.query('select status, tipo from xls_processamento where id = $1', [r.id])).rows).toEqual([{ status: 'PROCESSANDO', tipo: 'RELATORIO18' }]);
      await c.query('rollback');
    } finally { c.release(); }
    expect(await conta()).toBe(antes);
  });
});
