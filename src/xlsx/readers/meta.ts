/** META — goals per seller and product (docs/formatos.md); any tab whose header matches. */
import { code, competencia, number } from '../cells.js';
import type { TypeSpec } from './engine.js';

export const META: TypeSpec = {
  tipo: 'META',
  anySheet: {
    staging: 'meta',
    columns: [
      { header: 'Competência', parse: competencia, required: true },
      { header: 'Vendedor', parse: code, required: true },
      { header: 'Produto', parse: code, required: true },
      { header: 'Meta Volume', parse: number },
      { header: 'Meta Margem', parse: number },
    ],
  },
};
