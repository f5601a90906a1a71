import { describe, expect, it } from 'vitest';
import { type TipoPlanilha, TIPOS_PLANILHA, detectType, openWorkbook } from '../../src/xlsx/index.js';
import { type CellInput, type SheetSpec, buildMeta, buildRelatorio18, buildWorkbook } from '../fixtures/builder.js';
import { handmadeXlsx } from '../fixtures/handmade.js';

const titled = (header: CellInput[], titleRows = 2): CellInput[][] => [
  ...Array.from({ length: titleRows }, (_, i) => [`Título ${i + 1}`]),
  header,
  ['dado', 1, 2],
];

async function detect(sheets: SheetSpec[]): Promise<TipoPlanilha | null> {
  return detectType(await openWorkbook(await buildWorkbook(sheets)));
}

describe('detectType: the ten types of docs/formatos.md', () => {
  const cases: Array<[TipoPlanilha, SheetSpec[]]> = [
    ['FLUXO_PAGAR_RECEBER', [{ name: 'Fluxo Pagar-Receber', rows: [['Posição em 15/11/2026']] }, { name: 'SemQuebras', rows: [] }]],
    ['COMPRAS', [{ name: 'Compras', rows: [['Data', 'CNPJ Fornecedor']] }]],
    ['RELATORIO18', [{ name: '10', rows: [] }, { name: '20', rows: [] }, { name: '30', rows: [] }]],
    ['COTA_FORNECEDOR', [{ name: '2026', rows: titled(['POLO', 'PRODUTO', 'JAN', 'FEV']) }]],
    ['POSTOS', [{ name: 'Postos', rows: titled(['CNPJ', 'Razão Social', 'Bandeira', 'UF']) }]],
    ['TRR', [{ name: 'TRR', rows: titled(['CNPJ', 'Razão Social', 'Tipo de Instalação']) }]],
    ['MARGEM_CONSOLIDADA', [{ name: 'Plan1', rows: titled(['Competência', 'Filial', 'Produto', 'Margem Total']) }]],
    ['META_CARTEIRA', [{ name: 'Plan1', rows: titled(['Competência', 'Cliente', 'Produto', 'Meta Volume']) }]],
    ['META', [{ name: 'Plan1', rows: titled(['Competência', 'Vendedor', 'Produto', 'Meta Volume', 'Meta Margem']) }]],
    ['MARGEM_DIA', [{ name: 'Plan1', rows: titled(['Data', 'Filial', 'Cliente', 'Produto', 'Margem']) }]],
  ];

  it('covers every type', () => {
    expect(cases.map((c) => c[0]).sort()).toEqual([...TIPOS_PLANILHA].sort());
  });

  it.each(cases)('%s', async (tipo, sheets) => {
    expect(await detect(sheets)).toBe(tipo);
  });

  it('the generated RELATORIO18 and META fixtures', async () => {
    expect(await detectType(await openWorkbook(await buildRelatorio18({ rows: 4 })))).toBe('RELATORIO18');
    expect(await detectType(await openWorkbook(await buildMeta({ rows: 4 })))).toBe('META');
  });
});

describe('detectType: order and matching rules', () => {
  it('POSTOS wins over TRR when both signatures are present', async () => {
    expect(await detect([{ name: 'Cadastro', rows: [['CNPJ', 'Bandeira', 'Tipo de Instalação', 'Qualificação da Empresa']] }])).toBe('POSTOS');
  });

  it('TRR is recognised by either header, with or without accents', async () => {
    expect(await detect([{ name: 'x', rows: [['cnpj', 'QUALIFICACAO DA EMPRESA']] }])).toBe('TRR');
    expect(await detect([{ name: 'x', rows: [[' CNPJ ', 'Tipo  de   Instalacao']] }])).toBe('TRR');
  });

  it('tab-name signatures come first: a FLUXO workbook with a META header is FLUXO', async () => {
    expect(await detect([
      { name: 'Plan1', rows: [['Competência', 'Vendedor', 'Meta Volume']] },
      { name: ' fluxo pagar-receber ', rows: [] },
    ])).toBe('FLUXO_PAGAR_RECEBER');
  });

  it('RELATORIO18 needs all three tabs', async () => {
    expect(await detect([{ name: '10', rows: [] }, { name: '20', rows: [] }])).toBeNull();
  });

  it('COTA_FORNECEDOR needs a four-digit tab name', async () => {
    expect(await detect([{ name: 'Cotas', rows: [['POLO', 'PRODUTO', 'JAN']] }])).toBeNull();
    expect(await detect([{ name: 'Cotas', rows: [] }, { name: '2027', rows: [['polo', 'produto', '01']] }])).toBe('COTA_FORNECEDOR');
  });

  it('META_CARTEIRA (Cliente) is checked before META (Vendedor); MARGEM_CONSOLIDADA before both', async () => {
    expect(await detect([{ name: 'x', rows: [['Competência', 'Vendedor', 'Cliente', 'Meta Volume']] }])).toBe('META_CARTEIRA');
    expect(await detect([{ name: 'x', rows: [['Competência', 'Vendedor', 'Meta Volume', 'Margem Total']] }])).toBe('MARGEM_CONSOLIDADA');
  });

  it('the header may be on any of the first 20 rows, of any sheet, in any column order', async () => {
    expect(await detect([{ name: 'Capa', rows: [['Relatório']] }, { name: 'Dados', rows: titled(['Meta Volume', 'x', 'Vendedor', 'Competência'], 19) }])).toBe('META');
    expect(await detect([{ name: 'Dados', rows: titled(['Competência', 'Vendedor', 'Meta Volume'], 20) }])).toBeNull();
  });

  it('headers split across rows do not match', async () => {
    expect(await detect([{ name: 'x', rows: [['Competência', 'Vendedor'], ['Meta Volume']] }])).toBeNull();
  });

  it('a valid xlsx of no known type is null', async () => {
    expect(await detect([{ name: 'Plan1', rows: [['Nome', 'Idade'], ['Ana', 30]] }])).toBeNull();
    expect(await detect([{ name: 'Plan1', rows: [] }])).toBeNull();
  });

  it('hand-made files: inline strings, prefixed XML, header in rich text', async () => {
    const wb = await openWorkbook(handmadeXlsx({
      strings: 'inline',
      prefix: 'x',
      sheets: [{ name: 'Metas', rows: [['Metas de novembro'], [{ rich: ['Compe', 'tência'] }, 'Vendedor', 'Meta  Volume']] }],
    }));
    expect(await detectType(wb)).toBe('META');
  });
});
