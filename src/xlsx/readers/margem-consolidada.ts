/** MARGEM_CONSOLIDADA — margin per month, branch and product (docs/formatos.md); any tab whose header matches. */
import { code, competencia, number } from '../cells.js';
import type { TypeSpec } from './engine.js';

export const MARGEM_CONSOLIDADA: TypeSpec = {
  tipo: 'MARGEM_CONSOLIDADA',
  anySheet: {
    staging: 'margem_consolidada',
    columns: [
      { header: 'Competência', parse: competencia, required: true },
      { header: 'Filial', parse: code, required: true },
      { header: 'Produto', parse: code, required: true },
      { header: 'Volume', parse: number },
      { header: 'Receita Líquida', parse: number },
      { header: 'CMV', parse: number },
      { header: 'Margem Total', parse: number },
      { header: 'Margem por Litro', parse: number },
    ],
  },
};
