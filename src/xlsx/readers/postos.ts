/** POSTOS — the fuel stations registry (docs/formatos.md): the file is the whole registry. */
import { cnpjCpf, text } from '../cells.js';
import type { TypeSpec } from './engine.js';
import { cep, uf } from './parsers.js';

export const POSTOS: TypeSpec = {
  tipo: 'POSTOS',
  anySheet: {
    staging: 'posto',
    columns: [
      { header: 'CNPJ', parse: cnpjCpf, required: true },
      { header: 'Razão Social', parse: text },
      { header: 'Nome Fantasia', parse: text },
      { header: 'Bandeira', parse: text },
      { header: 'Endereço', parse: text },
      { header: 'Bairro', parse: text },
      { header: 'Município', parse: text },
      { header: 'UF', parse: uf },
      { header: 'CEP', parse: cep },
      { header: 'Tipo de Instalação', field: 'tipo_instalacao', parse: text, optional: true },
    ],
  },
};
