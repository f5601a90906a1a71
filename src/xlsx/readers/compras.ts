/**
 * COMPRAS — purchases, tab `Compras` (docs/formatos.md). Every row is staged with its ONU code;
 * the SQL merge keeps the fuels and counts the others (they are not errors).
 */
import { cnpjCpf, code, date, number, text } from '../cells.js';
import type { TypeSpec } from './engine.js';

export const COMPRAS: TypeSpec = {
  tipo: 'COMPRAS',
  tabs: [
    {
      sheet: 'Compras',
      staging: 'compra',
      columns: [
        { header: 'Data', parse: date, required: true },
        { header: 'CNPJ Fornecedor', parse: cnpjCpf, required: true },
        { header: 'Fornecedor', parse: text },
        { header: 'Nota Fiscal', parse: code, required: true },
        { header: 'Produto', parse: text, required: true },
        { header: 'Código ONU', parse: code },
        { header: 'Quantidade', parse: number },
        { header: 'Valor Total', parse: number },
      ],
    },
  ],
};
