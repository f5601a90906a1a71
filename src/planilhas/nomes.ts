/**
 * File names as staff see them (receipt, list, detail, bot, execution log, download):
 * control characters (C0, DEL, C1) and Unicode bidi controls (U+202E "RIGHT-TO-LEFT
 * OVERRIDE" makes `cod.exe‮xslx` read as `codxslx.exe`, and the isolates/marks alike) are
 * stripped, so that a name can neither forge a line of a log nor disguise its extension.
 */
// C0 controls, DEL, C1 controls; bidi embeddings/overrides/isolates/marks (incl. the Arabic letter mark)
// eslint-disable-next-line no-control-regex
const CONTROLES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function limparNome(nome: string): string {
  return nome.replace(CONTROLES, '').trim();
}

/** The spreadsheet formats a stored original may be (the extension of its object key). */
export type ExtensaoPlanilha = 'xlsx' | 'xls' | 'ods' | 'xlsb';

const MIME: Record<ExtensaoPlanilha, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  xlsb: 'application/vnd.ms-excel.sheet.binary.macroEnabled.12',
};

/**
 * The name of a download: the stored name cleaned, ending in the extension of the file's
 * format (`extensao`, read from its content at receipt): `relatorio` → `relatorio.ods`,
 * `velho.xlsx` holding a `.xls` → `velho.xls`. An `.xlsx` (or an unknown format) keeps the
 * earlier rule: ending in `.xlsx`, except a name ending in `.xls`, kept.
 */
export function nomeDownload(nome: string, extensao: ExtensaoPlanilha | null = null): string {
  const base = limparNome(nome.split(/[\\/]/).pop() ?? '') || 'arquivo';
  if (extensao === null || extensao === 'xlsx') {
    if (/\.xlsx?$/i.test(base)) return base;
    return `${base.replace(/\.+$/, '')}.xlsx`;
  }
  if (base.toLowerCase().endsWith(`.${extensao}`)) return base;
  if (/\.(xlsx|xlsm|xls|ods|xlsb)$/i.test(base)) return base.replace(/\.[^.]+$/, `.${extensao}`);
  return `${base.replace(/\.+$/, '')}.${extensao}`;
}

/** The content type of a download (an `.xlsx` named `.xls` keeps the legacy type, as before). */
export function tipoDownload(nome: string, extensao: ExtensaoPlanilha | null = null): string {
  if (extensao !== null && extensao !== 'xlsx') return MIME[extensao];
  return /\.xls$/i.test(nome) ? MIME.xls : MIME.xlsx;
}

/** The format recorded in an object key (`2026/11/<checksum>.ods` → ods), or null. */
export function extensaoDaChave(chave: string | null): ExtensaoPlanilha | null {
  const m = /\.(xlsx|xls|ods|xlsb)$/i.exec(chave ?? '');
  return m ? (m[1]!.toLowerCase() as ExtensaoPlanilha) : null;
}

/**
 * One line of an execution log: everything not printable is escaped (`\n`, `\r`, `\t`, `\e`,
 * `\xHH`, `\u{HHHH}` for bidi and other format controls), so a value read from a file or a
 * name can never start a new line or send a terminal escape.
 */
// eslint-disable-next-line no-control-regex
const NAO_IMPRIMIVEL = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]/gu;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

export function escaparLinha(texto: string): string {
  return texto.replace(NAO_IMPRIMIVEL, (c) => {
    const e = ESCAPES[c];
    if (e) return e;
    const cp = c.codePointAt(0)!;
    return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`;
  });
}
