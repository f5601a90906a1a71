/**
 * The XML parser's (saxes) error messages in staff words: a reason shown to staff is pt-BR,
 * never the parser's English (`undefined entity.`). Used where saxes reads a part of an
 * upload (ods.ts: content.xml and the manifest; package.ts: the xlsx package's parts).
 */
/** The reasons our own scanners give in the same words (ods-scanner.ts), without `XML: `. */
export const MOTIVO_XML = {
  entidade: 'entidade não declarada (só as cinco entidades do XML são aceitas)',
  nomeEntidade: 'referência de entidade com nome inválido',
  caractereRef: 'referência de caractere inválida',
  atributoSemAspas: 'atributo sem aspas',
  caractere: 'caractere não permitido',
  fechamento: 'fechamento de elemento inesperado',
  malformado: 'XML malformado',
} as const;

const MOTIVOS: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^undefined entity/, () => MOTIVO_XML.entidade],
  [/^disallowed character in entity name|^empty entity name/, () => MOTIVO_XML.nomeEntidade],
  [/^malformed character entity/, () => MOTIVO_XML.caractereRef],
  [/^unclosed tag: (.{0,40})/, (m) => `elemento <${m[1]}> não fechado`],
  [/^unmatched closing tag: (.{0,40}?)\.?$/, (m) => `</${m[1]}> não fecha nenhum elemento aberto`],
  [/^unexpected close tag/, () => MOTIVO_XML.fechamento],
  [/^text data outside of root node|^documents may contain only one root/, () => 'texto ou elemento fora do elemento raiz'],
  [/^document must contain a root element/, () => 'documento sem elemento raiz'],
  [/^unquoted attribute value|^value must be quoted/, () => MOTIVO_XML.atributoSemAspas],
  [/^duplicate attribute: (.{0,40}?)\.?$/, (m) => `atributo ${m[1]} repetido`],
  [/^unbound namespace prefix: (.{0,40}?)\.?$/, (m) => `prefixo de espaço de nomes não declarado ${m[1]}`],
  [/^disallowed character/, () => MOTIVO_XML.caractere],
  [/^unexpected end/, () => 'o documento termina no meio de uma marcação'],
];

/** `XML: <motivo em pt-BR>` for an error saxes reports (its position prefix `l:c: ` dropped). */
export function xmlMotivo(err: unknown): string {
  const raw = (err as Error)?.message?.split('\n')[0] ?? String(err);
  const msg = raw.replace(/^\d+:\d+: /, '');
  for (const [re, text] of MOTIVOS) {
    const m = re.exec(msg);
    if (m) return `XML: ${text(m)}`;
  }
  return `XML: ${MOTIVO_XML.malformado}`;
}
