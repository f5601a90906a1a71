/**
 * Checks a parsed JSON value before it goes to Postgres (jsonb) or through JSON.stringify:
 * - depth at most `maxDepth` (JSON.parse accepts 10,000 nested levels; JSON.stringify and
 *   Postgres' jsonb input then overflow their stacks: a 500);
 * - no U+0000 and no lone surrogate in any string or key (jsonb refuses both: a 500);
 * - a number JSON.parse turned into ±Infinity (`1e400`) is replaced, in place, by the string
 *   'Infinity' / '-Infinity': JSON.stringify would write it as null, i.e. "not sent"; as a
 *   string the SQL judge (erp_sync) sees a value that is not a number and says so.
 * Iterative (an explicit stack), so the walk itself cannot overflow. Returns the first
 * problem as { campo, motivo } (campo: `items[3].nome`), or null.
 */
export const JSON_MAX_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface JsonProblem { campo: string; motivo: string }

function badString(s: string): string | null {
  if (s.includes('\u0000')) return 'contém o caractere nulo (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contém um surrogate UTF-16 isolado (texto Unicode inválido)';
  return null;
}

const childPath = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

export function checkJson(root: unknown, rootPath: string, maxDepth = JSON_MAX_DEPTH): JsonProblem | null {
  // `field`: the path cut two levels below the root (items[3].extra), named for depth problems
  const stack: Array<{ value: unknown; path: string; field: string; depth: number }> = [{ value: root, path: rootPath, field: rootPath, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, field, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const m = badString(value);
      if (m) return { campo: path, motivo: m };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return { campo: field, motivo: `aninhado demais (mais de ${maxDepth} níveis)` };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        const v = value[i];
        if (typeof v === 'number' && !Number.isFinite(v)) value[i] = String(v);
        else { const p = childPath(path, i); stack.push({ value: v, path: p, field: depth < 2 ? p : field, depth: depth + 1 }); }
      }
      continue;
    }
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const km = badString(k);
      if (km) return { campo: path, motivo: `uma chave ${km}` };
      const v = obj[k];
      if (typeof v === 'number' && !Number.isFinite(v)) obj[k] = String(v);
      else { const p = childPath(path, k); stack.push({ value: v, path: p, field: depth < 2 ? p : field, depth: depth + 1 }); }
    }
  }
  return null;
}
