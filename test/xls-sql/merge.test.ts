import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { xlsDefinirTipo, xlsMerge, xlsStagingPreparar } from '../../src/planilhas/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';
import { completeJobs, copyStaging, fat, importar, iniciar, mov, periodoNov, processarNovo, receberAvulso, semTravaDeExclusao, type Row } from './helpers.js';
import { backendPid, waitUntilBlocked } from '../harness/wait.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); await semTravaDeExclusao(db.pool); });
afterAll(async () => { await db?.drop(); });

let n = 0;
const r18 = (faturamento: Row[], movimento: Row[], meta: Record<string, unknown> = periodoNov) =>
  processarNovo(db.pool, `r18-${++n}`, 'RELATORIO18', { staging: { faturamento, movimento }, meta });
const metaImport = (meta: Row[], extra: Record<string, unknown> = {}) =>
  processarNovo(db.pool, `meta-${++n}`, 'META', { staging: { meta }, meta: extra });

const count = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows[0].n as number;

/** A processing held by w-m of the given type, and a client inside a transaction. */
async function emTransacao(tipo: TipoPlanilha | null) {
  const r = await receberAvulso(db.pool, `tx-${++n}`);
  await iniciar(db.pool, r.processamentoId!, 'w-m', tipo);
  const client = await db.pool.connect();
  await client.query('begin');
  return {
    id: r.processamentoId!, client,
    end: async () => { await client.query('rollback'); client.release(); await completeJobs(db.pool, 'w-m'); },
  };
}

describe('staging', () => {
  it('xls_staging_preparar gives the tables and COPY columns of the contract', async () => {
    const { client, end } = await emTransacao(null);
    const r18 = await xlsStagingPreparar(client, 'RELATORIO18');
    expect(r18).toEqual([
      { staging: 'faturamento', tabela: 'pg_temp.xls_stg_faturamento', colunas: ['linha', 'filial', 'nota_fiscal', 'serie', 'item', 'emissao', 'cliente', 'nome_cliente', 'vendedor', 'nome_vendedor', 'produto', 'descricao_produto', 'quantidade', 'valor_unitario', 'valor_total', 'placa', 'ano_veiculo', 'modelo_veiculo'] },
      { staging: 'movimento', tabela: 'pg_temp.xls_stg_movimento', colunas: ['linha', 'filial', 'data', 'lancamento', 'conta', 'descricao_conta', 'historico', 'debito', 'credito', 'placa', 'ano_veiculo'] },
    ]);
    expect(await xlsStagingPreparar(client, 'META')).toEqual([
      { staging: 'meta', tabela: 'pg_temp.xls_stg_meta', colunas: ['linha', 'competencia', 'vendedor', 'produto', 'meta_volume', 'meta_margem'] },
    ]);
    const { rows } = await client.query(`select attname, format_type(atttypid, atttypmod) t from pg_attribute
      where attrelid = 'pg_temp.xls_stg_meta'::regclass and attnum > 0 order by attnum`);
    expect(rows.map((r) => `${r.attname}:${r.t}`)).toEqual(['linha:integer', 'competencia:date', 'vendedor:text', 'produto:text', 'meta_volume:numeric', 'meta_margem:numeric']);
    // calling it again in the same transaction starts from empty tables
    await client.query(`insert into pg_temp.xls_stg_meta (linha) values (1)`);
    await xlsStagingPreparar(client, 'META');
    expect((await client.query('select count(*)::int n from pg_temp.xls_stg_meta')).rows[0].n).toBe(0);
    await end();
  });

  it('refusals: unknown type XL400 (every type of docs/formatos.md has its staging now)', async () => {
    await expect(xlsStagingPreparar(db.pool, 'NOPE' as TipoPlanilha)).rejects.toMatchObject({ code: 'XL400' });
  });

  it('xls_merge refusals: no staging XL500, no type XL409, not PROCESSANDO XL409, unknown XL404, bad meta XL400', async () => {
    let t = await emTransacao('META');
    await expect(xlsMerge(t.client, t.id)).rejects.toMatchObject({ code: 'XL500' });
    await t.end();
    t = await emTransacao(null);
    await expect(xlsMerge(t.client, t.id)).rejects.toMatchObject({ code: 'XL409' });
    await t.client.query('rollback');
    await xlsDefinirTipo(db.pool, t.id, 'w-m', 'POSTOS');
    await t.client.query('begin');
    await expect(xlsMerge(t.client, t.id)).rejects.toMatchObject({ code: 'XL500' }); // a type with import, staging not prepared
    await t.end();
    const pendente = await receberAvulso(db.pool, `pend-${++n}`);
    await expect(xlsMerge(db.pool, pendente.processamentoId!)).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsMerge(db.pool, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'XL404' });
    t = await emTransacao('META');
    await xlsStagingPreparar(t.client, 'META');
    await expect(t.client.query(`select xls_merge($1, '[1]')`, [t.id])).rejects.toMatchObject({ code: 'XL400' });
    await t.end();
  });

  it('RELATORIO18 needs a valid period (tab 10): XL422, nothing written', async () => {
    for (const meta of [{}, { periodo_inicio: '2026-11-01' }, { periodo_inicio: '2026-13-01', periodo_fim: '2026-11-30' }, { periodo_inicio: '2026-11-30', periodo_fim: '2026-11-01' }]) {
      await expect(r18([fat(1)], [], meta)).rejects.toMatchObject({ code: 'XL422' });
    }
    await completeJobs(db.pool, 'w-teste');
    expect(await count(`select count(*)::int n from bi_faturamento`)).toBe(0);
  });
});

describe('RELATORIO18: diff-aware merge', () => {
  const N = 2000;
  const base = Array.from({ length: N }, (_, i) => fat(i));
  const movs = Array.from({ length: 200 }, (_, i) => mov(i));

  it('first import writes every row and the reference tables; counts in the same scope', async () => {
    const { id, merge } = await r18(base, movs);
    expect(merge).toMatchObject({ linhasEnviadas: N + 200, linhasEfetivas: N + 200, linhasRemovidas: 0, linhasRejeitadas: [] });
    expect(merge.tabelas).toEqual({
      bi_faturamento: { enviadas: N, efetivas: N, removidas: 0 },
      bi_movimento: { enviadas: 200, efetivas: 200, removidas: 0 },
      bi_filial: { efetivas: 1 }, bi_vendedor: { efetivas: 5 }, bi_cliente: { efetivas: 50 }, bi_produto: { efetivas: 7 }, bi_veiculo: { efetivas: 0 },
    });
    const { rows: [p] } = await db.pool.query('select status, linhas_enviadas, linhas_efetivas, linhas_removidas, metricas from xls_processamento where id = $1', [id]);
    expect(p).toMatchObject({ status: 'SUCESSO', linhas_enviadas: N + 200, linhas_efetivas: N + 200, linhas_removidas: 0 });
    expect(p.metricas.bi_faturamento).toEqual({ enviadas: N, efetivas: N, removidas: 0 });
    expect(await count('select count(*)::int n from bi_faturamento')).toBe(N);
    expect((await db.pool.query(`select codigo, municipio, uf from bi_filial`)).rows).toEqual([{ codigo: '01', municipio: null, uf: null }]);
    expect((await db.pool.query(`select nome, filial from bi_vendedor where codigo = 'V3'`)).rows).toEqual([{ nome: 'Vendedor 3', filial: '01' }]);
  });

  it('an identical re-import writes nothing (0 rows, atualizado_em untouched)', async () => {
    const antes = (await db.pool.query('select max(atualizado_em) m from bi_faturamento')).rows[0].m;
    const { merge } = await r18(base, movs);
    expect(merge).toMatchObject({ linhasEnviadas: N + 200, linhasEfetivas: 0, linhasRemovidas: 0 });
    expect(Object.values(merge.tabelas).every((t) => t.efetivas === 0)).toBe(true);
    expect((await db.pool.query('select max(atualizado_em) m from bi_faturamento')).rows[0].m).toEqual(antes);
  });

  it('numbers written with another scale are the same value: nothing written', async () => {
    const { merge } = await r18(base.map((r) => ({ ...r, quantidade: '10.50', valor_unitario: '5.990' })), movs);
    expect(merge.linhasEfetivas).toBe(0);
  });

  it('1% changed writes 1%; rows outside the period are untouched; rows of the period absent from the file are deleted', async () => {
    // October data: outside November's scope
    await r18([fat(9000, { emissao: '2026-10-15' })], [mov(9000, { data: '2026-10-15' })], { periodo_inicio: '2026-10-01', periodo_fim: '2026-10-31' });
    const outubro = (await db.pool.query(`select atualizado_em from bi_faturamento where nota_fiscal = '10000'`)).rows[0];
    const changed = base.map((r, i) => (i % 100 === 0 ? { ...r, valor_total: '999.99' } : r));
    const semUltimos = changed.slice(0, N - 30);
    const { merge } = await r18(semUltimos, movs.slice(0, 190));
    expect(merge.tabelas.bi_faturamento!).toEqual({ enviadas: N - 30, efetivas: N / 100, removidas: 30 });
    expect(merge.tabelas.bi_movimento!).toEqual({ enviadas: 190, efetivas: 0, removidas: 10 });
    expect(merge).toMatchObject({ linhasEnviadas: N - 30 + 190, linhasEfetivas: N / 100, linhasRemovidas: 40 });
    expect(await count(`select count(*)::int n from bi_faturamento where valor_total = 999.99`)).toBe(N / 100);
    expect((await db.pool.query(`select atualizado_em from bi_faturamento where nota_fiscal = '10000'`)).rows[0]).toEqual(outubro);
    expect(await count(`select count(*)::int n from bi_movimento where data = '2026-10-15'`)).toBe(1);
    expect(await count(`select count(*)::int n from bi_faturamento where emissao between '2026-11-01' and '2026-11-30'`)).toBe(N - 30);
    // the reference tables are never deleted from
    expect(await count(`select count(*)::int n from bi_cliente`)).toBe(50);
  });

  it('the period scope includes its first and last days: a re-import removes rows dated on them, not the day before or after', async () => {
    const dez = { periodo_inicio: '2026-12-01', periodo_fim: '2026-12-31' };
    const f = (i: number, emissao: string) => fat(30000 + i, { emissao });
    const m = (i: number, data: string) => mov(30000 + i, { data });
    await r18([f(0, '2026-11-30')], [m(0, '2026-11-30')]);
    await r18([f(1, '2027-01-01')], [m(1, '2027-01-01')], { periodo_inicio: '2027-01-01', periodo_fim: '2027-01-31' });
    await r18([f(2, '2026-12-01'), f(3, '2026-12-15'), f(4, '2026-12-31')], [m(2, '2026-12-01'), m(3, '2026-12-15'), m(4, '2026-12-31')], dez);
    const { merge } = await r18([f(3, '2026-12-15')], [m(3, '2026-12-15')], dez);
    expect(merge.tabelas.bi_faturamento).toMatchObject({ removidas: 2 });
    expect(merge.tabelas.bi_movimento).toMatchObject({ removidas: 2 });
    expect((await db.pool.query(`select to_char(emissao, 'YYYY-MM-DD') d from bi_faturamento where nota_fiscal::int >= 30000 order by 1`)).rows.map((r) => r.d))
      .toEqual(['2026-11-30', '2026-12-15', '2027-01-01']);
    expect((await db.pool.query(`select to_char(data, 'YYYY-MM-DD') d from bi_movimento where lancamento::int >= 30000 order by 1`)).rows.map((r) => r.d))
      .toEqual(['2026-11-30', '2026-12-15', '2027-01-01']);
  });

  it('reference upserts keep the manual registry data and the columns RELATORIO18 does not own', async () => {
    await db.pool.query(`update bi_filial set municipio = 'Cuiabá', uf = 'MT' where codigo = '01'`);
    await db.pool.query(`update bi_cliente set cnpj_cpf = '12345678000190', classe = 'A', municipio = 'Sinop', uf = 'MT' where codigo = 'C1'`);
    const { merge } = await r18([fat(1, { nome_cliente: 'Cliente Um Renomeado', nome_vendedor: null, filial: '01' }), fat(2, { filial: '02' })], [], periodoNov);
    expect(merge.tabelas).toMatchObject({ bi_filial: { efetivas: 1 }, bi_cliente: { efetivas: 1 }, bi_vendedor: { efetivas: 1 } });
    expect((await db.pool.query(`select codigo, municipio, uf from bi_filial order by codigo`)).rows).toEqual([
      { codigo: '01', municipio: 'Cuiabá', uf: 'MT' }, { codigo: '02', municipio: null, uf: null }]);
    expect((await db.pool.query(`select nome, cnpj_cpf, classe, municipio, uf from bi_cliente where codigo = 'C1'`)).rows[0])
      .toEqual({ nome: 'Cliente Um Renomeado', cnpj_cpf: '12345678000190', classe: 'A', municipio: 'Sinop', uf: 'MT' });
    // a seller row without name keeps the stored name; V2 moved to branch 02
    expect((await db.pool.query(`select codigo, nome, filial from bi_vendedor where codigo in ('V1', 'V2') order by codigo`)).rows)
      .toEqual([{ codigo: 'V1', nome: 'Vendedor 1', filial: '01' }, { codigo: 'V2', nome: 'Vendedor 2', filial: '02' }]);
  });

  it('an empty tab deletes nothing and says so', async () => {
    const antes = await count(`select count(*)::int n from bi_faturamento`);
    const { merge } = await r18([], [mov(1)]);
    expect(merge.tabelas.bi_faturamento!).toEqual({ enviadas: 0, efetivas: 0, removidas: 0 });
    expect(await count(`select count(*)::int n from bi_faturamento`)).toBe(antes);
    expect(merge.avisos).toContainEqual(expect.objectContaining({ categoria: 'remocao', motivo: expect.stringContaining('envio vazio na aba 20') }));
  });

  it('rows rejected by the reader suspend the deletions of their tab (nothing stored is lost)', async () => {
    await r18([fat(1), fat(2), fat(3)], [mov(1), mov(2)]);
    const rejeitada = { linha: 4, campo: 'valor_total', valor: 'abc', mensagem: "linha 4: valor_total 'abc' inválido", aba: '20' };
    const { id, merge } = await r18([fat(1)], [mov(1)], { ...periodoNov, linhas_rejeitadas: [rejeitada] });
    expect(merge.tabelas.bi_faturamento!.removidas).toBe(0);
    expect(merge.tabelas.bi_movimento!.removidas).toBe(1);
    expect(merge.linhasRejeitadas).toEqual([rejeitada]);
    expect(merge.avisos).toContainEqual(expect.objectContaining({ categoria: 'remocao', motivo: expect.stringContaining('aba 20') }));
    expect((await db.pool.query('select linhas_rejeitadas from xls_processamento where id = $1', [id])).rows[0].linhas_rejeitadas).toEqual([rejeitada]);
    // without a tab, every deletion of the file is suspended
    const sem = await r18([fat(1)], [], { ...periodoNov, linhas_rejeitadas: [{ linha: 9, campo: 'x', valor: 'y' }] });
    expect(sem.merge.linhasRemovidas).toBe(0);
  });

  it('rows without key or date are rejected by SQL; a key repeated in the file keeps its last row', async () => {
    const { merge } = await r18([
      fat(1), fat(2, { nota_fiscal: null }), fat(3, { emissao: null }), fat(4, { nota_fiscal: '1001', valor_total: '7' }),
    ], [mov(1, { conta: '  ' })]);
    expect(merge.linhasRejeitadas).toEqual([
      { aba: '20', linha: 4, campo: 'nota_fiscal', valor: '', mensagem: "linha 4: nota_fiscal '' inválido" },
      { aba: '20', linha: 5, campo: 'emissao', valor: '', mensagem: "linha 5: emissao '' inválido" },
      { aba: '30', linha: 3, campo: 'conta', valor: '', mensagem: "linha 3: conta '' inválido" },
    ]);
    expect(merge.avisos).toContainEqual({ categoria: 'duplicada', motivo: expect.any(String), quantidade: 1, linhas: [{ aba: '20', linha: 3, valor: null }] });
    expect((await db.pool.query(`select valor_total from bi_faturamento where nota_fiscal = '1001' and filial = '01'`)).rows[0].valor_total).toBe('7');
  });
});

describe('staging_aparado: the caller says its staging text is trimmed, with NULL for empty', () => {
  const lerFat = async (nf: string) => (await db.pool.query(
    `select cliente, vendedor, produto from bi_faturamento where filial = '01' and nota_fiscal = $1`, [nf])).rows[0];

  it('without it the merge trims and turns blank text into NULL; with it the staged text is taken as it is', async () => {
    const sujo = { cliente: ' C7 ', vendedor: '  V1', produto: 'P2  ' };
    await r18([fat(1, { nota_fiscal: '88001', ...sujo })], [mov(1, { lancamento: '88001' })]);
    expect(await lerFat('88001')).toEqual({ cliente: 'C7', vendedor: 'V1', produto: 'P2' });
    const { merge } = await r18([fat(1, { nota_fiscal: '88002', ...sujo })], [mov(1, { lancamento: '88002' })], { ...periodoNov, staging_aparado: true });
    expect(merge.linhasEfetivas).toBe(2);
    expect(await lerFat('88002')).toEqual(sujo);
  });

  it('with it the generated normalisation has no btrim; a value that is not a boolean true is ignored', async () => {
    for (const [meta, btrim] of [[{ staging_aparado: true }, false], [{ staging_aparado: 'true' }, true], [{ staging_aparado: false }, true], [{}, true]] as const) {
      const t = await emTransacao('RELATORIO18');
      await xlsStagingPreparar(t.client, 'RELATORIO18');
      await t.client.query(`select app.xls_merge_preparar('RELATORIO18', $1)`, [{ ...periodoNov, ...meta }]);
      const { rows } = await t.client.query(`select sql_select from pg_temp.xls_merge_estado where fonte is null`);
      expect(rows.length).toBe(2);
      for (const r of rows) expect(r.sql_select.includes('btrim('), JSON.stringify(meta)).toBe(btrim);
      await t.end();
    }
  });
});

describe('the length policy: text cut to its varchar(n), a key over its length a row error', () => {
  it('every string column outside a key written from a sheet is cut to its varchar(n)', async () => {
    const longo = (p: string) => p + 'x'.repeat(400);
    const { merge } = await r18([fat(1, {
      nota_fiscal: '77001', nome_cliente: longo('nc'), nome_vendedor: longo('nv'), descricao_produto: longo('dp'),
      placa: 'ABC1D23', modelo_veiculo: longo('modelo'),
    })], [mov(1, { lancamento: '77001', descricao_conta: longo('dc'), historico: longo('h') })]);
    expect(merge.linhasRejeitadas).toEqual([]);
    expect(merge.linhasEfetivas).toBe(2);
    const cols: Array<[string, string]> = [['bi_cliente', 'nome'], ['bi_vendedor', 'nome'], ['bi_produto', 'descricao'], ['bi_veiculo', 'modelo'],
      ['bi_movimento', 'descricao_conta'], ['bi_movimento', 'historico']];
    for (const [t, c] of cols) {
      const { rows: [{ m }] } = await db.pool.query(`select character_maximum_length m from information_schema.columns where table_name = $1 and column_name = $2`, [t, c]);
      const len = (await db.pool.query(`select max(length(${c}))::int l from ${t}`)).rows[0].l;
      expect(len, `${t}.${c}`).toBe(m);
    }
  });

  it('a key (of the target or of a reference table it feeds) longer than its column is a row error, never cut into another code', async () => {
    const a = 'Z'.repeat(20);
    const { merge } = await r18([
      fat(1, { nota_fiscal: a + '1' }), fat(2, { nota_fiscal: a + '2' }), fat(3, { nota_fiscal: '88003', cliente: 'C'.repeat(21) }), fat(4, { nota_fiscal: '88004' }),
    ], [mov(1, { lancamento: '88001', conta: 'K'.repeat(41) })]);
    expect(merge.tabelas.bi_faturamento!.efetivas).toBe(1);
    expect(merge.linhasRejeitadas).toEqual([
      { aba: '20', linha: 3, campo: 'nota_fiscal', valor: a + '1', mensagem: `linha 3: nota_fiscal '${a}1' longo demais` },
      { aba: '20', linha: 4, campo: 'nota_fiscal', valor: a + '2', mensagem: `linha 4: nota_fiscal '${a}2' longo demais` },
      { aba: '20', linha: 5, campo: 'cliente', valor: 'C'.repeat(21), mensagem: `linha 5: cliente '${'C'.repeat(21)}' longo demais` },
      { aba: '30', linha: 3, campo: 'conta', valor: 'K'.repeat(41), mensagem: `linha 3: conta '${'K'.repeat(41)}' longo demais` },
    ]);
    expect(merge.avisos.filter((x) => x.categoria === 'duplicada')).toEqual([]);
    expect((await db.pool.query(`select count(*)::int n from bi_cliente where codigo like 'CCCCCCCCCCCCCCCCCCCC%'`)).rows[0].n).toBe(0);
  });
});

describe('vehicle-registry defence', () => {
  it('collects each reason with row numbers and counts, still imports the rows, registers valid plates', async () => {
    const { merge } = await r18([
      fat(1, { placa: 'abc-1234', ano_veiculo: '2019/2020', modelo_veiculo: 'Scania R450' }),  // ok, normalised
      fat(2, { placa: 'BRA2E19', ano_veiculo: '2022/2022' }),                                  // ok, Mercosul
      fat(3, { placa: 'XX-12', ano_veiculo: '2020/2020' }),                                    // placa inválida
      fat(4, { placa: null, modelo_veiculo: 'Volvo FH' }),                                     // placa ausente
      fat(5, { placa: 'DEF5678', ano_veiculo: '2020' }),                                       // ano do veículo inválido
      fat(6, { placa: 'GHI9012', ano_veiculo: '2021/2019' }),                                  // ano modelo incoerente (before)
      fat(7, { placa: 'JKL3456', ano_veiculo: '2018/2020' }),                                  // ano modelo incoerente (2 years after)
    ], [
      mov(1, { placa: 'ABC 1234', ano_veiculo: null }),                                         // ok (spaces removed)
      mov(2, { placa: null, ano_veiculo: '2010/2011' }),                                       // placa ausente
      mov(3, { placa: '1234ABC', ano_veiculo: 'dois mil' }),                                   // placa inválida + ano inválido
    ]);
    expect(merge.linhasEfetivas).toBe(10);
    const veic = merge.avisos.filter((a) => a.categoria === 'veiculo');
    expect(veic).toEqual([
      { categoria: 'veiculo', motivo: 'placa inválida', quantidade: 2, linhas: [{ aba: '20', linha: 5, valor: 'XX-12' }, { aba: '30', linha: 5, valor: '1234ABC' }] },
      { categoria: 'veiculo', motivo: 'placa ausente', quantidade: 2, linhas: [{ aba: '20', linha: 6, valor: 'Volvo FH' }, { aba: '30', linha: 4, valor: '2010/2011' }] },
      { categoria: 'veiculo', motivo: 'ano do veículo inválido', quantidade: 2, linhas: [{ aba: '20', linha: 7, valor: '2020' }, { aba: '30', linha: 5, valor: 'dois mil' }] },
      { categoria: 'veiculo', motivo: 'ano modelo incoerente', quantidade: 2, linhas: [{ aba: '20', linha: 8, valor: '2021/2019' }, { aba: '20', linha: 9, valor: '2018/2020' }] },
    ]);
    const { rows } = await db.pool.query(`select placa, ano_fabricacao, ano_modelo, modelo from bi_veiculo where placa <> 'ABC1D23' order by placa`);
    expect(rows).toEqual([
      { placa: 'ABC1234', ano_fabricacao: 2019, ano_modelo: 2020, modelo: 'Scania R450' },
      { placa: 'BRA2E19', ano_fabricacao: 2022, ano_modelo: 2022, modelo: null },
      { placa: 'DEF5678', ano_fabricacao: null, ano_modelo: null, modelo: null },
      { placa: 'GHI9012', ano_fabricacao: 2021, ano_modelo: 2019, modelo: null },
      { placa: 'JKL3456', ano_fabricacao: 2018, ano_modelo: 2020, modelo: null },
    ]);
    expect((await db.pool.query(`select placa from bi_faturamento where nota_fiscal = '1001'`)).rows[0].placa).toBe('ABC1234');
    // a later sheet without year or model keeps the registry's values
    const { merge: m2 } = await r18([fat(1, { placa: 'ABC1234' })], [mov(1, { placa: 'ABC1234' })]);
    expect(m2.tabelas.bi_veiculo!.efetivas).toBe(0);
    expect(m2.avisos.filter((a) => a.categoria === 'veiculo')).toEqual([]);
  });
});

describe('META', () => {
  const meta = (i: number, o: Row = {}): Row => ({ linha: i + 2, competencia: '2026-11-01', vendedor: `V${i % 3}`, produto: `P${i}`, meta_volume: String(1000 + i), meta_margem: '0.05', ...o });

  it('a seller missing from bi_vendedor fails with XL424 naming the sellers and rows; nothing written', async () => {
    await r18([fat(0), fat(1), fat(2)], []); // creates V0, V1, V2
    const err = await metaImport([meta(1), meta(2, { vendedor: 'V99' }), meta(3, { vendedor: 'V98' }), meta(4, { vendedor: 'V99' })])
      .catch((e: { code: string; message: string }) => e);
    expect(err).toMatchObject({ code: 'XL424' });
    expect((err as { message: string }).message).toBe('vendedor não cadastrado em bi_vendedor: V98 (linha 5), V99 (linhas 4, 6)');
    expect(await count('select count(*)::int n from bi_meta')).toBe(0);
    await completeJobs(db.pool, 'w-teste');
  });

  it('diff-aware upsert; scope = the competências present; identical re-import writes 0', async () => {
    const nov = Array.from({ length: 30 }, (_, i) => meta(i));
    const out = Array.from({ length: 5 }, (_, i) => meta(i, { competencia: '2026-10-01' }));
    const first = await metaImport([...nov, ...out]);
    expect(first.merge).toMatchObject({ linhasEnviadas: 35, linhasEfetivas: 35, linhasRemovidas: 0 });
    expect((await metaImport([...nov, ...out])).merge).toMatchObject({ linhasEfetivas: 0, linhasRemovidas: 0 });
    // November only, 3 goals fewer, 1 changed: October is outside the scope
    const novo = nov.slice(0, 27).map((r, i) => (i === 0 ? { ...r, meta_volume: '1' } : r));
    const { merge } = await metaImport(novo);
    expect(merge).toMatchObject({ linhasEnviadas: 27, linhasEfetivas: 1, linhasRemovidas: 3 });
    expect(await count(`select count(*)::int n from bi_meta where competencia = '2026-10-01'`)).toBe(5);
    expect(await count(`select count(*)::int n from bi_meta where competencia = '2026-11-01'`)).toBe(27);
  });

  it('competência is stored as staged: the month is normalised once, by the reader (cells.ts competencia)', async () => {
    expect(await count(`select count(*)::int n from app.xls_alvo where expressoes ? 'competencia'`)).toBe(0);
    await metaImport([meta(1, { competencia: '2026-12-01' })]);
    expect(await count(`select count(*)::int n from bi_meta where competencia = '2026-12-01'`)).toBe(1);
  });
});

describe('concurrent merges', () => {
  it('two RELATORIO18 of the same period with overlapping keys in opposite orders and a META run at once without deadlock', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => fat(20000 + i, { emissao: '2026-09-10' }));
    const periodo = { periodo_inicio: '2026-09-01', periodo_fim: '2026-09-30' };
    const pA = r18(rows.map((r) => ({ ...r, valor_total: '1' })), [], periodo);
    const pB = processarNovo(db.pool, `r18-conc-${++n}`, 'RELATORIO18',
      { staging: { faturamento: [...rows].reverse().map((r) => ({ ...r, valor_total: '2' })), movimento: [] }, meta: periodo }, 'w-outro');
    const pC = processarNovo(db.pool, `meta-conc-${++n}`, 'META',
      { staging: { meta: [{ linha: 2, competencia: '2026-09-01', vendedor: 'V1', produto: 'P1', meta_volume: '1', meta_margem: null }] } }, 'w-meta');
    const [a, b, c] = await Promise.all([pA, pB, pC]);
    expect(a.desfecho.status).toBe('SUCESSO');
    expect(b.desfecho.status).toBe('SUCESSO');
    expect(c.desfecho.status).toBe('SUCESSO');
    expect(a.merge.linhasEfetivas + b.merge.linhasEfetivas).toBe(3000);
    const finais = (await db.pool.query(`select distinct valor_total from bi_faturamento where emissao = '2026-09-10'`)).rows;
    expect(finais).toHaveLength(1);
  });

  it('merges writing the same reference table are serialised by the merge lock, whatever the order of their keys (RELATORIO18 and MARGEM_DIA, customers in opposite orders)', async () => {
    // the rule (docs/xls-merge.md, "Concurrent merges"): the merge lock, not the order of the
    // writes, keeps concurrent processings from deadlocking; the second waits on the lock itself
    const clientes = Array.from({ length: 40 }, (_, i) => `LK${String(i).padStart(2, '0')}`);
    const a = await emTransacao('RELATORIO18');
    const b = await emTransacao('MARGEM_DIA');
    try {
      const [fatT] = (await xlsStagingPreparar(a.client, 'RELATORIO18')).filter((t) => t.staging === 'faturamento');
      await copyStaging(a.client, fatT!.tabela, fatT!.colunas, clientes.map((c, i) => fat(40000 + i, { cliente: c, nome_cliente: `A ${c}`, emissao: '2026-08-10' })));
      await xlsMerge(a.client, a.id, { periodo_inicio: '2026-08-01', periodo_fim: '2026-08-31' });
      const [mdT] = await xlsStagingPreparar(b.client, 'MARGEM_DIA');
      await copyStaging(b.client, mdT!.tabela, mdT!.colunas, [...clientes].reverse().map((c, i) => ({
        linha: i + 2, data: '2026-08-10', filial: '01', cliente: c, nome_cliente: `B ${c}`, vendedor: 'V1', produto: 'P1',
        volume: '1', preco_medio: '6', custo_medio: '5', margem: '1' })));
      let feito = false;
      const pb = xlsMerge(b.client, b.id).then(() => { feito = true; });
      const limite = Date.now() + 10_000;
      let espera: { wait_event_type: string | null; wait_event: string | null } | undefined;
      for (;;) {
        espera = (await db.pool.query(`select wait_event_type, wait_event from pg_stat_activity where pid = $1`, [backendPid(b.client)])).rows[0];
        if (espera?.wait_event_type === 'Lock' || feito || Date.now() > limite) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(feito).toBe(false);
      expect(espera).toEqual({ wait_event_type: 'Lock', wait_event: 'advisory' });
      await a.client.query('commit');
      await pb;
      await b.client.query('commit');
      expect((await db.pool.query(`select count(*)::int n, count(*) filter (where nome like 'B %')::int b from bi_cliente where codigo like 'LK%'`)).rows[0])
        .toEqual({ n: clientes.length, b: clientes.length });
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('merges of the same scoped table wait for each other; others do not', async () => {
    const a = await emTransacao('META');
    const b = await emTransacao('META');
    for (const t of [a, b]) await xlsStagingPreparar(t.client, 'META');
    await xlsMerge(a.client, a.id);
    let done = false;
    const pb = xlsMerge(b.client, b.id).then(() => { done = true; });
    await waitUntilBlocked(db.pool, { pid: backendPid(b.client) });
    expect(done).toBe(false);
    // a RELATORIO18 merge is not blocked by the META one
    const c = await emTransacao('RELATORIO18');
    await xlsStagingPreparar(c.client, 'RELATORIO18');
    await xlsMerge(c.client, c.id, periodoNov);
    await a.client.query('commit');
    await pb;
    expect(done).toBe(true);
    for (const t of [a, b, c]) await t.end();
  });
});
