/**
 * The readers of the eight types besides RELATORIO18 and META, each fixture written by two writers (exceljs,
 * and our hand-made XML with inline strings, no cell references, formulas with cached
 * values and 1904 dates): detection, then the staged values, row by row.
 */
import { describe, expect, it } from 'vitest';
import { type StagingRow, type TipoPlanilha, WorkbookError, detectType, openWorkbook, readRows } from '../../src/xlsx/index.js';
import { ESCRITORES, H, escrever, fluxoSheets, tabela, titulo, utc, type TSheet } from '../fixtures/tipos.js';

async function ler(sheets: TSheet[], escritor: (typeof ESCRITORES)[number], tipo?: TipoPlanilha) {
  const wb = await openWorkbook(await escrever(sheets, escritor));
  const detectado = await detectType(wb);
  const r = readRows(wb, tipo ?? detectado!);
  const meta = await r.meta();
  const rows: StagingRow[] = [];
  for await (const row of r.rows()) rows.push(row);
  return { detectado, meta, rows, errors: r.errors(), rejected: r.rejectedRows() };
}

const v = (rows: StagingRow[]) => rows.map((r) => ({ linha: r.linha, ...r.values }));

describe.each(ESCRITORES)('written by %s', (escritor) => {
  it('MARGEM_CONSOLIDADA: competência forms, Brazilian numbers, formulas by their cached value, Total row skipped', async () => {
    const r = await ler([{ name: 'Margem', rows: tabela(H.MARGEM_CONSOLIDADA, [
      ['nov/26', 1, '000123', 1000, '5.000,50', 4000, { f: 'E4-F4', v: 1000.5 }, '1,0005'],
      ['11/2026', '02', 'P2', null, null, null, '(10,00)', null],
      [utc(2026, 10, 15), 'X', 'P3', 'abc', 1, 1, 1, 1],
    ], { total: true }) }], escritor);
    expect(r.detectado).toBe('MARGEM_CONSOLIDADA');
    expect(v(r.rows)).toEqual([
      { linha: 4, competencia: '2026-11-01', filial: '1', produto: '000123', volume: '1000', receita_liquida: '5000.5', cmv: '4000', margem_total: '1000.5', margem_por_litro: '1.0005' },
      { linha: 5, competencia: '2026-11-01', filial: '02', produto: 'P2', volume: null, receita_liquida: null, cmv: null, margem_total: '-10', margem_por_litro: null },
    ]);
    expect(r.errors.map((e) => e.mensagem)).toEqual(["linha 6: volume 'abc' inválido"]);
  });

  it('MARGEM_DIA: optional columns absent are null; an empty Prazo is null, never 0', async () => {
    const sem = await ler([{ name: 'Dia', rows: tabela(H.MARGEM_DIA, [[utc(2026, 11, 10), '01', 'C1', 'Posto Um', 'V1', 'P1', 100, 6.1, 5.5, 60]]) }], escritor);
    expect(sem.detectado).toBe('MARGEM_DIA');
    expect(v(sem.rows)).toEqual([{ linha: 4, data: '2026-11-10', filial: '01', cliente: 'C1', nome_cliente: 'Posto Um', vendedor: 'V1', produto: 'P1',
      volume: '100', preco_medio: '6.1', custo_medio: '5.5', margem: '60', cnpj_cpf: null, classe: null, municipio: null, uf: null, prazo: null }]);
    const com = await ler([{ name: 'Dia', rows: tabela([...H.MARGEM_DIA, ...H.MARGEM_DIA_OPCIONAIS], [
      [utc(2026, 11, 10), '01', 'C1', 'Posto Um', 'V1', 'P1', 100, 6.1, 5.5, 60, '12.345.678/0001-90', 'A', 'Sinop', 'mt', null],
      [utc(2026, 11, 10), '01', 'C2', 'Posto Dois', 'V1', 'P1', 100, 6.1, 5.5, 60, null, null, null, null, 28],
    ]) }], escritor);
    expect(com.rows.map(({ values: x }) => [x.cliente, x.cnpj_cpf, x.classe, x.municipio, x.uf, x.prazo])).toEqual([
      ['C1', '12345678000190', 'A', 'Sinop', 'MT', null],
      ['C2', null, null, null, null, '28'],
    ]);
  });

  it('META_CARTEIRA', async () => {
    const r = await ler([{ name: 'Carteira', rows: tabela(H.META_CARTEIRA, [['dez/2026', 1001, 'P1', '1.500,00'], [null, 1002, 'P1', 1]]) }], escritor);
    expect(r.detectado).toBe('META_CARTEIRA');
    expect(v(r.rows)).toEqual([{ linha: 4, competencia: '2026-12-01', cliente: '1001', produto: 'P1', meta_volume: '1500' }]);
    expect(r.errors.map((e) => e.mensagem)).toEqual(["linha 5: competencia '' inválido"]);
  });

  it('POSTOS wins over TRR when both headers are present; CNPJ and CEP as digits', async () => {
    const r = await ler([{ name: 'Cadastro', rows: tabela([...H.POSTOS, 'Qualificação da Empresa'], [
      ['12.345.678/0001-90', 'Auto Posto Ltda', 'Posto Um', 'Ipiranga', 'Av. Brasil, 1', 'Centro', 'Cuiabá', 'MT', '78.005-100', 'Posto revendedor', 'x'],
    ]) }], escritor);
    expect(r.detectado).toBe('POSTOS');
    expect(v(r.rows)).toEqual([{ linha: 4, cnpj: '12345678000190', razao_social: 'Auto Posto Ltda', nome_fantasia: 'Posto Um', bandeira: 'Ipiranga',
      endereco: 'Av. Brasil, 1', bairro: 'Centro', municipio: 'Cuiabá', uf: 'MT', cep: '78005100', tipo_instalacao: 'Posto revendedor' }]);
  });

  it('TRR: either of its two headers is enough (accents optional)', async () => {
    const so = (header: string) => tabela(['CNPJ', 'Razao Social', 'Municipio', 'UF', header], [['98.765.432/0001-10', 'TRR Ltda', 'Sinop', 'MT', 'TRR']]);
    const a = await ler([{ name: 'TRR', rows: so('Qualificacao da Empresa') }], escritor);
    expect(a.detectado).toBe('TRR');
    expect(v(a.rows)).toEqual([{ linha: 4, cnpj: '98765432000110', razao_social: 'TRR Ltda', municipio: 'Sinop', uf: 'MT', tipo_instalacao: null, qualificacao_empresa: 'TRR', capacidade_m3: null }]);
    const b = await ler([{ name: 'TRR', rows: so('Tipo de Instalação') }], escritor);
    expect(b.detectado).toBe('TRR');
    expect(v(b.rows)[0]).toMatchObject({ tipo_instalacao: 'TRR', qualificacao_empresa: null });
    // read as TRR without either header: the reader names what is missing
    await expect(ler([{ name: 'TRR', rows: tabela(['CNPJ', 'Razão Social', 'Município', 'UF'], [['98765432000110', 'x', 'y', 'MT']]) }], escritor, 'TRR'))
      .rejects.toThrow(/Tipo de Instalação ou Qualificação da Empresa/);
  });

  it('COMPRAS: the tab is found whatever its case (`COMPRAS`); every row is staged with its ONU code', async () => {
    const r = await ler([{ name: 'Resumo', rows: [['nada']] }, { name: 'COMPRAS', rows: tabela(H.COMPRAS, [
      [utc(2026, 11, 5), '55.555.555/0001-55', 'Distribuidora', 9001, 'Diesel S10', 1202, '5.000,000', '29.500,50'],
      [utc(2026, 11, 6), '55.555.555/0001-55', 'Distribuidora', 9002, 'Ácido', 'UN1830', 1, 1],
    ]) }], escritor);
    expect(r.detectado).toBe('COMPRAS');
    expect(v(r.rows)).toEqual([
      { linha: 4, data: '2026-11-05', cnpj_fornecedor: '55555555000155', fornecedor: 'Distribuidora', nota_fiscal: '9001', produto: 'Diesel S10', codigo_onu: '1202', quantidade: '5000', valor_total: '29500.5' },
      { linha: 5, data: '2026-11-06', cnpj_fornecedor: '55555555000155', fornecedor: 'Distribuidora', nota_fiscal: '9002', produto: 'Ácido', codigo_onu: 'UN1830', quantidade: '1', valor_total: '1' },
    ]);
  });

  it('COTA_FORNECEDOR: one tab per year (JAN…DEZ or 01…12), other tabs ignored, unpivoted, Diesel R5 accepted', async () => {
    const r = await ler([
      { name: 'Resumo', rows: tabela(H.COTA, [['Outro', 'Ignorado', 1]]) },
      { name: '2026', rows: tabela(H.COTA, [['Paulínia', ' Diesel R5 ', 100, null, '1.250,5', null, null, null, null, null, null, null, null, 12]], { total: true }) },
      { name: '2027 ', rows: tabela(H.COTA_NUMEROS, [['Betim', 'Gasolina C', null, 7]]) },
      { name: 'Notas', rows: [['POLO', 'PRODUTO']] },
    ], escritor);
    expect(r.detectado).toBe('COTA_FORNECEDOR');
    expect(r.rows.map((x) => [x.linha, x.values.aba, x.values.polo, x.values.produto, x.values.mes, x.values.quantidade])).toEqual([
      [4, '2026', 'Paulínia', 'Diesel R5', '1', '100'],
      [4, '2026', 'Paulínia', 'Diesel R5', '3', '1250.5'],
      [4, '2026', 'Paulínia', 'Diesel R5', '12', '12'],
      [4, '2027', 'Betim', 'Gasolina C', '2', '7'],
    ]);
  });

  it('FLUXO_PAGAR_RECEBER: position date in the same cell; `semquebras` tab; Grupo total; titles with P/R', async () => {
    const r = await ler(fluxoSheets({
      posicao: '15/11/2026', semQuebras: 'semquebras', totalReceber: { f: 'SUM(C2:C3)', v: 1234.56 },
      titulos: [titulo(), titulo({ tipo: 'P', documento: 77, parcela: 2, cnpj: '123.456.789-09', saldo: '1.234,56', cc: null, ccDescricao: null })],
    }), escritor);
    expect(r.detectado).toBe('FLUXO_PAGAR_RECEBER');
    expect(r.meta).toEqual({ posicao: '2026-11-15', total_receber_grupo: '1234.56', grupo_problema: null });
    expect(v(r.rows)).toEqual([
      { linha: 2, tipo: 'RECEBER', documento: 'NF-1', parcela: '1', pessoa: 'Cliente Exemplo', cnpj_cpf: '12345678000190', emissao: '2026-10-01',
        vencimento: '2026-11-20', valor: '100', saldo: '100', centro_custo: '101', descricao_centro_custo: 'Vendas Diesel' },
      { linha: 3, tipo: 'PAGAR', documento: '77', parcela: '2', pessoa: 'Cliente Exemplo', cnpj_cpf: '12345678909', emissao: '2026-10-01',
        vencimento: '2026-11-20', valor: '100', saldo: '1234.56', centro_custo: null, descricao_centro_custo: null },
    ]);
  });

  it('FLUXO_PAGAR_RECEBER: position date in the next non-empty cell to the right (a date cell), accent optional; invalid rows reported', async () => {
    const r = await ler(fluxoSheets({
      fluxo: [['Relatório'], ['Empresa', 'X'], ['POSICAO:', null, utc(2026, 11, 22)]],
      titulos: [titulo({ saldo: 'abc' }), titulo({ tipo: 'Outro', vencimento: null })], totalReceber: null,
    }), escritor);
    expect(r.meta).toEqual({ posicao: '2026-11-22' });
    expect(r.rows).toEqual([]);
    expect(r.errors.map((e) => e.mensagem)).toEqual(["linha 2: saldo 'abc' inválido", "linha 3: tipo 'Outro' inválido", "linha 3: vencimento '' inválido"]);
  });

  it('FLUXO_PAGAR_RECEBER refusals: no position date, no SemQuebras tab', async () => {
    await expect(ler(fluxoSheets({ fluxo: [['Posição'], ['sem data']], titulos: [titulo()] }), escritor))
      .rejects.toThrow(new WorkbookError("FLUXO_PAGAR_RECEBER: aba 'Fluxo Pagar-Receber': data de posição não encontrada nas 10 primeiras linhas (uma célula com 'Posição' seguida de uma data)"));
    await expect(ler(fluxoSheets({ titulos: [], semQuebras: null }), escritor))
      .rejects.toThrow(new WorkbookError("FLUXO_PAGAR_RECEBER: aba 'SemQuebras' ausente"));
    // a position date below row 10 is not looked for
    const tarde: TCell[][] = [...Array(10).fill(['-']), ['Posição em 01/12/2026']];
    await expect(ler(fluxoSheets({ fluxo: tarde, titulos: [titulo()] }), escritor)).rejects.toThrow(/data de posição não encontrada/);
  });
});

type TCell = import('../fixtures/tipos.js').TCell;
