/**
 * The readers, one declarative TypeSpec per type. Adding a type is adding its spec here
 * (headers → fields and parsers, tabs, parameters); the engine does the reading.
 */
import { WorkbookError } from '../errors.js';
import type { TipoPlanilha, TypeReader } from '../types.js';
import type { Workbook } from '../workbook.js';
import { COMPRAS } from './compras.js';
import { COTA_FORNECEDOR } from './cota-fornecedor.js';
import { type TypeSpec, createReader } from './engine.js';
import { FLUXO_PAGAR_RECEBER } from './fluxo.js';
import { MARGEM_CONSOLIDADA } from './margem-consolidada.js';
import { MARGEM_DIA } from './margem-dia.js';
import { META } from './meta.js';
import { META_CARTEIRA } from './meta-carteira.js';
import { POSTOS } from './postos.js';
import { RELATORIO18 } from './relatorio18.js';
import { TRR } from './trr.js';

export const READERS: Partial<Record<TipoPlanilha, TypeSpec>> = {
  FLUXO_PAGAR_RECEBER, COMPRAS, RELATORIO18, COTA_FORNECEDOR, POSTOS, TRR, MARGEM_CONSOLIDADA, META_CARTEIRA, META, MARGEM_DIA,
};

export function hasReader(tipo: TipoPlanilha): boolean {
  return READERS[tipo] !== undefined;
}

/** The streaming reader of `tipo` over `wb`. Throws WorkbookError for a type without a reader. */
export function readRows(wb: Workbook, tipo: TipoPlanilha): TypeReader {
  const spec = READERS[tipo];
  if (!spec) throw new WorkbookError(`a leitura de planilhas do tipo ${tipo} ainda não está disponível`);
  return createReader(wb, spec);
}
