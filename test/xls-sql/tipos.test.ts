/**
 * The merges of the eight types besides RELATORIO18 and META at the SQL level: rows go straight to staging
 * (as the reader would COPY them), xls_merge runs, the bi_* tables are checked by value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';
import { completeJobs, processarNovo, type Row } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

let n = 0;
const importar = (tipo: TipoPlanilha, staging: Record<string, Row[]>, meta: Record<string, unknown> = {}) =>
  processarNovo(db.pool, `${tipo}-${++n}`, tipo, { staging, meta });
const rows = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows;

describe('MARGEM_CONSOLIDADA', () => {
  const mc = (linha: number, o: Row = {}): Row => ({
    linha, competencia: '2026-11-01', filial: '01', produto: 'P1', volume: '1000', receita_liquida: '5000.5', cmv: '4000',
    margem_total: '1000.5', margem_por_litro: '1.0005', ...o,
  });

  it('upserts per (competência, filial, produto), creates branches by code only, and replaces the competências present', async () => {
    await db.pool.query(`insert into bi_filial (codigo, municipio, uf) values ('01', 'Cuiabá', 'MT')`);
    const a = await importar('MARGEM_CONSOLIDADA', { margem_consolidada: [
      mc(2), mc(3, { produto: 'P2', filial: '02' }), mc(4, { competencia: '2026-10-01' }),
    ] });
    expect(a.merge).toMatchObject({ linhasEnviadas: 3, linhasEfetivas: 3, linhasRemovidas: 0 });
    expect(await rows(`select codigo, municipio, uf from bi_filial order by codigo`)).toEqual([
      { codigo: '01', municipio: 'Cuiabá', uf: 'MT' }, { codigo: '02', municipio: null, uf: null },
    ]);
    // November again: P2/02 gone, P1 changed; October is outside the scope and stays
    const b = await importar('MARGEM_CONSOLIDADA', { margem_consolidada: [mc(2, { margem_total: '999' })] });
    expect(b.merge).toMatchObject({ linhasEnviadas: 1, linhasEfetivas: 1, linhasRemovidas: 1 });
    expect(await rows(`select to_char(competencia, 'YYYY-MM') c, filial, produto, margem_total::text m from bi_margem_consolidada order by 1, 2, 3`)).toEqual([
      { c: '2026-10', filial: '01', produto: 'P1', m: '1000.5' },
      { c: '2026-11', filial: '01', produto: 'P1', m: '999' },
    ]);
    // identical re-import writes nothing
    const c = await importar('MARGEM_CONSOLIDADA', { margem_consolidada: [mc(2, { margem_total: '999' })] });
    expect(c.merge).toMatchObject({ linhasEnviadas: 1, linhasEfetivas: 0, linhasRemovidas: 0 });
  });
});

describe('MARGEM_DIA', () => {
  const md = (linha: number, o: Row = {}): Row => ({
    linha, data: '2026-11-10', filial: '01', cliente: 'C1', nome_cliente: 'Posto Um', vendedor: 'V1', produto: 'P1',
    volume: '100', preco_medio: '6.1', custo_medio: '5.5', margem: '60', cnpj_cpf: null, classe: null, municipio: null, uf: null, prazo: null, ...o,
  });

  it('keeps the stored CNPJ/CPF, classe, município and UF of bi_cliente when the sheet lacks them; empty Prazo is NULL', async () => {
    await db.pool.query(`insert into bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf) values ('C1', 'Antigo', '12345678000190', 'A', 'Sinop', 'MT')`);
    const a = await importar('MARGEM_DIA', { margem_dia: [
      md(2), md(3, { cliente: 'C2', nome_cliente: 'Novo', cnpj_cpf: '98765432000110', classe: 'B', municipio: 'Sorriso', uf: 'MT', prazo: '28' }),
    ] });
    expect(a.merge).toMatchObject({ linhasEnviadas: 2, linhasEfetivas: 2, linhasRemovidas: 0 });
    expect(await rows(`select codigo, nome, cnpj_cpf, classe, municipio, uf from bi_cliente where codigo in ('C1', 'C2') order by codigo`)).toEqual([
      { codigo: 'C1', nome: 'Posto Um', cnpj_cpf: '12345678000190', classe: 'A', municipio: 'Sinop', uf: 'MT' },
      { codigo: 'C2', nome: 'Novo', cnpj_cpf: '98765432000110', classe: 'B', municipio: 'Sorriso', uf: 'MT' },
    ]);
    expect(await rows(`select cliente, prazo::text from bi_margem_dia order by cliente`)).toEqual([
      { cliente: 'C1', prazo: null }, { cliente: 'C2', prazo: '28' },
    ]);
    // a value given replaces the stored one; the dates present are the scope
    const b = await importar('MARGEM_DIA', { margem_dia: [md(2, { classe: 'C', uf: 'GO' })] });
    expect(b.merge).toMatchObject({ linhasEnviadas: 1, linhasEfetivas: 0, linhasRemovidas: 1 });
    expect(await rows(`select classe, uf, cnpj_cpf from bi_cliente where codigo = 'C1'`)).toEqual([{ classe: 'C', uf: 'GO', cnpj_cpf: '12345678000190' }]);
    expect(await rows(`select cliente from bi_margem_dia`)).toEqual([{ cliente: 'C1' }]);
  });

  it('a value given on an earlier row of a customer is not lost when its last row leaves the cell empty (in one chunk and across chunks)', async () => {
    // C9 new: line 2 carries tax id, class, municipality and state, line 3 only another product;
    // C8 stored: line 4 carries new values, line 5 none (the file's values replace the stored ones)
    await db.pool.query(`insert into bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf) values ('C8', 'Antigo', '12345678000190', 'A', 'Sinop', 'MT')
                         on conflict (codigo) do update set cnpj_cpf = excluded.cnpj_cpf, classe = excluded.classe, municipio = excluded.municipio, uf = excluded.uf`);
    for (const chunk of [undefined, 1]) {
      await db.pool.query(`delete from bi_margem_dia; delete from bi_cliente where codigo = 'C9'`);
      await processarNovo(db.pool, `MARGEM_DIA-${++n}`, 'MARGEM_DIA', { chunk, staging: { margem_dia: [
        md(2, { cliente: 'C9', nome_cliente: 'Posto Nove', cnpj_cpf: '11.222.333/0001-44', classe: 'A', municipio: 'Sinop', uf: 'mt' }),
        md(3, { cliente: 'C9', nome_cliente: null, produto: 'P2' }),
        md(4, { cliente: 'C8', nome_cliente: 'Posto Oito', cnpj_cpf: '99888777000166', classe: 'B', municipio: 'Sorriso', uf: 'MT' }),
        md(5, { cliente: 'C8', nome_cliente: null, produto: 'P2' }),
      ] } });
      expect(await rows(`select codigo, nome, cnpj_cpf, classe, municipio, uf from bi_cliente where codigo in ('C8', 'C9') order by codigo`), `chunk ${chunk}`).toEqual([
        { codigo: 'C8', nome: 'Posto Oito', cnpj_cpf: '99888777000166', classe: 'B', municipio: 'Sorriso', uf: 'MT' },
        { codigo: 'C9', nome: 'Posto Nove', cnpj_cpf: '11222333000144', classe: 'A', municipio: 'Sinop', uf: 'MT' },
      ]);
    }
  });
});

describe('META_CARTEIRA', () => {
  it('needs the customer (XL424 naming it, nothing written), then upserts and replaces the competências present', async () => {
    await db.pool.query(`insert into bi_cliente (codigo, nome) values ('K1', 'Cliente K1') on conflict do nothing`);
    const err = await importar('META_CARTEIRA', { meta_carteira: [
      { linha: 2, competencia: '2026-11-01', cliente: 'K1', produto: 'P1', meta_volume: '10' },
      { linha: 3, competencia: '2026-11-01', cliente: 'K9', produto: 'P1', meta_volume: '10' },
    ] }).catch((e) => e);
    expect(err).toMatchObject({ code: 'XL424' });
    expect(err.message).toContain('K9 (linha 3)');
    await completeJobs(db.pool, 'w-teste');
    expect(await rows('select count(*)::int n from bi_meta_carteira')).toEqual([{ n: 0 }]);
    const a = await importar('META_CARTEIRA', { meta_carteira: [
      { linha: 2, competencia: '2026-11-01', cliente: 'K1', produto: 'P1', meta_volume: '10' },
      { linha: 3, competencia: '2026-11-01', cliente: 'K1', produto: 'P2', meta_volume: '20' },
      { linha: 4, competencia: '2026-11-01', cliente: 'K1', produto: 'P1', meta_volume: '15' },
    ] });
    expect(a.merge.linhasEfetivas).toBe(2);
    expect(a.merge.avisos).toEqual([expect.objectContaining({ categoria: 'duplicada', quantidade: 1, linhas: [{ aba: null, linha: 2, valor: null }] })]);
    expect(await rows(`select produto, meta_volume::text v from bi_meta_carteira order by produto`)).toEqual([
      { produto: 'P1', v: '15' }, { produto: 'P2', v: '20' },
    ]);
  });
});

describe('POSTOS and TRR: the whole table is the scope', () => {
  it('POSTOS replaces the registry; truncates strings to the column; an empty send deletes nothing', async () => {
    const posto = (linha: number, cnpj: string, o: Row = {}): Row => ({
      linha, cnpj, razao_social: 'Auto Posto', nome_fantasia: 'Posto', bandeira: 'Ipiranga', endereco: 'Av. 1', bairro: 'Centro',
      municipio: 'Cuiabá', uf: 'MT', cep: '78000000', tipo_instalacao: null, ...o,
    });
    await importar('POSTOS', { posto: [posto(2, '11111111000111'), posto(3, '22222222000122', { bandeira: 'B'.repeat(80) })] });
    expect(await rows(`select cnpj, length(bandeira) l from bi_posto order by cnpj`)).toEqual([
      { cnpj: '11111111000111', l: 8 }, { cnpj: '22222222000122', l: 60 },
    ]);
    const b = await importar('POSTOS', { posto: [posto(2, '11111111000111', { tipo_instalacao: 'Posto revendedor' })] });
    expect(b.merge).toMatchObject({ linhasEnviadas: 1, linhasEfetivas: 1, linhasRemovidas: 1 });
    const c = await importar('POSTOS', { posto: [] });
    expect(c.merge).toMatchObject({ linhasEnviadas: 0, linhasEfetivas: 0, linhasRemovidas: 0 });
    expect(c.merge.avisos.map((a) => a.motivo)).toEqual(['envio vazio: nada removido de bi_posto']);
    expect(await rows(`select cnpj, tipo_instalacao from bi_posto`)).toEqual([{ cnpj: '11111111000111', tipo_instalacao: 'Posto revendedor' }]);
  });

  it('TRR: rejected rows suspend the deletes (warning), the valid rows are written', async () => {
    const trr = (linha: number, cnpj: string, o: Row = {}): Row => ({
      linha, cnpj, razao_social: 'TRR', municipio: 'Sinop', uf: 'MT', tipo_instalacao: null, qualificacao_empresa: 'TRR', capacidade_m3: '30', ...o,
    });
    await importar('TRR', { trr: [trr(2, '33333333000133'), trr(3, '44444444000144')] });
    const b = await importar('TRR', { trr: [trr(2, '33333333000133', { capacidade_m3: '45.5' })] },
      { linhas_rejeitadas: [{ linha: 3, campo: 'cnpj', valor: 'x', mensagem: "linha 3: cnpj 'x' inválido" }] });
    expect(b.merge).toMatchObject({ linhasEfetivas: 1, linhasRemovidas: 0 });
    expect(b.merge.avisos.map((a) => a.categoria)).toEqual(['remocao']);
    expect(await rows(`select cnpj, capacidade_m3::text c from bi_trr order by cnpj`)).toEqual([
      { cnpj: '33333333000133', c: '45.5' }, { cnpj: '44444444000144', c: '30' },
    ]);
  });
});

describe('COMPRAS', () => {
  const compra = (linha: number, o: Row = {}): Row => ({
    linha, data: '2026-11-05', cnpj_fornecedor: '55555555000155', fornecedor: 'Distribuidora', nota_fiscal: String(900 + linha),
    produto: 'Diesel S10', codigo_onu: '1202', quantidade: '5000', valor_total: '29500.5', ...o,
  });

  it('only fuels enter (others counted, not errors); suppliers upserted; a file replaces the calendar months its dates cover', async () => {
    await db.pool.query(`insert into bi_fornecedor (cnpj, nome) values ('55555555000155', 'Nome Antigo')`);
    const a = await importar('COMPRAS', { compra: [
      compra(2), compra(3, { data: '2026-10-20', codigo_onu: '1203', produto: 'Gasolina C' }),
      compra(4, { codigo_onu: '1830', produto: 'Ácido' }), compra(5, { codigo_onu: null, produto: 'Lubrificante' }),
      compra(6, { cnpj_fornecedor: '66666666000166', fornecedor: null, data: '2026-09-30', codigo_onu: '3475' }),
    ] });
    expect(a.merge).toMatchObject({ linhasEnviadas: 5, linhasEfetivas: 3, linhasRemovidas: 0, linhasRejeitadas: [] });
    expect(a.merge.avisos).toEqual([expect.objectContaining({ categoria: 'filtrada', quantidade: 2,
      linhas: [{ aba: 'Compras', linha: 4, valor: '1830' }, { aba: 'Compras', linha: 5, valor: null }] })]);
    expect(a.merge.tabelas).toMatchObject({ bi_compra: { enviadas: 5, efetivas: 3 }, filtradas_onu: { linhas: 2 }, bi_fornecedor: { efetivas: 2 } });
    expect(await rows(`select cnpj, nome from bi_fornecedor order by cnpj`)).toEqual([
      { cnpj: '55555555000155', nome: 'Distribuidora' }, { cnpj: '66666666000166', nome: null },
    ]);
    // a corrected November: the November rows absent are deleted, October and September untouched
    await importar('COMPRAS', { compra: [compra(2, { nota_fiscal: '777', data: '2026-11-28' })] });
    expect(await rows(`select to_char(data, 'YYYY-MM-DD') d, nota_fiscal, codigo_onu, quantidade::text q, valor_total::text v from bi_compra order by data`)).toEqual([
      { d: '2026-09-30', nota_fiscal: '906', codigo_onu: 3475, q: '5000', v: '29500.5' },
      { d: '2026-10-20', nota_fiscal: '903', codigo_onu: 1203, q: '5000', v: '29500.5' },
      { d: '2026-11-28', nota_fiscal: '777', codigo_onu: 1202, q: '5000', v: '29500.5' },
    ]);
  });

  it('every fuel code of the spec enters (1170, 1202, 1203, 1223, 1863, 3475); a neighbour of each does not', async () => {
    const combustiveis = [1170, 1202, 1203, 1223, 1863, 3475];
    const vizinhos = combustiveis.map((c) => c + 1).filter((c) => !combustiveis.includes(c));
    const r = await importar('COMPRAS', { compra: [...combustiveis, ...vizinhos].map((onu, i) =>
      compra(2 + i, { codigo_onu: String(onu), data: '2026-05-10', nota_fiscal: `ONU-${onu}` })) });
    expect(r.merge.tabelas).toMatchObject({ bi_compra: { efetivas: combustiveis.length }, filtradas_onu: { linhas: vizinhos.length } });
    expect((await rows(`select codigo_onu from bi_compra where nota_fiscal like 'ONU-%' order by codigo_onu`)).map((x) => x.codigo_onu)).toEqual(combustiveis);
  });

  it('a supplier named on an earlier row keeps that name when a later row leaves it empty (in one chunk and across chunks)', async () => {
    for (const [i, chunk] of [undefined, 1].entries()) {
      const cnpj = `9999999900019${i}`;
      await processarNovo(db.pool, `COMPRAS-${++n}`, 'COMPRAS', { chunk, staging: { compra: [
        compra(2, { cnpj_fornecedor: cnpj, fornecedor: 'Fornecedor Nove', data: `2026-0${7 - i}-05` }),
        compra(3, { cnpj_fornecedor: cnpj, fornecedor: null, data: `2026-0${7 - i}-06` }),
      ] } });
      expect(await rows(`select nome from bi_fornecedor where cnpj = $1`, [cnpj]), `chunk ${chunk}`).toEqual([{ nome: 'Fornecedor Nove' }]);
    }
  });
});

describe('COTA_FORNECEDOR', () => {
  const cota = (linha: number, aba: string, mes: number, quantidade: string, o: Row = {}): Row => ({ linha, aba, polo: 'Paulínia', produto: 'Diesel R5', mes, quantidade, ...o });

  it('each send replaces the whole matrix; Diesel R5 accepted; a send without rows deletes nothing and warns', async () => {
    const a = await importar('COTA_FORNECEDOR', { cota: [
      cota(2, '2026', 1, '100'), cota(2, '2026', 2, '110'), cota(3, '2026', 1, '50', { produto: 'Gasolina' }), cota(2, '2025', 12, '90'),
    ] });
    expect(a.merge).toMatchObject({ linhasEnviadas: 4, linhasEfetivas: 4 });
    const b = await importar('COTA_FORNECEDOR', { cota: [cota(2, '2027', 3, '70')] });
    expect(b.merge).toMatchObject({ linhasEfetivas: 1, linhasRemovidas: 4 });
    expect(await rows(`select ano, polo, produto, mes, quantidade::text q from bi_cota_fornecedor`)).toEqual([
      { ano: 2027, polo: 'Paulínia', produto: 'Diesel R5', mes: 3, q: '70' },
    ]);
    const c = await importar('COTA_FORNECEDOR', { cota: [] });
    expect(c.desfecho.status).toBe('SUCESSO');
    expect(c.merge).toMatchObject({ linhasEnviadas: 0, linhasRemovidas: 0 });
    expect(c.merge.avisos.map((x) => x.motivo)).toEqual(['envio vazio: nada removido de bi_cota_fornecedor']);
    expect(await rows(`select count(*)::int n from bi_cota_fornecedor`)).toEqual([{ n: 1 }]);
  });
});

describe('FLUXO_PAGAR_RECEBER', () => {
  const tit = (linha: number, o: Row = {}): Row => ({
    linha, tipo: 'RECEBER', documento: `D${linha}`, parcela: '1', pessoa: 'Cliente', cnpj_cpf: '12345678000190', emissao: '2026-10-01',
    vencimento: '2026-11-20', valor: '100', saldo: '100', centro_custo: 'CC1', descricao_centro_custo: 'Vendas', ...o,
  });
  const fluxo = (posicao: string | null, titulo: Row[], extra: Record<string, unknown> = {}) =>
    importar('FLUXO_PAGAR_RECEBER', { titulo }, { ...(posicao ? { posicao } : {}), total_receber_grupo: null, grupo_problema: 'aba Grupo sem a linha Total', ...extra });
  const titulos = () => rows(`select to_char(posicao, 'YYYY-MM-DD') p, tipo, documento, parcela, saldo::text s, atual from bi_titulo order by posicao, tipo, documento`);
  const resumo = async (id: string) => rows(`select tipo, to_char(posicao, 'YYYY-MM-DD') p, atual, titulos, total::text, titulos_vencidos, vencido::text
    from xls_fluxo_resumo($1)`, [id]);

  it('history per position; only the newest is atual; a re-import replaces its position; an older one enters the history only', async () => {
    const a = await fluxo('2026-11-15', [tit(2), tit(3, { tipo: 'PAGAR', vencimento: '2026-11-01', saldo: '40' }), tit(4, { vencimento: '2026-11-10', saldo: '0' })],
      { total_receber_grupo: '100' });
    expect(a.merge.avisos).toEqual([]);
    expect(await resumo(a.id)).toEqual([
      { tipo: 'PAGAR', p: '2026-11-15', atual: true, titulos: 1, total: '40', titulos_vencidos: 1, vencido: '40' },
      { tipo: 'RECEBER', p: '2026-11-15', atual: true, titulos: 2, total: '100', titulos_vencidos: 0, vencido: '0' },
    ]);
    expect(await rows(`select codigo, descricao from bi_centro_custo`)).toEqual([{ codigo: 'CC1', descricao: 'Vendas' }]);
    // a newer position becomes current; the older stays as history
    const b = await fluxo('2026-11-22', [tit(2, { saldo: '60' }), tit(5, { tipo: 'PAGAR', documento: 'X', vencimento: '2026-11-21', saldo: '10' })]);
    expect(b.merge.tabelas).toMatchObject({ fluxo: { posicao: '2026-11-22', atual: true, deixaram_de_ser_atuais: 3 } });
    expect(b.merge.avisos.map((x) => x.motivo)).toEqual(['aba Grupo sem a linha Total: o total a receber não foi conferido']);
    // re-import of 15/11 replaces that position and leaves it out of the current one
    const c = await fluxo('2026-11-15', [tit(2, { saldo: '90' })]);
    expect(c.merge).toMatchObject({ linhasEfetivas: 1, linhasRemovidas: 2 });
    expect(c.merge.avisos.map((x) => x.motivo)).toContain('posição 15/11/2026 anterior à atual (22/11/2026): entra no histórico sem se tornar a atual');
    // an older position never imported before: history only
    await fluxo('2026-11-01', [tit(2, { saldo: '5' })]);
    expect(await titulos()).toEqual([
      { p: '2026-11-01', tipo: 'RECEBER', documento: 'D2', parcela: '1', s: '5', atual: false },
      { p: '2026-11-15', tipo: 'RECEBER', documento: 'D2', parcela: '1', s: '90', atual: false },
      { p: '2026-11-22', tipo: 'PAGAR', documento: 'X', parcela: '1', s: '10', atual: true },
      { p: '2026-11-22', tipo: 'RECEBER', documento: 'D2', parcela: '1', s: '60', atual: true },
    ]);
    expect(await resumo(b.id)).toEqual([
      { tipo: 'PAGAR', p: '2026-11-22', atual: true, titulos: 1, total: '10', titulos_vencidos: 1, vencido: '10' },
      { tipo: 'RECEBER', p: '2026-11-22', atual: true, titulos: 1, total: '60', titulos_vencidos: 1, vencido: '60' },
    ]);
    // the partial index serves the sync stream's `where atual`
    const plan = await rows(`explain (costs off) select * from bi_titulo where atual and tipo = 'RECEBER'`);
    expect(JSON.stringify(plan)).toMatch(/bi_titulo_atual_idx|Seq Scan/);
    const idx = await rows(`select pg_get_indexdef('bi_titulo_atual_idx'::regclass) d`);
    expect(idx[0].d).toContain('WHERE atual');
  });

  it('receivable sum of Saldo against the Grupo Total: more than 0,01 apart → written, with a warning naming both figures', async () => {
    const a = await fluxo('2026-12-01', [tit(2, { saldo: '1234.56' }), tit(3, { saldo: '1000' }), tit(4, { tipo: 'PAGAR', saldo: '999' })],
      { total_receber_grupo: '2234.57' });
    expect(a.merge.avisos).toEqual([]); // 0,01 apart: no warning
    const b = await fluxo('2026-12-01', [tit(2, { saldo: '1234.56' }), tit(3, { saldo: '1000' })], { total_receber_grupo: '2234.58' });
    expect(b.merge.avisos.map((x) => x.motivo)).toEqual(['total a receber difere da aba Grupo: soma do Saldo 2.234,56, Total da aba Grupo 2.234,58']);
    expect(b.desfecho.status).toBe('SUCESSO');
    expect(await rows(`select count(*)::int n from bi_titulo where posicao = '2026-12-01'`)).toEqual([{ n: 2 }]);
    const c = await fluxo('2026-12-01', [tit(2, { saldo: '1' })], { total_receber_grupo: undefined, grupo_problema: undefined });
    expect(c.merge.avisos.map((x) => x.motivo)).toEqual(['aba Grupo ausente: o total a receber não foi conferido']);
  });

  it('total refusal: no position date, or any invalid row → XL422, nothing written, every invalid row listed', async () => {
    const antes = await rows('select count(*)::int n from bi_titulo');
    await expect(fluxo(null, [tit(2)])).rejects.toMatchObject({ code: 'XL422', message: expect.stringContaining('data de posição') });
    await completeJobs(db.pool, 'w-teste');
    const err = await fluxo('2027-01-10', [tit(2), tit(3), tit(4)], {
      linhas_rejeitadas: [
        { linha: 9, campo: 'saldo', valor: 'abc', mensagem: "linha 9: saldo 'abc' inválido" },
        { linha: 5, campo: 'vencimento', valor: '31/02/2026', mensagem: "linha 5: vencimento '31/02/2026' inválido" },
      ],
    }).catch((e) => e);
    await completeJobs(db.pool, 'w-teste');
    expect(err).toMatchObject({ code: 'XL422' });
    expect(err.message).toBe("FLUXO_PAGAR_RECEBER recusado, nada gravado: 2 linha(s) inválida(s): linha 5: vencimento '31/02/2026' inválido; linha 9: saldo 'abc' inválido");
    expect(await rows('select count(*)::int n from bi_titulo')).toEqual(antes);
    expect(await rows(`select count(*)::int n from bi_titulo where posicao = '2027-01-10'`)).toEqual([{ n: 0 }]);
  });

  it('simultaneous imports are serialised: the second waits for the first to commit, and atual ends on the newest', async () => {
    const { receberAvulso, iniciar, importar: importarTx } = await import('./helpers.js');
    const rA = await receberAvulso(db.pool, `fluxo-conc-a-${++n}`);
    const rB = await receberAvulso(db.pool, `fluxo-conc-b-${++n}`);
    await iniciar(db.pool, rA.processamentoId!, 'w-a', 'FLUXO_PAGAR_RECEBER');
    await iniciar(db.pool, rB.processamentoId!, 'w-b', 'FLUXO_PAGAR_RECEBER');
    // A holds the lock: it merges inside an open transaction that we keep open
    const holder = await db.pool.connect();
    await holder.query('begin');
    await holder.query('select app.xls_travar(array[$1])', ['bi_titulo']);
    const pidHolder = (await holder.query('select pg_backend_pid() p')).rows[0].p;
    const b = importarTx(db.pool, rB.processamentoId!, 'w-b', 'FLUXO_PAGAR_RECEBER', {
      staging: { titulo: [tit(2, { documento: 'B' })] }, meta: { posicao: '2027-03-01', total_receber_grupo: '100' } });
    // B is waiting on the advisory lock held by the other transaction
    let waiting = 0;
    for (let i = 0; i < 100 && waiting === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = (await rows(`select count(*)::int n from pg_locks l where l.locktype = 'advisory' and not l.granted
        and exists (select from pg_locks h where h.pid = $1 and h.locktype = 'advisory' and h.granted and h.objid = l.objid)`, [pidHolder]))[0].n;
    }
    expect(waiting).toBe(1);
    expect(await rows(`select count(*)::int n from bi_titulo where posicao = '2027-03-01'`)).toEqual([{ n: 0 }]);
    // A merges a newer position in the lock-holding transaction, then commits
    const a = importarTx(db.pool, rA.processamentoId!, 'w-a', 'FLUXO_PAGAR_RECEBER', {
      staging: { titulo: [tit(2, { documento: 'A' })] }, meta: { posicao: '2027-03-05', total_receber_grupo: '100' } });
    await new Promise((r) => setTimeout(r, 200));
    await holder.query('commit');
    holder.release();
    const [ra, rb] = await Promise.all([a, b]);
    await completeJobs(db.pool, 'w-a');
    await completeJobs(db.pool, 'w-b');
    expect([ra.desfecho.status, rb.desfecho.status]).toEqual(['SUCESSO', 'SUCESSO']);
    expect(await rows(`select to_char(posicao, 'YYYY-MM-DD') p, documento, atual from bi_titulo where posicao >= '2027-03-01' order by posicao`)).toEqual([
      { p: '2027-03-01', documento: 'B', atual: false },
      { p: '2027-03-05', documento: 'A', atual: true },
    ]);
    expect(await rows(`select count(*)::int n from bi_titulo where atual and posicao <> '2027-03-05'`)).toEqual([{ n: 0 }]);
  });
});

describe('contracts and refusals', () => {
  it('the TS list of types is the SQL one, and each reader stages exactly the columns of xls_staging_definicao', async () => {
    const { TIPOS_PLANILHA } = await import('../../src/xlsx/types.js');
    const { READERS } = await import('../../src/xlsx/readers/index.js');
    const { snakeCase } = await import('../../src/xlsx/headers.js');
    for (const t of TIPOS_PLANILHA) expect((await rows('select xls_tipo_valido($1) ok', [t]))[0].ok).toBe(true);
    expect((await rows(`select xls_tipo_valido('OUTRO') ok`))[0].ok).toBe(false);
    for (const t of TIPOS_PLANILHA) {
      const spec = READERS[t]!;
      const tables = [...(spec.tabs ?? []), ...(spec.anySheet ? [spec.anySheet] : [])];
      const doLeitor = tables.map((tb) => {
        const unpivoted = new Set(tb.unpivot?.fields.map((f) => f.field) ?? []);
        const fields = tb.columns.map((c) => c.field ?? snakeCase(c.header)).filter((f) => !unpivoted.has(f));
        if (tb.sheetField) fields.push(tb.sheetField);
        if (tb.unpivot) fields.push(tb.unpivot.key, tb.unpivot.value);
        return { staging: tb.staging, colunas: [...fields].sort() };
      }).sort((a, b) => a.staging.localeCompare(b.staging));
      const doSql = (await rows(`select staging, array_agg(coluna order by coluna) colunas from xls_staging_definicao($1)
        where coluna <> 'linha' group by staging order by staging`, [t])).map((r) => ({ staging: r.staging, colunas: r.colunas }));
      expect({ tipo: t, staging: doLeitor }).toEqual({ tipo: t, staging: doSql });
    }
  });

  it('xls_fluxo_resumo refusals: unknown processing XL404, another type XL422', async () => {
    await expect(db.pool.query(`select * from xls_fluxo_resumo('00000000-0000-4000-8000-000000000000')`)).rejects.toMatchObject({ code: 'XL404' });
    const a = await importar('TRR', { trr: [] });
    await expect(db.pool.query('select * from xls_fluxo_resumo($1)', [a.id])).rejects.toMatchObject({ code: 'XL422' });
  });
});

describe('in chunks (merged while the reader reads on): the hooks see every chunk', () => {
  const compra = (linha: number, o: Row = {}): Row => ({
    linha, data: '2027-05-05', cnpj_fornecedor: '77777777000177', fornecedor: 'Chunk', nota_fiscal: String(5000 + linha),
    produto: 'Diesel S10', codigo_onu: '1202', quantidade: '1', valor_total: '2', ...o,
  });
  it('COMPRAS: filtered rows of every chunk counted, suppliers of a later chunk created before its FK check', async () => {
    const r = await processarNovo(db.pool, `compras-chunks-${++n}`, 'COMPRAS', { chunk: 2, staging: { compra: [
      compra(2), compra(3, { codigo_onu: '9999' }), compra(4, { cnpj_fornecedor: '88888888000188', fornecedor: 'Outro' }),
      compra(5, { codigo_onu: null }), compra(6),
    ] } });
    expect(r.merge).toMatchObject({ linhasEnviadas: 5, linhasEfetivas: 3 });
    expect(r.merge.avisos).toEqual([expect.objectContaining({ categoria: 'filtrada', quantidade: 2,
      linhas: [{ aba: 'Compras', linha: 3, valor: '9999' }, { aba: 'Compras', linha: 5, valor: null }] })]);
    expect(await rows(`select cnpj, nome from bi_fornecedor where cnpj in ('77777777000177', '88888888000188') order by cnpj`)).toEqual([
      { cnpj: '77777777000177', nome: 'Chunk' }, { cnpj: '88888888000188', nome: 'Outro' },
    ]);
  });

  it('FLUXO_PAGAR_RECEBER: the newest position is atual on every row, merged in several chunks and re-imported (in chunks too)', async () => {
    const t = (linha: number, saldo: string): Row => ({ linha, tipo: 'RECEBER', documento: `A${linha}`, parcela: '1', pessoa: null, cnpj_cpf: null,
      emissao: null, vencimento: '2028-01-10', valor: null, saldo, centro_custo: null, descricao_centro_custo: null });
    const posicao = '2028-01-31';
    const atuais = () => rows(`select documento, saldo::text s, atual from bi_titulo where posicao = $1 order by documento`, [posicao]);
    for (const saldo of ['10', '11']) { // the newest position, then its re-import (the current one) with every balance changed
      await processarNovo(db.pool, `fluxo-atual-${++n}`, 'FLUXO_PAGAR_RECEBER', { chunk: 2,
        staging: { titulo: [2, 3, 4, 5, 6].map((l) => t(l, saldo)) }, meta: { posicao, total_receber_grupo: String(5 * Number(saldo)) } });
      expect(await atuais(), `saldo ${saldo}`).toEqual(['A2', 'A3', 'A4', 'A5', 'A6'].map((documento) => ({ documento, s: saldo, atual: true })));
      expect(await rows(`select distinct to_char(posicao, 'YYYY-MM-DD') p from bi_titulo where atual`)).toEqual([{ p: posicao }]);
    }
  });

  it('FLUXO_PAGAR_RECEBER: the Grupo sum covers every chunk; a rejected row refuses the whole file after chunks were written', async () => {
    const t = (linha: number, saldo: string): Row => ({ linha, tipo: 'RECEBER', documento: `K${linha}`, parcela: null, pessoa: null, cnpj_cpf: null,
      emissao: null, vencimento: '2030-06-01', valor: null, saldo, centro_custo: null, descricao_centro_custo: null });
    const ok = await processarNovo(db.pool, `fluxo-chunks-${++n}`, 'FLUXO_PAGAR_RECEBER', { chunk: 2,
      staging: { titulo: [t(2, '10'), t(3, '20'), t(4, '30'), t(5, '40'), t(6, '50')] }, meta: { posicao: '2030-06-10', total_receber_grupo: '150' } });
    expect(ok.merge).toMatchObject({ linhasEnviadas: 5, linhasEfetivas: 5 });
    expect(ok.merge.avisos).toEqual([]);
    expect(await rows(`select documento, parcela from bi_titulo where posicao = '2030-06-10' order by documento`)).toEqual(
      ['K2', 'K3', 'K4', 'K5', 'K6'].map((documento) => ({ documento, parcela: '' })));
    const err = await processarNovo(db.pool, `fluxo-chunks-${++n}`, 'FLUXO_PAGAR_RECEBER', { chunk: 2,
      staging: { titulo: [t(2, '1'), t(3, '2'), t(4, '3')] },
      meta: { posicao: '2030-06-11', total_receber_grupo: '6', linhas_rejeitadas: [{ linha: 7, campo: 'saldo', valor: 'x', mensagem: "linha 7: saldo 'x' inválido", aba: 'SemQuebras', staging: 'titulo' }] } })
      .catch((e) => e);
    await completeJobs(db.pool, 'w-teste');
    expect(err).toMatchObject({ code: 'XL422', message: "FLUXO_PAGAR_RECEBER recusado, nada gravado: 1 linha(s) inválida(s): linha 7: saldo 'x' inválido" });
    expect(await rows(`select count(*)::int n from bi_titulo where posicao = '2030-06-11'`)).toEqual([{ n: 0 }]);
    expect(await rows(`select distinct to_char(posicao, 'YYYY-MM-DD') p from bi_titulo where atual`)).toEqual([{ p: '2030-06-10' }]);
  });
});
