/**
 * Header matching (formats.md): headers match after trimming, collapsing inner white
 * space, and ignoring case and accents; the header row is the first row, within the first
 * 20 rows of the sheet, that contains every required header; column order is free and
 * unknown columns are ignored.
 */
import { displayValue } from './cells.js';
import type { SheetRow } from './workbook.js';

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

/** Normalised texts of a row's cells, by column (index 0 = column A). */
export function rowTexts(row: SheetRow): string[] {
  const out: string[] = [];
  const values = row.values;
  for (let c = 0; c < values.length; c++) out.push(normalizeHeader(displayValue(values[c])));
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
