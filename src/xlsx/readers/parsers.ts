/** Cell parsers particular to some types (the common ones are in ../cells.ts). */
import { INVALID, parser, text, unwrap } from '../cells.js';
import { normalizeHeader } from '../headers.js';

/** CEP: digits only, 8 of them (a numeric cell gets its leading zero back). */
export const cep = parser('text', (raw, ctx) => {
  const v = unwrap(raw);
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0 || v > 99_999_999) return INVALID;
    return String(v).padStart(8, '0');
  }
  const t = text(v, ctx);
  if (t === null || t === INVALID) return t;
  if (!/^[\d.\-\s]+$/.test(t)) return INVALID;
  const d = t.replace(/\D/g, '');
  return d.length === 8 ? d : INVALID;
});

/** UF: two letters, upper case. */
export const uf = parser('text', (raw, ctx) => {
  const t = text(raw, ctx);
  if (t === null || t === INVALID) return t;
  return /^[A-Za-z]{2}$/.test(t) ? t.toUpperCase() : INVALID;
});

/** Title type of FLUXO_PAGAR_RECEBER: `Pagar`/`P` → PAGAR, `Receber`/`R` → RECEBER. */
export const tipoTitulo = parser('text', (raw, ctx) => {
  const t = text(raw, ctx);
  if (t === null || t === INVALID) return t;
  switch (normalizeHeader(t)) {
    case 'pagar': case 'p': case 'a pagar': return 'PAGAR';
    case 'receber': case 'r': case 'a receber': return 'RECEBER';
    default: return INVALID;
  }
});
