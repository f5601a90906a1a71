// @lane unit
/**
 * Issue 33 §5, "time that grows with the square of the tab count": detection reads every tab's
 * first rows in one pass (.ods), each distinct sheet once (.xls: thousands of tabs pointing at
 * one sheet), within a cap of bytes; and a parse step has a time limit (isolated-parse.ts).
 * No timing assertion: what is read is counted (Workbook.bytesRead), the limits are made tiny.
 */
import { describe, expect, it } from 'vitest';
import { WorkbookError, detectType, openWorkbook } from '../../src/xlsx/index.js';
import { IsolatedParse } from '../../src/planilhas/isolated-parse.js';
import { buildMeta } from '../fixtures/builder.js';
import { odsFile, odsTable } from '../fixtures/cfb.js';
import { odsAbasComTexto, odsAbasVazias, xlsAbasNumaFolha } from '../fixtures/muitas-abas.js';

/** The inflated size of a zip entry, read from its central directory. */
function tamanhoInflado(zip: Buffer, nome: string): number {
  let at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  at = zip.readUInt32LE(at + 16);
  for (;;) {
    const len = zip.readUInt16LE(at + 28);
    if (zip.toString('utf8', at + 46, at + 46 + len) === nome) return zip.readUInt32LE(at + 24);
    at += 46 + len + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
}

describe('detection over 20,000 tabs reads each byte once', () => {
  it('.ods of 20,000 empty tabs: one pass over content.xml, no type', async () => {
    const ods = odsAbasVazias(20_000);
    expect(ods.length).toBeLessThan(100_000);
    const wb = await openWorkbook(ods);
    try {
      expect(wb.sheets).toHaveLength(20_000);
      expect(await detectType(wb)).toBeNull();
      // tab by tab, content.xml was inflated and skipped from its start for every tab
      // (20,000 × ~600 KB); in one pass each of its bytes is parsed at most once
      const content = tamanhoInflado(ods, 'content.xml');
      expect(wb.bytesRead).toBeGreaterThan(0);
      expect(wb.bytesRead).toBeLessThanOrEqual(content);
    } finally {
      await wb.close();
    }
  });

  it('.xls of 20,000 tab entries pointing at one sheet of 100,000 junk records: that sheet is read once', async () => {
    const xls = xlsAbasNumaFolha(20_000, 100_000);
    const wb = await openWorkbook(xls);
    try {
      expect(wb.sheets).toHaveLength(20_000);
      expect(await detectType(wb)).toBeNull();
      const folha = 20 + 100_000 * 8 + 4; // its records: the BOF, the junk, the EOF (read twice: twice that)
      expect(wb.bytesRead).toBe(folha);
    } finally {
      await wb.close();
    }
  });

  it('.ods of 20,000 self-closing tables (<table:table …/>): read as empty, in one pass', async () => {
    const ods = odsAbasVazias(20_000, { autoFechada: true });
    const wb = await openWorkbook(ods);
    try {
      expect(wb.sheets).toHaveLength(20_000);
      expect(await detectType(wb)).toBeNull();
      expect(wb.bytesRead).toBeLessThanOrEqual(tamanhoInflado(ods, 'content.xml'));
    } finally {
      await wb.close();
    }
  });

  it('an .ods with a self-closing table before the report is still detected (the empty table was never closed)', async () => {
    const ods = odsFile(`<table:table table:name="Capa"/>${odsTable('Postos', [['CNPJ', 'Razão Social', 'Bandeira'], ['1', 'x', 'y']])}`);
    const wb = await openWorkbook(ods);
    try {
      expect(await detectType(wb)).toBe('POSTOS');
      expect(await wb.headerRows(wb.sheets[0]!)).toEqual([]);
    } finally {
      await wb.close();
    }
  });

  it('the tabs of an .ods read in one pass have the same first rows as read one by one', async () => {
    const ods = odsAbasComTexto(30, 25);
    const um = await openWorkbook(ods);
    const outro = await openWorkbook(ods);
    try {
      await um.readHeaders(um.sheets);
      for (const s of um.sheets) {
        const h = await um.headerRows(s);
        expect(h).toHaveLength(20);
        expect(h).toEqual(await outro.headerRows(outro.sheets[s.position]!));
      }
    } finally {
      await um.close();
      await outro.close();
    }
  });
});

describe('what detection may read is capped', () => {
  it('past the cap detection stops with a reason in staff words (no long wait)', async () => {
    const ods = odsAbasComTexto(200, 25);
    const wb = await openWorkbook(ods);
    try {
      const err = await detectType(wb, { maxBytes: 4096 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkbookError);
      expect((err as Error).message).toMatch(/^formato não suportado: a detecção do tipo leu .* das primeiras linhas das 200 abas sem terminar \(o limite é 4 KiB\)/);
      // it stopped soon after the cap, far from the whole file
      expect(wb.bytesRead).toBeLessThan(4096 + 2 * 64 * 1024);
    } finally {
      await wb.close();
    }
    // the same file under the default cap: read whole, no type
    const wb2 = await openWorkbook(ods);
    try {
      expect(await detectType(wb2)).toBeNull();
    } finally {
      await wb2.close();
    }
  });
});

describe('a parse step has a time limit (XLS_LEITURA_TEMPO_MAX_MS)', () => {
  const opcoes = { tipo: null, limits: {}, chunkLinhas: 1000, heapMb: 64 };

  it('past it the worker is stopped and the parse fails with a pt-BR reason', async () => {
    const parse = new IsolatedParse(await buildMeta({ rows: 5 }), { ...opcoes, tempoMaxMs: 5 });
    try {
      const err = await parse.tipo().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkbookError);
      expect((err as Error).message).toBe('a leitura da planilha foi interrompida: passou de 5 ms sem concluir uma etapa '
        + '(abrir e reconhecer o tipo, ler os parâmetros ou um bloco de linhas; limite XLS_LEITURA_TEMPO_MAX_MS); '
        + 'o arquivo é grande ou malformado demais para ser lido');
    } finally {
      await parse.close();
    }
  });

  it('within it the same file is read', async () => {
    const parse = new IsolatedParse(await buildMeta({ rows: 5 }), { ...opcoes, tempoMaxMs: 60_000 });
    try {
      expect(await parse.tipo()).toBe('META');
    } finally {
      await parse.close();
    }
  });
});
