import { describe, expect, it } from 'vitest';
import {
  INVALID, code, cnpjCpf, competencia, date, displayValue, number, plainNumber, serialToDate, text,
} from '../../src/xlsx/cells.js';
import { normalizeHeader, snakeCase } from '../../src/xlsx/headers.js';

const c1900 = { date1904: false };
const c1904 = { date1904: true };
const utc = (y: number, m: number, d: number, h = 0) => new Date(Date.UTC(y, m - 1, d, h));

describe('numbers', () => {
  it.each([
    [1234.56, '1234.56'],
    [-0, '0'],
    [5.819999999999999, '5.82'], // 15 significant digits, as Excel shows
    [1e21, '1000000000000000000000'],
    [1.5e-7, '0.00000015'],
    ['1.234,56', '1234.56'],
    ['R$ 1.234,56', '1234.56'],
    ['R$\u00a01.234,56', '1234.56'],
    ['-1.234,56', '-1234.56'],
    ['R$ -1.234,56', '-1234.56'],
    ['-R$ 1.234,56', '-1234.56'],
    ['(1.234,56)', '-1234.56'],
    ['1234.56', '1234.56'],
    ['1234,5', '1234.5'],
    ['1.234.567', '1234567'],
    ['0,50', '0.5'],
    ['007', '7'],
    ['  12 ', '12'],
    [{ formula: 'A1*2', result: 10.5 }, '10.5'],
    [{ richText: [{ text: '1.0' }, { text: '00,5' }] }, '1000.5'],
  ])('%j → %s', (input, out) => {
    expect(number(input, c1900)).toBe(out);
  });

  it.each([[''], ['   '], [null], [undefined], [{ formula: 'A1' }]])('%j → null', (input) => {
    expect(number(input, c1900)).toBeNull();
  });

  it.each([
    ['abc'], ['1,234.56'], ['1.23,4'], ['12.34.5'], ['(-1,00)'], ['--1'], ['1,2,3'], ['R$'], ['(1,00'],
    [true], [{ error: '#N/A' }], [{ formula: 'A1/0', result: { error: '#DIV/0!' } }], [utc(2026, 1, 1)], [Number.NaN],
  ])('%j is invalid', (input) => {
    expect(number(input, c1900)).toBe(INVALID);
  });

  it('plainNumber never writes an exponent', () => {
    for (const n of [1e-7, 123e-20, 9.99e25, -4.2e-9]) expect(plainNumber(n)).not.toMatch(/e/i);
    expect(plainNumber(-4.2e-9)).toBe('-0.0000000042');
  });
});

describe('codes, text, CNPJ', () => {
  it('a numeric code cell is its integer text, never 123.0; text keeps leading zeros', () => {
    expect(code(123, c1900)).toBe('123');
    expect(code(123.0, c1900)).toBe('123');
    expect(code('000123', c1900)).toBe('000123');
    expect(code(' 12 ', c1900)).toBe('12');
    expect(code(12345678000190, c1900)).toBe('12345678000190');
    expect(code('', c1900)).toBeNull();
    expect(code(utc(2026, 1, 1), c1900)).toBe(INVALID);
    expect(code({ error: '#REF!' }, c1900)).toBe(INVALID);
  });

  it('text is trimmed (not truncated), Excel escapes decoded, rich text joined', () => {
    const long = 'x'.repeat(5000);
    expect(text(`  ${long}  `, c1900)).toBe(long);
    expect(text('linha 1_x000D_\nlinha 2', c1900)).toBe('linha 1\r\nlinha 2');
    expect(text({ richText: [{ text: 'Diesel ' }, { text: 'S10' }] }, c1900)).toBe('Diesel S10');
    expect(text({ text: 'site', hyperlink: 'http://x' }, c1900)).toBe('site');
    expect(text(' \u00a0 ', c1900)).toBeNull();
    expect(text(2020, c1900)).toBe('2020');
    expect(text(utc(2026, 11, 15), c1900)).toBe('2026-11-15');
    expect(text({ error: '#N/A' }, c1900)).toBe(INVALID);
  });

  it('CNPJ/CPF keep digits only; a numeric cell gets its leading zeros back', () => {
    expect(cnpjCpf('12.345.678/0001-90', c1900)).toBe('12345678000190');
    expect(cnpjCpf('123.456.789-09', c1900)).toBe('12345678909');
    expect(cnpjCpf(2345678000190, c1900)).toBe('02345678000190');
    expect(cnpjCpf(1234567890, c1900)).toBe('01234567890');
    expect(cnpjCpf('', c1900)).toBeNull();
    expect(cnpjCpf('12.345', c1900)).toBe(INVALID);
    expect(cnpjCpf('ABC', c1900)).toBe(INVALID);
  });
});

describe('dates', () => {
  it.each([
    [utc(2026, 11, 15), '2026-11-15'],
    [utc(2026, 11, 15, 23), '2026-11-15'],
    [46341, '2026-11-15'], // serial, 1900 system
    [46341.75, '2026-11-15'],
    [61, '1900-03-01'],
    [59, '1900-02-28'],
    ['15/11/2026', '2026-11-15'],
    ['5/1/2026', '2026-01-05'],
    ['15/11/2026 10:30', '2026-11-15'],
    ['2026-11-15', '2026-11-15'],
    ['2026-11-15T10:00:00Z', '2026-11-15'],
    ['29/02/2028', '2028-02-29'],
  ])('%j → %s', (input, out) => {
    expect(date(input, c1900)).toBe(out);
  });

  it('honours the 1904 flag for serials', () => {
    expect(date(44879, c1904)).toBe('2026-11-15');
    expect(serialToDate(0, true)).toBe(INVALID);
    expect(serialToDate(1, true)).toBe('1904-01-02');
  });

  it.each([['31/02/2026'], ['2026-13-01'], ['15/11/26'], ['amanhã'], [60], [0], [-3], [1e9], [true], [utc(1800, 1, 1)]])('%j is invalid', (input) => {
    expect(date(input, c1900)).toBe(INVALID);
  });

  it.each([
    ['nov/26', '2026-11-01'],
    ['NOV/2026', '2026-11-01'],
    ['Nov-26', '2026-11-01'],
    ['março/2027', '2027-03-01'],
    ['set./26', '2026-09-01'],
    ['11/2026', '2026-11-01'],
    ['1/2027', '2027-01-01'],
    ['2026-11', '2026-11-01'],
    ['15/11/2026', '2026-11-01'],
    [utc(2026, 11, 15), '2026-11-01'],
    [46341, '2026-11-01'],
  ])('competência %j → %s', (input, out) => {
    expect(competencia(input, c1900)).toBe(out);
  });

  it.each([['13/2026'], ['nov'], ['xyz/26'], ['novembro de 2026'], [true]])('competência %j is invalid', (input) => {
    expect(competencia(input, c1900)).toBe(INVALID);
  });
});

describe('headers and messages', () => {
  it('normalise: trim, collapse spaces, ignore case and accents', () => {
    expect(normalizeHeader('  Tipo de   Instalacao ')).toBe(normalizeHeader('Tipo de Instalação'));
    expect(normalizeHeader('DESCRIÇÃO\u00a0PRODUTO')).toBe('descricao produto');
    expect(snakeCase('Descrição Produto')).toBe('descricao_produto');
    expect(snakeCase('Capacidade (m³)')).toBe('capacidade_m3');
    expect(snakeCase('Lançamento')).toBe('lancamento');
  });

  it('displayValue shows what the cell holds', () => {
    expect(displayValue(' abc ')).toBe('abc');
    expect(displayValue(12.5)).toBe('12.5');
    expect(displayValue({ error: '#N/A' })).toBe('#N/A');
    expect(displayValue(utc(2026, 1, 2))).toBe('2026-01-02');
    expect(displayValue(null)).toBe('');
  });
});
