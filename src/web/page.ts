/**
 * Page: the list envelope of the spec (`content`, `pageable {number, size, sort, mode}`,
 * `totalSize`). Page base 0; size default 20, max 100, zero or negative -> 20; a negative
 * page -> 0; client `sort` is ignored (every list has a fixed order).
 */
import { HttpProblem } from '../errors.js';
import { arr, int, obj, str } from '../schemas.js';

export const PAGE_DEFAULT_SIZE = 20;
export const PAGE_MAX_SIZE = 100;

export interface PageRequest {
  number: number;
  size: number;
  offset: number;
}

export interface SortOrder {
  property: string;
  direction: 'ASC' | 'DESC';
}

export interface Page<T> {
  content: T[];
  pageable: { number: number; size: number; sort: { orderBy: Array<SortOrder & { ignoreCase: boolean }> }; mode: 'OFFSET' };
  totalSize: number;
}

function parseInteger(name: string, raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const s = Array.isArray(raw) ? String(raw[raw.length - 1]) : String(raw);
  if (!/^\s*[-+]?\d{1,9}\s*$/.test(s)) {
    throw new HttpProblem(400, 'Requisição inválida', `parâmetro ${name} deve ser um número inteiro (recebido '${s}')`, undefined, { parametro: name });
  }
  return Number(s);
}

export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const page = parseInteger('page', query.page);
  const size = parseInteger('size', query.size);
  const number = page === undefined || page < 0 ? 0 : page;
  const effectiveSize = size === undefined || size <= 0 ? PAGE_DEFAULT_SIZE : Math.min(size, PAGE_MAX_SIZE);
  return { number, size: effectiveSize, offset: number * effectiveSize };
}

export function toPage<T>(req: PageRequest, content: T[], totalSize: number, order: SortOrder): Page<T> {
  return {
    content,
    pageable: {
      number: req.number,
      size: req.size,
      sort: { orderBy: [{ ...order, ignoreCase: false }] },
      mode: 'OFFSET',
    },
    totalSize,
  };
}

/** Query-string schema of a paged list: page/size stay strings so the rules above apply. */
export const pageQueryProperties = {
  page: { type: ['string', 'integer'] },
  size: { type: ['string', 'integer'] },
  sort: {},
};

export function pageSchema(item: Record<string, unknown>): Record<string, unknown> {
  return obj({
    content: arr(item),
    pageable: obj({
      number: int(),
      size: int(),
      sort: obj({ orderBy: arr(obj({ property: str(), direction: str(), ignoreCase: { type: 'boolean' } })) }),
      mode: str(),
    }),
    totalSize: int(),
  });
}
