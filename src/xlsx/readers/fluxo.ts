/**
 * FLUXO_PAGAR_RECEBER — open payables and receivables (docs/formatos.md, rules 1–5).
 *
 * - Position date: in tab `Fluxo Pagar-Receber`, within its first 10 rows, the first cell
 *   whose text contains `Posição` (accent optional) followed by a date in the same cell
 *   (`Posição em 15/11/2026`) or in the next non-empty cell to its right. None → the file
 *   is refused (WorkbookError: nothing written).
 * - Titles: tab `SemQuebras` (missing → refused).
 * - Receivable total: tab `Grupo`, the row whose first non-empty cell is `Total`, column
 *   `Receber`. The tab, the column or the row missing is no refusal: meta gets
 *   total_receber_grupo = null and grupo_problema says why (the SQL side warns).
 *
 * Invalid rows are not refused here: the SQL merge refuses the whole file and lists them.
 */
import { INVALID, type ParseContext, cnpjCpf, code, date, displayValue, isEmptyValue, number, parseDateText, text } from '../cells.js';
import { HEADER_SCAN_ROWS, normalizeHeader, rowTexts } from '../headers.js';
import type { SheetRow } from '../workbook.js';
import type { TypeSpec } from './engine.js';
import { tipoTitulo } from './parsers.js';

export const FLUXO_POSICAO_LINHAS = 10;
const DATE_IN_TEXT = /(\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{2}-\d{2})/;

/** The position date of the first rows of tab `Fluxo Pagar-Receber`, or null. */
export function findPosicao(rows: readonly SheetRow[], ctx: ParseContext): string | null {
  for (const row of rows) {
    if (row.number > FLUXO_POSICAO_LINHAS) break;
    const values = row.values;
    for (let c = 0; c < values.length; c++) {
      const t = displayValue(values[c]);
      const norm = normalizeHeader(t);
      const at = norm.indexOf('posicao');
      if (at < 0) continue;
      // the same cell: a date after the word (normalising keeps the length of plain text up to the word)
      const m = DATE_IN_TEXT.exec(norm.slice(at + 'posicao'.length));
      if (m) {
        const d = parseDateText(m[1]!);
        if (d !== null && d !== INVALID) return d;
      }
      // the next non-empty cell to its right
      for (let k = c + 1; k < values.length; k++) {
        if (isEmptyValue(values[k])) continue;
        const d = date(values[k], ctx);
        if (d !== null && d !== INVALID) return d;
        break;
      }
    }
  }
  return null;
}

/** The `Receber` figure of the `Total` row of tab `Grupo`, or the reason it is missing. */
export function findTotalReceber(rows: readonly SheetRow[], ctx: ParseContext): { total: string | null; problema: string | null } {
  let col: number | null = null;
  for (const row of rows) {
    if (col === null) {
      if (row.number > HEADER_SCAN_ROWS) break;
      const i = rowTexts(row).indexOf('receber');
      if (i >= 0) col = i;
      continue;
    }
    const first = row.values.find((v) => !isEmptyValue(v));
    if (first === undefined || !normalizeHeader(displayValue(first)).startsWith('total')) continue;
    const n = number(row.values[col], ctx);
    if (n === INVALID) return { total: null, problema: `aba Grupo: total a receber inválido ('${displayValue(row.values[col])}')` };
    if (n === null) return { total: null, problema: 'aba Grupo: linha Total sem valor na coluna Receber' };
    return { total: n, problema: null };
  }
  return { total: null, problema: col === null ? 'aba Grupo sem a coluna Receber' : 'aba Grupo sem a linha Total' };
}

export const FLUXO_PAGAR_RECEBER: TypeSpec = {
  tipo: 'FLUXO_PAGAR_RECEBER',
  params: [
    {
      sheet: 'Fluxo Pagar-Receber',
      scan: {
        rows: FLUXO_POSICAO_LINHAS,
        read: (rows, ctx) => {
          const posicao = findPosicao(rows, ctx);
          return posicao
            ? { values: { posicao }, problems: [] as string[] }
            : { values: {} as Record<string, string | null>, problems: [`data de posição não encontrada nas ${FLUXO_POSICAO_LINHAS} primeiras linhas (uma célula com 'Posição' seguida de uma data)`] };
        },
      },
    },
    {
      sheet: 'Grupo',
      optional: true,
      scan: {
        read: (rows, ctx) => {
          const r = findTotalReceber(rows, ctx);
          return { values: { total_receber_grupo: r.total, grupo_problema: r.problema }, problems: [] };
        },
      },
    },
  ],
  tabs: [
    {
      sheet: 'SemQuebras',
      staging: 'titulo',
      columns: [
        { header: 'Tipo', parse: tipoTitulo, required: true },
        { header: 'Documento', parse: code, required: true },
        { header: 'Parcela', parse: code },
        { header: 'Pessoa', parse: text },
        { header: 'CNPJ/CPF', parse: cnpjCpf },
        { header: 'Emissão', parse: date },
        { header: 'Vencimento', parse: date, required: true },
        { header: 'Valor', parse: number },
        { header: 'Saldo', parse: number, required: true },
        { header: 'Centro de Custo', field: 'centro_custo', parse: code },
        { header: 'Descrição Centro de Custo', field: 'descricao_centro_custo', parse: text },
      ],
    },
  ],
};
