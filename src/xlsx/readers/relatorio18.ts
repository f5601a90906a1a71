/**
 * RELATORIO18 — the monthly master report (docs/formatos.md): period in tab 10, billing in 20, movement in 30.
 */
import { code, date, number, text } from '../cells.js';
import type { TypeSpec } from './engine.js';

export const RELATORIO18: TypeSpec = {
  tipo: 'RELATORIO18',
  params: {
    sheet: '10',
    cells: {
      periodo_inicio: { address: 'E1', label: 'início do período', parse: date },
      periodo_fim: { address: 'F1', label: 'fim do período', parse: date },
    },
    check: (v) => (v.periodo_fim! < v.periodo_inicio!
      ? `período inválido: o fim (${v.periodo_fim}) é anterior ao início (${v.periodo_inicio})` : null),
  },
  tabs: [
    {
      sheet: '20',
      staging: 'faturamento',
      columns: [
        { header: 'Filial', parse: code, required: true },
        { header: 'Nota Fiscal', parse: code, required: true },
        { header: 'Série', parse: code, required: true },
        { header: 'Item', parse: code, required: true },
        { header: 'Emissão', parse: date, required: true },
        { header: 'Cliente', parse: code },
        { header: 'Nome Cliente', parse: text },
        { header: 'Vendedor', parse: code },
        { header: 'Nome Vendedor', parse: text },
        { header: 'Produto', parse: code },
        { header: 'Descrição Produto', parse: text },
        { header: 'Quantidade', parse: number },
        { header: 'Valor Unitário', parse: number },
        { header: 'Valor Total', parse: number },
        { header: 'Placa', parse: text }, // raw: SQL checks plates (vehicle-registry defence)
        { header: 'Ano Veículo', parse: text }, // raw: SQL parses YYYY/YYYY
        { header: 'Modelo Veículo', parse: text },
      ],
    },
    {
      sheet: '30',
      staging: 'movimento',
      columns: [
        { header: 'Filial', parse: code, required: true },
        { header: 'Data', parse: date, required: true },
        { header: 'Lançamento', parse: code, required: true },
        { header: 'Conta', parse: code, required: true },
        { header: 'Descrição Conta', parse: text },
        { header: 'Histórico', parse: text },
        { header: 'Débito', parse: number },
        { header: 'Crédito', parse: number },
        { header: 'Placa', parse: text },
        { header: 'Ano Veículo', parse: text },
      ],
    },
  ],
};
