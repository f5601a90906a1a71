/**
 * Error codes. SQL functions raise `using errcode = 'XX999'` where the two letters name
 * the area and the three digits are the HTTP status the edge answers with. The registry
 * with the meaning of each code is docs/error-codes.md; tests assert codes, not wording.
 */
export const APP_ERRCODE = /^(?!P0|XX)[A-Z]{2}([45]\d\d)$/;

export function httpStatusOfSqlState(code: unknown): number | undefined {
  if (typeof code !== 'string') return undefined;
  const m = APP_ERRCODE.exec(code);
  return m ? Number(m[1]) : undefined;
}

/** An error the edge itself decides (bad envelope, auth); carries its problem fields. */
export class HttpProblem extends Error {
  constructor(
    public readonly status: number,
    public readonly title: string,
    detail?: string,
    public readonly code?: string,
    public readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = 'HttpProblem';
  }
}

export const STATUS_TITLES: Record<number, string> = {
  400: 'Requisição inválida',
  401: 'Não autenticado',
  403: 'Proibido',
  404: 'Não encontrado',
  405: 'Método não permitido',
  406: 'Formato não aceito',
  408: 'Tempo esgotado',
  409: 'Conflito',
  413: 'Conteúdo grande demais',
  415: 'Tipo de conteúdo não suportado',
  422: 'Não processável',
  429: 'Requisições demais',
  500: 'Erro interno',
  502: 'Falha em serviço externo',
  503: 'Serviço indisponível',
  507: 'Armazenamento insuficiente',
};
