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

/** The name of a download: the stored name cleaned, ending in `.xlsx` (a legacy `.xls` keeps `.xls`). */
export function nomeDownload(nome: string): string {
  const base = limparNome(nome.split(/[\\/]/).pop() ?? '') || 'arquivo';
  if (/\.xlsx?$/i.test(base)) return base;
  return `${base.replace(/\.+$/, '')}.xlsx`;
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
