/** TRR — the retail-wholesale resellers registry (docs/formatos.md): either of its two type headers is enough. */
import { cnpjCpf, number, text } from '../cells.js';
import type { TypeSpec } from './engine.js';
import { uf } from './parsers.js';

export const TRR: TypeSpec = {
  tipo: 'TRR',
  anySheet: {
    staging: 'trr',
    columns: [
      { header: 'CNPJ', parse: cnpjCpf, required: true },
      { header: 'Razão Social', parse: text },
      { header: 'Município', parse: text },
      { header: 'UF', parse: uf },
      { header: 'Tipo de Instalação', field: 'tipo_instalacao', parse: text, optional: true },
      { header: 'Qualificação da Empresa', field: 'qualificacao_empresa', parse: text, optional: true },
      { header: 'Capacidade (m³)', field: 'capacidade_m3', aliases: ['Capacidade (m3)', 'Capacidade'], parse: number, optional: true },
    ],
    requireOneOf: [['Tipo de Instalação', 'Qualificação da Empresa']],
  },
};
