/**
 * COTA_FORNECEDOR — the supplier quota matrix (docs/formatos.md): one tab per year named by four
 * digits (other tabs ignored), header POLO, PRODUTO and the months `JAN`…`DEZ` or `01`…`12`;
 * stored unpivoted, one staging row per non-empty month cell (aba = the year, mes = 1..12).
 */
import { number, text } from '../cells.js';
import type { ColumnSpec, TypeSpec } from './engine.js';

const MESES = ['JAN', 'FEV', 'MAR', 'ABR', 'MAI', 'JUN', 'JUL', 'AGO', 'SET', 'OUT', 'NOV', 'DEZ'];

const mesColumns: ColumnSpec[] = MESES.map((m, i) => ({
  header: m,
  aliases: [String(i + 1).padStart(2, '0'), String(i + 1)],
  field: `mes_${i + 1}`,
  parse: number,
  optional: true,
}));

export const COTA_FORNECEDOR: TypeSpec = {
  tipo: 'COTA_FORNECEDOR',
  sheetFilter: (name) => /^\d{4}$/.test(name),
  anySheet: {
    staging: 'cota',
    columns: [
      { header: 'POLO', parse: text, required: true },
      { header: 'PRODUTO', parse: text, required: true },
      ...mesColumns,
    ],
    sheetField: 'aba',
    unpivot: { fields: mesColumns.map((c, i) => ({ field: c.field!, key: String(i + 1) })), key: 'mes', value: 'quantidade' },
  },
};
