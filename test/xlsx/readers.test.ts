import { describe, expect, it } from 'vitest';
import {
  type StagingRow, type TipoPlanilha, type TypeReader, TIPOS_PLANILHA, WorkbookError, detectType, hasReader, openWorkbook, readRows,
} from '../../src/xlsx/index.js';
import {
  FATURAMENTO_FIELDS, MOVIMENTO_FIELDS, buildMeta, buildRelatorio18, buildWorkbook, generatedFaturamento,
} from '../fixtures/builder.js';
import { dateSerial, handmadeXlsx } from '../fixtures/handmade.js';

const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));

async function drain(r: TypeReader): Promise<StagingRow[]> {
  const out: StagingRow[] = [];
  for await (const row of r.rows()) out.push(row);
  return out;
}

async function reader(bytes: Buffer, tipo: 'RELATORIO18' | 'META' = 'RELATORIO18'): Promise<TypeReader> {
  return readRows(await openWorkbook(bytes), tipo);
}

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkbookError);
  return (err as Error).message;
}

const fat = (over: Record<string, unknown> = {}) => ({ ...generatedFaturamento(0), ...over });

describe('RELATORIO18', () => {
  it('period from tab 10 (E1/F1), billing rows from tab 20 then movement rows from tab 30, COPY-ready text', async () => {
    const r = await reader(await buildRelatorio18({ rows: 6 }));
    expect(await r.meta()).toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    const rows = await drain(r);
    expect(rows.map((x) => [x.staging, x.linha])).toEqual([
      ['faturamento', 2], ['faturamento', 3], ['faturamento', 4],
      ['movimento', 2], ['movimento', 3], ['movimento', 4],
    ]);
    expect(Object.keys(rows[0]!.values)).toEqual([...FATURAMENTO_FIELDS]);
    expect(Object.keys(rows[3]!.values)).toEqual([...MOVIMENTO_FIELDS]);
    expect(rows[1]!.values).toEqual({
      filial: '2', nota_fiscal: '100000', serie: '1', item: '2', emissao: '2026-11-02', cliente: '1001',
      nome_cliente: 'Cliente 1001 Ltda', vendedor: '11', nome_vendedor: 'Vendedor 11', produto: '000101',
      descricao_produto: 'Diesel S10 tipo 1', quantidade: '1250.5', valor_unitario: '5.81', valor_total: '7265.41',
      placa: 'ABC1D01', ano_veiculo: '2020/2021', modelo_veiculo: 'VW Constellation 24.280',
    });
    expect(rows[3]!.values).toEqual({
      filial: '1', data: '2026-11-01', lancamento: '500000', conta: '3.1.01.001', descricao_conta: 'Conta 1',
      historico: 'Lançamento 500000 ref. NF 100000', debito: '1234.56', credito: null, placa: 'XYZ1234', ano_veiculo: '2019/2020',
    });
    expect(r.errors()).toEqual([]);
    expect(r.rejectedRows()).toBe(0);
  });

  it('rows() calls meta() itself; meta() may be called again', async () => {
    const r = await reader(await buildRelatorio18({ rows: 2 }));
    expect(await drain(r)).toHaveLength(2);
    expect(await r.meta()).toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    expect(() => r.rows()).toThrow(/once/);
  });

  it('row numbers as Excel shows them: title rows above the header, empty and Total rows skipped', async () => {
    const bytes = await buildRelatorio18({
      titulo: [['Distribuidora Exemplo'], ['Relatório 18 — novembro'], []],
      faturamento: [fat({ nota_fiscal: 1 }), {}, fat({ nota_fiscal: 2 }), { filial: '  ' }, fat({ nota_fiscal: 3 })],
      total: true,
    });
    const rows = await drain(await reader(bytes));
    // header on row 4; data on 5..9; row 6 empty, row 8 blank text; Total on row 10
    expect(rows.filter((x) => x.staging === 'faturamento').map((x) => [x.linha, x.values.nota_fiscal])).toEqual([[5, '1'], [7, '2'], [9, '3']]);
  });

  it('skips a row whose first non-empty cell starts with Total, in any case and column', async () => {
    const bytes = await buildWorkbook([
      { name: '10', rows: [[null, null, null, null, utc(2026, 11, 1), utc(2026, 11, 30)]] },
      { name: '20', rows: [['Filial', 'Nota Fiscal', 'Série', 'Item', 'Emissão', 'Cliente', 'Nome Cliente', 'Vendedor', 'Nome Vendedor', 'Produto', 'Descrição Produto', 'Quantidade', 'Valor Unitário', 'Valor Total', 'Placa', 'Ano Veículo', 'Modelo Veículo'],
        [1, 10, '1', 1, utc(2026, 11, 2)], [null, null, 'TOTAL GERAL', null, null, null, null, null, null, null, null, 999], [' total filial 1'], [2, 11, '1', 1, utc(2026, 11, 3)]] },
      { name: '30', rows: [['Filial', 'Data', 'Lançamento', 'Conta', 'Descrição Conta', 'Histórico', 'Débito', 'Crédito', 'Placa', 'Ano Veículo']] },
    ]);
    expect((await drain(await reader(bytes))).map((x) => x.linha)).toEqual([2, 5]);
  });

  it('free column order, extra columns ignored, headers matched ignoring case, accents and spaces', async () => {
    const bytes = await buildRelatorio18({
      reverseColumns: true,
      extraColumn: true,
      headers: { emissao: 'EMISSAO', nota_fiscal: '  nota   fiscal ', serie: 'serie', valor_unitario: 'Valor unitario', lancamento: 'LANÇAMENTO' },
      rows: 4,
    });
    const rows = await drain(await reader(bytes));
    expect(rows).toHaveLength(4);
    expect(rows[0]!.values).toMatchObject({ filial: '1', nota_fiscal: '100000', emissao: '2026-11-01', valor_unitario: '5.8' });
    expect(rows[2]!.values).toMatchObject({ lancamento: '500000', historico: 'Lançamento 500000 ref. NF 100000' });
  });

  it('invalid rows are skipped and reported as linha <n>: <campo> \'<valor>\' inválido; the rest is read', async () => {
    const bytes = await buildRelatorio18({
      faturamento: [
        fat({ quantidade: 'abc' }),
        fat({ emissao: '31/02/2026', valor_total: '12,34,5' }),
        fat({ nota_fiscal: null }),
        fat({ quantidade: '1.234,56', valor_unitario: 'R$ 5,899', valor_total: '(7.282,90)', emissao: '15/11/2026' }),
        fat({ filial: { error: '#N/A' } as never }),
      ],
      movimento: [{ filial: 1, data: 46341, lancamento: 7, conta: '1.1', debito: '-', credito: null }],
    });
    const r = await reader(bytes);
    const rows = await drain(r);
    expect(rows.map((x) => [x.staging, x.linha])).toEqual([['faturamento', 5]]);
    expect(rows[0]!.values).toMatchObject({ quantidade: '1234.56', valor_unitario: '5.899', valor_total: '-7282.9', emissao: '2026-11-15' });
    expect(r.errors().map((e) => e.mensagem)).toEqual([
      "linha 2: quantidade 'abc' inválido",
      "linha 3: emissao '31/02/2026' inválido",
      "linha 3: valor_total '12,34,5' inválido",
      "linha 4: nota_fiscal '' inválido",
      "linha 6: filial '#N/A' inválido",
      "linha 2: debito '-' inválido",
    ]);
    // a rejected row carries its tab, its staging table and, on its first error, the fields that could be read
    expect(r.errors()[0]).toEqual({
      linha: 2, campo: 'quantidade', valor: 'abc', mensagem: "linha 2: quantidade 'abc' inválido", aba: '20', staging: 'faturamento',
      valores: expect.objectContaining({ filial: expect.any(String), nota_fiscal: expect.any(String), emissao: expect.any(String) }),
    });
    expect(r.errors()[0]!.valores).not.toHaveProperty('quantidade');
    expect(r.errors()[2]).not.toHaveProperty('valores'); // the second error of row 3
    expect(r.errors()[3]!.valores).not.toHaveProperty('nota_fiscal'); // row 4: its key cannot be read
    expect(r.errors()[5]).toMatchObject({ aba: '30', staging: 'movimento' });
    expect(r.rejectedRows()).toBe(5);
  });

  it('vehicle columns pass through as trimmed raw text (SQL judges them)', async () => {
    const rows = await drain(await reader(await buildRelatorio18({ faturamento: [fat({ placa: ' abc-1234 ', ano_veiculo: 2021, modelo_veiculo: '  ' })] })));
    expect(rows[0]!.values).toMatchObject({ placa: 'abc-1234', ano_veiculo: '2021', modelo_veiculo: null });
  });

  it.each([
    ['missing (tab 10 empty)', null, "RELATORIO18: aba '10': início do período ausente (célula E1); fim do período ausente (célula F1)"],
    ['invalid', { inicio: 'ontem', fim: utc(2026, 11, 30) }, "RELATORIO18: aba '10': início do período inválido na célula E1: 'ontem'"],
    ['end before start', { inicio: '30/11/2026', fim: '01/11/2026' }, 'RELATORIO18: aba \'10\': período inválido: o fim (2026-11-01) é anterior ao início (2026-11-30)'],
  ])('a %s period is a thrown error with a pt-BR reason', async (_, periodo, message) => {
    const r = await reader(await buildRelatorio18({ rows: 2, periodo: periodo as never }));
    expect(await failure(r.meta())).toBe(message);
    expect(await failure(drain(r))).toBe(message);
  });

  it('period given as text or as serial numbers', async () => {
    expect(await (await reader(await buildRelatorio18({ periodo: { inicio: '01/11/2026', fim: '2026-11-30' } }))).meta())
      .toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    expect(await (await reader(await buildRelatorio18({ periodo: { inicio: 46327, fim: 46356 } }))).meta())
      .toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
  });

  it('a tab without its header in the first 20 rows is a thrown error naming what is missing', async () => {
    const r = await reader(await buildRelatorio18({ rows: 2, headers: { emissao: 'Data de Emissão', serie: 'Serie NF' } }));
    expect(await failure(drain(r))).toBe("RELATORIO18: aba '20': cabeçalho não encontrado nas 20 primeiras linhas (a linha 1 parece o cabeçalho, mas faltam: Série, Emissão)");
    const deep = await reader(await buildRelatorio18({ rows: 2, titulo: Array.from({ length: 20 }, () => ['título']) }));
    expect(await failure(drain(deep))).toMatch(/^RELATORIO18: aba '20': cabeçalho não encontrado nas 20 primeiras linhas \(faltam: Filial, Nota Fiscal/);
  });

  it('a missing tab is a thrown error', async () => {
    const r = await reader(await buildRelatorio18({ rows: 2, omitTab: '30' }));
    expect(await failure(r.meta())).toBe("RELATORIO18: aba '30' ausente");
  });

  it('1904 workbooks: date cells and serials both right', async () => {
    const bytes = await buildRelatorio18({ date1904: true, faturamento: [fat({ emissao: utc(2026, 11, 15) }), fat({ emissao: dateSerial(utc(2026, 11, 16), true) })] });
    const r = await reader(bytes);
    expect(await r.meta()).toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    expect((await drain(r)).map((x) => x.values.emissao)).toEqual(['2026-11-15', '2026-11-16']);
  });

  it('a hand-made RELATORIO18 from another writer: inline strings, workbook.xml last, odd part names, no r, Brazilian text numbers', async () => {
    const h20 = ['Filial', 'Nota Fiscal', 'Série', 'Item', 'Emissão', 'Cliente', 'Nome Cliente', 'Vendedor', 'Nome Vendedor', 'Produto', 'Descrição Produto', 'Quantidade', 'Valor Unitário', 'Valor Total', 'Placa', 'Ano Veículo', 'Modelo Veículo'];
    const h30 = ['Filial', 'Data', 'Lançamento', 'Conta', 'Descrição Conta', 'Histórico', 'Débito', 'Crédito', 'Placa', 'Ano Veículo'];
    const bytes = handmadeXlsx({
      strings: 'inline',
      order: 'workbook-last',
      date1904: true,
      sheets: [
        { name: '10', part: 'xl/worksheets/parametros.xml', rows: [[null, null, null, 'Período', utc(2026, 11, 1), { iso: '2026-11-30' }]] },
        { name: '20', part: 'xl/worksheets/faturamento.xml', noCellRefs: true, noRowRefs: true, rows: [
          ['RELATÓRIO 18'], h20,
          ['001', { f: '100+1', v: 101 }, 'U', 1, '15/11/2026', 55, { rich: ['Posto ', 'Central'] }, 7, 'Ana', '0010', 'Diesel S10', '1.000,5', 'R$ 5,89', { f: 'L3*M3', v: 5892.945 }, 'ABC1D23', '2020/2021', 'Volvo'],
          ['Total', null, null, null, null, null, null, null, null, null, null, '1.000,5'],
        ] },
        { name: '30', part: 'xl/dados/mov.xml', rows: [h30, [1, utc(2026, 11, 2), 9, '1.1.01', 'Caixa', 'Depósito &amp; <ajuste>', '(10,00)', null]] },
      ],
    });
    const wb = await openWorkbook(bytes);
    expect(await detectType(wb)).toBe('RELATORIO18');
    const r = readRows(wb, 'RELATORIO18');
    expect(await r.meta()).toEqual({ periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' });
    const rows = await drain(r);
    expect(rows.map((x) => [x.staging, x.linha])).toEqual([['faturamento', 3], ['movimento', 2]]);
    expect(rows[0]!.values).toMatchObject({ filial: '001', nota_fiscal: '101', serie: 'U', emissao: '2026-11-15', nome_cliente: 'Posto Central', quantidade: '1000.5', valor_unitario: '5.89', valor_total: '5892.945' });
    expect(rows[1]!.values).toMatchObject({ data: '2026-11-02', historico: 'Depósito &amp; <ajuste>', debito: '-10', credito: null });
    expect(r.errors()).toEqual([]);
  });

  it('close() abandons a reader whose rows are not drained', async () => {
    const r = await reader(await buildRelatorio18({ rows: 50 }));
    await r.meta();
    await r.close();
    await r.close();
  });
});

describe('META', () => {
  it('reads every sheet whose header matches; competência forms; invalid rows reported', async () => {
    const bytes = await buildMeta({
      titulo: [['Metas 2026']],
      before: [{ name: 'Capa', rows: [['Metas comerciais']] }],
      linhas: [
        { competencia: 'nov/26', vendedor: 7, produto: '0001', meta_volume: '1.000,5', meta_margem: 0.12 },
        { competencia: '12/2026', vendedor: '007', produto: 1, meta_volume: 10, meta_margem: null },
        { competencia: utc(2027, 1, 15), vendedor: 8, produto: 2, meta_volume: 1, meta_margem: 'x' },
        { competencia: 'dezembro', vendedor: 8, produto: 2 },
        { competencia: 'jan/27', vendedor: null, produto: 2 },
      ],
      total: true,
    });
    const wb = await openWorkbook(bytes);
    expect(await detectType(wb)).toBe('META');
    const r = readRows(wb, 'META');
    expect(await r.meta()).toEqual({});
    const rows = await drain(r);
    expect(rows).toEqual([
      { staging: 'meta', linha: 3, values: { competencia: '2026-11-01', vendedor: '7', produto: '0001', meta_volume: '1000.5', meta_margem: '0.12' } },
      { staging: 'meta', linha: 4, values: { competencia: '2026-12-01', vendedor: '007', produto: '1', meta_volume: '10', meta_margem: null } },
    ]);
    expect(r.errors().map((e) => e.mensagem)).toEqual([
      "linha 5: meta_margem 'x' inválido",
      "linha 6: competencia 'dezembro' inválido",
      "linha 7: vendedor '' inválido",
    ]);
  });

  it('goals spread over several tabs are all read, in tab order', async () => {
    const head = ['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem'];
    const bytes = await buildWorkbook([
      { name: 'Filial 1', rows: [head, ['11/2026', 1, 'A', 10, 1]] },
      { name: 'Notas', rows: [['sem cabeçalho']] },
      { name: 'Filial 2', rows: [['x'], head, ['11/2026', 2, 'B', 20, 2]] },
    ]);
    const rows = await drain(await reader(bytes, 'META'));
    expect(rows.map((x) => [x.linha, x.values.vendedor])).toEqual([[2, '1'], [3, '2']]);
  });

  it('no tab with the META header is a thrown error', async () => {
    const r = await reader(await buildWorkbook([{ name: 'x', rows: [['Competência', 'Vendedor']] }]), 'META');
    expect(await failure(r.meta())).toBe('META: nenhuma aba tem o cabeçalho esperado (Competência, Vendedor, Produto, Meta Volume, Meta Margem)');
  });
});

describe('every type of docs/formatos.md has a reader', () => {
  it('hasReader is true for each; readRows refuses an unknown type with a pt-BR WorkbookError', async () => {
    const wb = await openWorkbook(await buildMeta({ rows: 1 }));
    for (const t of TIPOS_PLANILHA) expect(hasReader(t)).toBe(true);
    expect(() => readRows(wb, 'NOPE' as TipoPlanilha)).toThrow(new WorkbookError('a leitura de planilhas do tipo NOPE ainda não está disponível'));
  });
});
