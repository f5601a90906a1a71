/** META_CARTEIRA — goals per customer and product (docs/formatos.md); any tab whose header matches. */
import { code, competencia, number } from '../cells.js';
import type { TypeSpec } from './engine.js';

export const META_CARTEIRA: TypeSpec = {
  tipo: 'META_CARTEIRA',
  anySheet: {
    staging: 'meta_carteira',
    columns: [
      { header: 'Competência', parse: competencia, required: true },
      { header: 'Cliente', parse: code, required: true },
      { header: 'Produto', parse: code, required: true },
      { header: 'Meta Volume', parse: number },
    ],
  },
};
