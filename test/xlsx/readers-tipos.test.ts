/**
 * The readers of the ten types, each fixture written by several writers: exceljs, our
 * hand-made XML (inline strings, no cell references, formulas with cached values, 1904
 * dates), and the legacy formats — LibreOffice's own `.xls` and `.ods` of those two `.xlsx`
 * (committed: test/fixtures/legacy.ts), SheetJS's `.xls` (BIFF8) and `.ods`: detection, then
 * the staged values, row by row, the same for every format.
 */
import { describe, expect, it } from 'vitest';
import { FATURAMENTO_HEADERS, MOVIMENTO_HEADERS } from '../fixtures/builder.js';
import { type StagingRow, type TipoPlanilha, WorkbookError, detectType, openWorkbook, readRows } from '../../src/xlsx/index.js';
import { ESCRITORES, ESCRITORES_LEGADOS, H, escrever, margemConsolidadaExemplo, fluxoSheets, tabela, titulo, utc, type TSheet } from '../fixtures/tipos.js';

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

describe.each([...ESCRITORES, ...ESCRITORES_LEGADOS])('written by %s', (escritor) => {
  it('RELATORIO18: period from tab 10, billing then movement rows; dates, numbers, codes, empty cells as NULL', async () => {
    const r = await ler([
      { name: '10', rows: [['Relatório 18', null, null, 'Período', utc(2026, 11, 1), '30/11/2026']] },
      { name: '20', rows: [
        ['Faturamento do mês'],
        [...FATURAMENTO_HEADERS],
        [1, 100000, '1', 1, utc(2026, 11, 2), 1001, 'Cliente 1001 Ltda', 11, 'Vendedor 11', '000101', 'Diesel S10', 1250.5, 5.81, { f: 'L3*M3', v: 7265.41 }, 'ABC1D01', '2020/2021', 'VW 24.280'],
        [2, 100001, '1', 2, utc(2026, 11, 30), 1002, 'Posto Dois', 12, 'Vendedor 12', '000102', 'Gasolina C', '1.000,25', '6,10', 6101.53, null, null, null],
        ['Total', null, null, null, null, null, null, null, null, null, null, 2250.75],
      ] },
      { name: '30', rows: [
        [...MOVIMENTO_HEADERS],
        [1, utc(2026, 11, 3), 500000, '3.1.01.001', 'Conta 1', 'Lançamento ção', 1234.56, null, 'XYZ1234', '2019/2020'],
        [3, '04/11/2026', 500001, '3.1.01.002', 'Conta 2', 'Estorno', null, '987,65', null, null],
      ] },
    ], escritor);
    expect(r.detectado).toBe('RELATORIO18');
    expect(r.meta).toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    expect(v(r.rows)).toEqual([
      { linha: 3, filial: '1', nota_fiscal: '100000', serie: '1', item: '1', emissao: '2026-11-02', cliente: '1001', nome_cliente: 'Cliente 1001 Ltda',
        vendedor: '11', nome_vendedor: 'Vendedor 11', produto: '000101', descricao_produto: 'Diesel S10', quantidade: '1250.5', valor_unitario: '5.81',
        valor_total: '7265.41', placa: 'ABC1D01', ano_veiculo: '2020/2021', modelo_veiculo: 'VW 24.280' },
      { linha: 4, filial: '2', nota_fiscal: '100001', serie: '1', item: '2', emissao: '2026-11-30', cliente: '1002', nome_cliente: 'Posto Dois',
        vendedor: '12', nome_vendedor: 'Vendedor 12', produto: '000102', descricao_produto: 'Gasolina C', quantidade: '1000.25', valor_unitario: '6.1',
        valor_total: '6101.53', placa: null, ano_veiculo: null, modelo_veiculo: null },
      { linha: 2, filial: '1', data: '2026-11-03', lancamento: '500000', conta: '3.1.01.001', descricao_conta: 'Conta 1', historico: 'Lançamento ção',
        debito: '1234.56', credito: null, placa: 'XYZ1234', ano_veiculo: '2019/2020' },
      { linha: 3, filial: '3', data: '2026-11-04', lancamento: '500001', conta: '3.1.01.002', descricao_conta: 'Conta 2', historico: 'Estorno',
        debito: null, credito: '987.65', placa: null, ano_veiculo: null },
    ]);
    const soma = r.rows.filter((x) => x.staging === 'faturamento').reduce((t, x) => t + Number(x.values.quantidade), 0);
    expect(soma).toBe(2250.75);
    expect(r.errors).toEqual([]);
  });

  it('META: every tab with its header; competência as a date cell or text; a bad row reported', async () => {
    const r = await ler([
      { name: 'Metas Norte', rows: tabela(['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'], [
        [utc(2026, 12, 15), 11, '000101', 15000, '1.234,5'],
        ['jan/27', 'V12', 'P2', null, null],
      ]) },
      { name: 'Metas Sul', rows: tabela(['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'], [['12/2026', 13, 'P3', 'x', 0]]) },
    ], escritor);
    expect(r.detectado).toBe('META');
    expect(v(r.rows)).toEqual([
      { linha: 4, competencia: '2026-12-01', vendedor: '11', produto: '000101', meta_volume: '15000', meta_margem: '1234.5' },
      { linha: 5, competencia: '2027-01-01', vendedor: 'V12', produto: 'P2', meta_volume: null, meta_margem: null },
    ]);
    expect(r.errors.map((e) => e.mensagem)).toEqual(["linha 4: meta_volume 'x' inválido"]);
  });

  it('MARGEM_CONSOLIDADA: competência forms, Brazilian numbers, formulas by their cached value, Total row skipped', async () => {
    const r = await ler(margemConsolidadaExemplo(), escritor);
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
