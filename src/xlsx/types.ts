/** Types shared by the readers and the callers (docs/xlsx.md, "API"). */

/** Spreadsheet types, in detection order (docs/formatos.md). */
export const TIPOS_PLANILHA = [
  'FLUXO_PAGAR_RECEBER',
  'COMPRAS',
  'RELATORIO18',
  'COTA_FORNECEDOR',
  'POSTOS',
  'TRR',
  'MARGEM_CONSOLIDADA',
  'META_CARTEIRA',
  'META',
  'MARGEM_DIA',
] as const;

export type TipoPlanilha = (typeof TIPOS_PLANILHA)[number];

/** One data row, tagged with the staging table it goes to; values are COPY-ready text. */
export interface StagingRow {
  staging: 'faturamento' | 'movimento' | 'meta' | (string & {});
  /** The sheet's own 1-based row number, as Excel shows it. */
  linha: number;
  values: Record<string, string | null>;
}

/** An invalid field of a skipped row. */
export interface RowError {
  linha: number;
  campo: string;
  valor: string;
  /** `linha <n>: <campo> '<valor>' inválido` */
  mensagem: string;
  /** The tab (sheet name) of the row. */
  aba?: string;
  /** The staging table the row was read for. */
  staging?: string;
  /** On the first error of a row: the COPY-ready values of the fields that could be read. The
   *  merge normalises them like accepted rows: a readable natural key is protected from the
   *  scope delete; an unreadable one suspends the deletes of its target (docs/xls-merge.md). */
  valores?: Record<string, string | null>;
}

export interface TypeReader {
  /** Type-level parameters, e.g. { periodo_inicio, periodo_fim } for RELATORIO18; {} when none.
   *  Throws WorkbookError (pt-BR) when they are missing or invalid. */
  meta(): Promise<Record<string, string | null>>;
  /** The data rows, streamed (one pass over the file, low memory). Call once.
   *  Throws WorkbookError for a type-level failure (a tab or header missing, broken XML). */
  rows(): AsyncIterable<StagingRow>;
  /** Invalid rows' fields, after rows() is drained (at most MAX_ROW_ERRORS kept). */
  errors(): RowError[];
  /** How many rows were skipped as invalid (all of them, even past MAX_ROW_ERRORS). */
  rejectedRows(): number;
  /** Abandons the pass (when rows() is not drained). Idempotent. */
  close(): Promise<void>;
}

/** At most this many RowError are kept; rejectedRows() keeps counting. */
export const MAX_ROW_ERRORS = 10_000;
