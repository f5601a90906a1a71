/**
 * Errors of the xlsx layer. Every message is pt-BR and meant for staff.
 *
 * - ArchiveError: the upload is refused before anything is stored (hostile or invalid
 *   archive). It is an HttpProblem, so a route may simply let it propagate: the problem
 *   plugin answers with its status and code (XL400 / XL413 / XL415).
 * - WorkbookError: a stored file cannot be processed (not an xlsx, broken xlsx, a
 *   required tab/header/period missing). The processing ends in ERRO with `message`.
 */
import { HttpProblem, STATUS_TITLES } from '../errors.js';

export type ArchiveStatus = 400 | 413 | 415;

export class ArchiveError extends HttpProblem {
  declare readonly status: ArchiveStatus;
  /** pt-BR reason, the same text as `message`. */
  readonly motivo: string;

  constructor(status: ArchiveStatus, motivo: string) {
    super(status, STATUS_TITLES[status] ?? 'Requisição inválida', motivo, `XL${status}`);
    this.name = 'ArchiveError';
    this.motivo = motivo;
  }
}

export class WorkbookError extends Error {
  /** pt-BR reason, the same text as `message`. */
  readonly motivo: string;

  constructor(motivo: string, options?: { cause?: unknown }) {
    super(motivo, options);
    this.name = 'WorkbookError';
    this.motivo = motivo;
  }
}

/** `formato não suportado: …` — the file is not a readable xlsx. */
export function unsupported(reason: string, cause?: unknown): WorkbookError {
  return new WorkbookError(`formato não suportado: ${reason}`, cause === undefined ? undefined : { cause });
}
