/** Catalogue fixtures and small helpers for the ERP-sync tests. */
import type pg from 'pg';
import { catalogoCarregar } from '../../src/erp/db.js';

/** Appends the GTIN check digit to a body of 7, 11, 12 or 13 digits. */
export function gtin(body: string): string {
  const digits = [...body].map(Number).reverse();
  const sum = digits.reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return body + String((10 - (sum % 10)) % 10);
}

/** The same code with a wrong check digit. */
export function wrongCheckDigit(code: string): string {
  const last = Number(code.slice(-1));
  return code.slice(0, -1) + String((last + 1) % 10);
}

export const EAN = {
  oleo1l: gtin('789100000001'),
  oleo20l: gtin('789100000002'),
  arla: gtin('789100000003'),
  partilhado: gtin('789100000004'), // two variants share it: ambiguous
  ean8: gtin('9638507'),
  upc: gtin('03600029145'),
  gtin14: gtin('1001234567890'),
  semCadastro: gtin('789100000999'),
};

/** Loads a small catalogue; returns the variant ids by sku. */
export async function loadCatalogue(pool: pg.Pool): Promise<Record<string, number>> {
  await catalogoCarregar(pool, [
    { codigo_erp: 'OLEO', nome: 'Óleo 15W40', variantes: [
      { sku: 'OLEO-1L', ean: EAN.oleo1l, preco_cheio: 40, preco_desconto: 36.5, estoque: 10 },
      { sku: 'OLEO-20L', ean: EAN.oleo20l, preco_cheio: 600, preco_desconto: 550, estoque: 5 },
    ] },
    { codigo_erp: 'ARLA', nome: 'ARLA 32', variantes: [
      { sku: 'ARLA-20L', ean: EAN.arla, preco_cheio: 90, preco_desconto: 85, estoque: 7 },
    ] },
    { codigo_erp: 'FILTRO', nome: 'Filtro', variantes: [
      { sku: 'FILTRO-UN', ean: EAN.partilhado, preco_cheio: 80, preco_desconto: 75, estoque: 3 },
      { sku: 'FILTRO-KIT', ean: EAN.partilhado, preco_cheio: 150, preco_desconto: 140, estoque: 2 },
    ] },
    { codigo_erp: 'MISC', nome: 'Diversos', variantes: [
      { sku: 'FLANELA', ean: null, preco_cheio: 5, preco_desconto: 4.5, estoque: 100 },
      { sku: 'GRAXA', ean: EAN.ean8, preco_cheio: 25, preco_desconto: 23, estoque: 0 },
      { sku: 'ADITIVO', ean: EAN.upc, preco_cheio: 30, preco_desconto: 28, estoque: 1 },
      { sku: 'CAIXA', ean: EAN.gtin14, preco_cheio: 300, preco_desconto: 280, estoque: 1 },
      { sku: 'SEM-PRECO', ean: null },
    ] },
  ]);
  const { rows } = await pool.query<{ sku: string; id: number }>('select sku, id from variante');
  return Object.fromEntries(rows.map((r) => [r.sku, Number(r.id)]));
}

export interface VarianteRow {
  sku: string;
  preco_cheio: string | null;
  preco_desconto: string | null;
  estoque: number;
  xmin: string;
}

export async function variantes(pool: pg.Pool): Promise<Record<string, VarianteRow>> {
  const { rows } = await pool.query<VarianteRow>('select sku, preco_cheio, preco_desconto, estoque, xmin::text from variante order by sku');
  return Object.fromEntries(rows.map((r) => [r.sku, r]));
}

export const item = (key: Record<string, unknown>, preco_cheio: unknown = 1, preco_desconto: unknown = 1, extra: Record<string, unknown> = {}) =>
  ({ ...key, preco_cheio, preco_desconto, ...extra });
