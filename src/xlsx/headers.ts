/**
 * Header matching (docs/formatos.md): headers match after trimming, collapsing inner white
 * space, and ignoring case and accents; the header row is the first row, within the first
 * 20 rows of the sheet, that contains every required header; column order is free and
 * unknown columns are ignored.
 */
import { displayValue } from './cells.js';
import type { SheetRow } from './row.js';

export const HEADER_SCAN_ROWS = 20;

/** `  Tipo de  Instalação ` → `tipo de instalacao`. */
export function normalizeHeader(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').replace(/[\s\u00a0\u200b]+/g, ' ').trim().toLowerCase();
}

/** `Descrição Produto` → `descricao_produto`; `Capacidade (m³)` → `capacidade_m3`. */
export function snakeCase(header: string): string {
  return normalizeHeader(header.normalize('NFKD'))
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Past this many columns a row is walked by its present cells only (a sparse row). */
export const SPARSE_ROW_COLUMNS = 64;

/**
 * Calls `fn` for the cells present in a row, in column order. A sparse row (a cell far to
 * the right) is walked by its present cells, never up to the column number the file gave.
 * `fn` returns true to stop.
 */
export function forEachCell(values: readonly unknown[], fn: (value: unknown, index: number) => boolean | void): void {
  if (values.length <= SPARSE_ROW_COLUMNS) {
    for (let c = 0; c < values.length; c++) if (fn(values[c], c) === true) return;
    return;
  }
  // for-in gives an array's present indices in ascending order
  for (const key in values) {
    const c = Number(key);
    if (Number.isInteger(c) && fn(values[c], c) === true) return;
  }
}

/** Normalised texts of a row's cells, by column (index 0 = column A; holes are ''). */
export function rowTexts(row: SheetRow): string[] {
  const out: string[] = [];
  forEachCell(row.values, (v, c) => {
    while (out.length < c) out.push('');
    out.push(normalizeHeader(displayValue(v)));
  });
  return out;
}

/** 1-based column of each wanted (normalised) header in `texts`, or undefined when absent. */
export function locate(texts: readonly string[], wanted: readonly string[]): Array<number | undefined> {
  return wanted.map((w) => {
    const i = texts.indexOf(w);
    return i < 0 ? undefined : i + 1;
  });
}

export function hasAll(texts: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => texts.includes(w));
}
