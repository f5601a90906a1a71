/**
 * MARGEM_DIA — daily margin per branch, customer and product (docs/formatos.md). The customer's
 * CNPJ/CPF, Classe, Município, UF and the Prazo are optional columns: an absent column or an
 * empty cell is NULL (SQL keeps the stored customer data; Prazo stays NULL, never 0).
 */
import { cnpjCpf, code, date, number, text } from '../cells.js';
import type { TypeSpec } from './engine.js';
import { uf } from './parsers.js';

export const MARGEM_DIA: TypeSpec = {
  tipo: 'MARGEM_DIA',
  anySheet: {
    staging: 'margem_dia',
    columns: [
      { header: 'Data', parse: date, required: true },
      { header: 'Filial', parse: code, required: true },
      { header: 'Cliente', parse: code, required: true },
      { header: 'Nome Cliente', parse: text },
      { header: 'Vendedor', parse: code },
      { header: 'Produto', parse: code, required: true },
      { header: 'Volume', parse: number },
      { header: 'Preço Médio', parse: number },
      { header: 'Custo Médio', parse: number },
      { header: 'Margem', parse: number },
      { header: 'CNPJ/CPF', parse: cnpjCpf, optional: true },
      { header: 'Classe', parse: text, optional: true },
      { header: 'Município', parse: text, optional: true },
      { header: 'UF', parse: uf, optional: true },
      { header: 'Prazo', parse: number, optional: true },
    ],
  },
};
