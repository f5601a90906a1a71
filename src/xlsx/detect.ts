/**
 * Type detection (docs/formatos.md, "Detection"): checked in order, the first match wins.
 * Tab-name signatures cost nothing; header signatures read only rows 1..20 of each sheet
 * (once per distinct sheet, all of them in as few passes as the format allows, cached on the
 * workbook), and only when no tab-name signature matched. What detection may read is capped
 * (DETECT_MAX_BYTES of sheet data): a file past it ends with a reason, never a long wait.
 */
import { hasAll, normalizeHeader } from './headers.js';
import type { TipoPlanilha } from './types.js';
import { MiB } from './limits.js';
import type { SheetInfo, Workbook } from './workbook.js';

/** Most bytes of sheet data detection reads over all tabs (their first rows only). */
export const DETECT_MAX_BYTES = 64 * MiB;

interface Signature {
  tipo: TipoPlanilha;
  /** Matches on tab names alone. */
  byNames?: (names: string[]) => boolean;
  /** Matches on a sheet's header rows; `sheets` limits which sheets are looked at. */
  byHeader?: { sheets?: (s: SheetInfo) => boolean; row: (texts: string[]) => boolean };
}

const h = (...headers: string[]) => headers.map(normalizeHeader);
const all = (...headers: string[]) => {
  const wanted = h(...headers);
  return (texts: string[]) => hasAll(texts, wanted);
};

export const SIGNATURES: readonly Signature[] = [
  { tipo: 'FLUXO_PAGAR_RECEBER', byNames: (n) => n.includes(normalizeHeader('Fluxo Pagar-Receber')) },
  { tipo: 'COMPRAS', byNames: (n) => n.includes('compras') },
  { tipo: 'RELATORIO18', byNames: (n) => n.includes('10') && n.includes('20') && n.includes('30') },
  {
    tipo: 'COTA_FORNECEDOR',
    byHeader: { sheets: (s) => /^\d{4}$/.test(s.name.trim()), row: all('POLO', 'PRODUTO') },
  },
  { tipo: 'POSTOS', byHeader: { row: all('CNPJ', 'Bandeira') } },
  {
    tipo: 'TRR',
    byHeader: { row: (t) => all('CNPJ', 'Tipo de Instalação')(t) || all('CNPJ', 'Qualificação da Empresa')(t) },
  },
  { tipo: 'MARGEM_CONSOLIDADA', byHeader: { row: all('Competência', 'Margem Total') } },
  { tipo: 'META_CARTEIRA', byHeader: { row: all('Competência', 'Cliente', 'Meta Volume') } },
  { tipo: 'META', byHeader: { row: all('Competência', 'Vendedor', 'Meta Volume') } },
  { tipo: 'MARGEM_DIA', byHeader: { row: all('Data', 'Cliente', 'Produto', 'Margem') } },
];

/** The workbook's type, or null when it matches none (→ IGNORADO 'tipo não reconhecido'). */
export async function detectType(wb: Workbook, o: { maxBytes?: number } = {}): Promise<TipoPlanilha | null> {
  const names = wb.sheets.map((s) => normalizeHeader(s.name));
  for (const sig of SIGNATURES) {
    if (sig.byNames?.(names)) return sig.tipo;
  }
  // every worksheet's first rows, each distinct sheet once, within the cap (a sheet that failed
  // to read throws below, when its turn comes, as if it were read then)
  await wb.readHeaders(wb.sheets.filter((s) => s.kind === 'worksheet'), o.maxBytes ?? DETECT_MAX_BYTES);
  for (const sig of SIGNATURES) {
    if (!sig.byHeader) continue;
    for (const s of wb.sheets) {
      if (s.kind !== 'worksheet' || (sig.byHeader.sheets && !sig.byHeader.sheets(s))) continue;
      if ((await wb.headerRows(s)).some((r) => sig.byHeader!.row(r.texts))) return sig.tipo;
    }
  }
  return null;
}
