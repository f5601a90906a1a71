/**
 * JSON-schema helpers for fastify. Every object schema built here lists every property as
 * required, so fast-json-stringify refuses to serialise a response that omits a key: the
 * "every key is always emitted" rule is enforced by the schema, not by hand.
 */
type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const num = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const bool = (): Schema => ({ type: 'boolean' });
export const dateTime = (): Schema => ({ type: 'string', format: 'date-time' });
/**
 * A UUID in its canonical 8-4-4-4-12 form. ajv's `format: 'uuid'` also accepts `urn:uuid:…`,
 * which Postgres' uuid type refuses (a 500 where the caller deserves a 400): the pattern
 * keeps the two in step.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const uuid = (): Schema => ({ type: 'string', format: 'uuid', pattern: UUID_PATTERN });

export function nullable(s: Schema): Schema {
  if (typeof s.type === 'string') return { ...s, type: [s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

export function arr(items: Schema): Schema {
  return { type: 'array', items };
}

export function obj(properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra };
}

/** An object whose keys are free (e.g. a JSON payload stored as is). */
export const anyObject = (): Schema => ({ type: 'object', additionalProperties: true });

export const problemSchema = obj({
  type: str(), title: str(), status: int(), detail: nullable(str()), instance: nullable(str()),
}, { additionalProperties: true });
