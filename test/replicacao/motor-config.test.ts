/**
 * The sync engine's configuration (sync-engine/powersync.yaml), loaded the way the engine
 * loads it — the `yaml` package with an `!env` tag that takes PS_ variables only, with the
 * `::number` / `::boolean` casts — and validated with the engine's own configuration types
 * (@powersync/service-types: the codec `configFile.powerSyncConfig`, then the JSON schema
 * `configFile.PowerSyncConfigJSONSchema` with ajv, as the engine does at boot).
 *
 * The engine's schema lets unknown keys through (a misspelt `client_auth` would run the engine
 * without the phones' authentication, a misspelt `sslmode` would fall back to its default),
 * so the file is also checked against the same schema closed: no key the engine does not
 * know, with the Postgres connection's and storage's own keys (the engine's Postgres module
 * types) where the generic schema leaves them open.
 *
 * It is checked with the environments it runs with: docker-compose.yml's `engine` service
 * (which must set every PS_ variable the file names, and no other, and mount the directory
 * holding the sync rules) and `npm start`'s child engine (src/embedded/motor.ts); and
 * docs/replicacao.md must name the same variables.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import YAML from 'yaml';
import { Ajv } from 'ajv';
import { configFile } from '@powersync/service-types';
import { projectRoot } from '../../src/paths.js';
import { ambienteDoMotor, MOTOR_CONFIG } from '../../src/embedded/motor.js';

const CONFIG_TEXT = readFileSync(MOTOR_CONFIG, 'utf8');
const COMPOSE = YAML.parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; volumes?: string[] }>;
};
const DOCS = readFileSync(join(projectRoot, 'docs', 'replicacao.md'), 'utf8');

interface Carregado { config: unknown; erros: string[]; variaveis: string[] }

/** Parses the configuration with an `!env` tag resolving from `env`, like the engine's yaml-env. */
function carregar(text: string, env: Record<string, string | undefined>): Carregado {
  const erros: string[] = [];
  const variaveis = new Set<string>();
  const envTag: YAML.ScalarTag = {
    tag: '!env',
    resolve(nome: string, onError: (msg: string) => void) {
      if (!nome.startsWith('PS_')) {
        onError(`!env ${nome}: só variáveis com o prefixo PS_`);
        return nome;
      }
      const [variavel, tipo = 'string'] = nome.split('::') as [string, string | undefined];
      variaveis.add(variavel);
      const valor = env[variavel];
      if (valor === undefined) {
        onError(`!env ${nome}: variável não definida`);
        return nome;
      }
      if (tipo === 'string') return valor;
      if (tipo === 'number') {
        if (Number.isNaN(Number(valor))) onError(`!env ${nome}: '${valor}' não é um número`);
        return Number(valor);
      }
      if (tipo === 'boolean') {
        if (!['true', 'false'].includes(valor.toLowerCase())) onError(`!env ${nome}: '${valor}' não é true nem false`);
        return valor.toLowerCase() === 'true';
      }
      onError(`!env ${nome}: conversão '${tipo}' desconhecida`);
      return nome;
    },
  };
  const doc = YAML.parseDocument(text, { schema: 'core', customTags: [envTag] });
  erros.push(...doc.errors.map((e) => e.message));
  return { config: doc.toJS(), erros, variaveis: [...variaveis].sort() };
}

// The engine's own validator: ajv over the configuration's JSON schema, every error at once.
const ajv = new Ajv({ allErrors: true, strict: false });
const validarMotor = ajv.compile(configFile.PowerSyncConfigJSONSchema as object);

// The Postgres module's own keys of a connection and of the storage (the engine's
// BasePostgresConnectionConfig, the replication module's additions, the storage's batch_limits),
// which the generic schema leaves open.
const POSTGRES_CONEXAO = {
  type: { const: 'postgresql' }, id: { type: 'string' }, tag: { type: 'string' },
  uri: { type: 'string', pattern: '^postgres(ql)?://' }, hostname: { type: 'string' }, port: {},
  username: { type: 'string' }, password: { type: 'string' }, database: { type: 'string' },
  sslmode: { enum: ['verify-full', 'verify-ca', 'disable'] }, cacert: { type: 'string' },
  client_certificate: { type: 'string' }, client_private_key: { type: 'string' }, tls_servername: { type: 'string' },
  reject_ip_ranges: { type: 'array', items: { type: 'string' } }, slot_name_prefix: { type: 'string' },
  max_pool_size: { type: 'number' }, connect_timeout: { type: 'number' },
};
const POSTGRES_REPLICACAO = { ...POSTGRES_CONEXAO, debug_api: { type: 'boolean' }, snapshot_socket_timeout: { type: 'number' }, heartbeat_interval_seconds: { type: ['number', 'null'] } };
const POSTGRES_STORAGE = { ...POSTGRES_CONEXAO, batch_limits: { type: 'object' } };

type Schema = { properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema; anyOf?: Schema[]; [k: string]: unknown };

/** The engine's schema with every open object closed, the Postgres keys added where it leaves them open. */
function fechado(s: Schema, caminho = ''): Schema {
  const out: Schema = { ...s };
  if (s.properties) {
    const extra = caminho === '/replication/connections[]' ? POSTGRES_REPLICACAO : caminho === '/storage' ? POSTGRES_STORAGE : {};
    out.properties = { ...extra };
    for (const [k, v] of Object.entries(s.properties)) out.properties[k] = fechado(v, `${caminho}/${k}`);
    if (s.additionalProperties === true || s.additionalProperties === undefined) out.additionalProperties = false;
  }
  if (s.items) out.items = fechado(s.items, `${caminho}[]`);
  if (s.anyOf) out.anyOf = s.anyOf.map((a) => fechado(a, caminho));
  return out;
}
const validarFechado = ajv.compile(fechado(configFile.PowerSyncConfigJSONSchema as Schema));

/** Everything wrong with the configuration under `env`: the tag's, the codec's, the engine's schema's, the closed schema's. */
function validar(text: string, env: Record<string, string | undefined>): string[] {
  const { config, erros } = carregar(text, env);
  if (erros.length) return erros;
  try {
    configFile.powerSyncConfig.decode(config as configFile.SerializedPowerSyncConfig);
  } catch (err) {
    erros.push(`codec: ${String(err)}`);
  }
  if (!validarMotor(config)) erros.push(...validarMotor.errors!.map((e) => `motor: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
  if (!validarFechado(config)) erros.push(...validarFechado.errors!.map((e) => `fechado: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
  return erros;
}

const engine = COMPOSE.services.engine!;
/** compose's values, its ${VAR:?…} interpolation resolved with test values */
const ambienteCompose = Object.fromEntries(Object.entries(engine.environment ?? {}).map(([k, v]) =>
  [k, String(v).replace(/\$\{(\w+)(?::?[-?][^}]*)?\}/g, (_m, nome: string) => nome === 'SYNC_ENGINE_JWT_SECRET' ? 'a'.repeat(43) : `valor-de-teste-${nome}`)]));
const ambienteNpmStart = ambienteDoMotor({
  sourceUri: 'postgres://bi_motor:dev@127.0.0.1:54329/bi_comercial', storageUri: 'postgres://bi_motor:dev@127.0.0.1:54329/bi_comercial_motor',
  port: 54331, jwtSecret: 'b'.repeat(43), apiToken: 'dev-motor-x',
});
const VARIAVEIS = carregar(CONFIG_TEXT, {}).variaveis;
const psDe = (keys: Iterable<string>) => [...new Set([...keys].filter((k) => /^PS_/.test(k)))].sort();

describe('sync-engine/powersync.yaml', () => {
  it('names its deployment values through PS_ variables only', () => {
    expect(VARIAVEIS).toEqual(['PS_API_TOKEN', 'PS_DATA_SOURCE_SSLMODE', 'PS_DATA_SOURCE_URI', 'PS_JWT_SECRET', 'PS_PORT', 'PS_STORAGE_SSLMODE', 'PS_STORAGE_URI']);
  });

  it("is valid for the engine's own configuration types, with docker-compose's values and npm start's", () => {
    expect(validar(CONFIG_TEXT, ambienteCompose)).toEqual([]);
    expect(validar(CONFIG_TEXT, ambienteNpmStart)).toEqual([]);
    const { config } = carregar(CONFIG_TEXT, ambienteCompose) as { config: Record<string, any> };
    expect(config.storage.type).toBe('postgresql');
    expect(config.replication.connections[0].type).toBe('postgresql');
    expect(config.port).toBe(8080);
    expect(config.client_auth.jwks.keys[0]).toMatchObject({ kty: 'oct', alg: 'HS256', kid: 'bi-comercial' });
    expect(config.client_auth.audience).toEqual(['bi-comercial']);
    expect(existsSync(join(dirname(MOTOR_CONFIG), config.sync_config.path))).toBe(true);
  });

  it('a misspelt key, a bad value or a missing variable fails the check (mutated copies)', () => {
    const mutacoes: Array<[string, string, string]> = [
      ['\nclient_auth:', '\nclient_ath:', 'client_ath'],
      ['  audience:', '  audiance:', 'audiance'],
      ['      sslmode: !env PS_DATA_SOURCE_SSLMODE', '      sslmod: !env PS_DATA_SOURCE_SSLMODE', 'sslmod'],
      ['  uri: !env PS_STORAGE_URI', '  url: !env PS_STORAGE_URI', 'url'],
      ['  exit_on_error: true', '  exit_on_eror: true', 'exit_on_eror'],
      ['    use_http: true', '    use_htp: true', 'use_htp'],
      ['  disable_telemetry_sharing: true', '  disable_telemetry_sharing: sim', 'disable_telemetry_sharing'],
      ['\nstorage:', '\nstoragee:', 'storage'],
      ['\nport: !env PS_PORT::number', '\nport: !env PS_PORTA::number', 'PS_PORTA'],
      ['  k: !env PS_JWT_SECRET', '  k: !env JWT_SECRET', 'JWT_SECRET'],
    ];
    for (const [de, para, palavra] of mutacoes) {
      expect(CONFIG_TEXT.split(de).length, `${de} once in the file`).toBe(2);
      const erros = validar(CONFIG_TEXT.replace(de, para), ambienteCompose);
      expect(erros.length, `${de} -> ${para}`).toBeGreaterThan(0);
      expect(erros.join('\n'), `${de} -> ${para}`).toContain(palavra);
    }
    // a value the engine's Postgres module refuses
    expect(validar(CONFIG_TEXT, { ...ambienteCompose, PS_STORAGE_SSLMODE: 'require' }).join('\n')).toContain('/storage/sslmode');
    expect(validar(CONFIG_TEXT, { ...ambienteCompose, PS_PORT: 'oitenta' }).join('\n')).toContain('PS_PORT');
  });

  it("the engine's own schema alone lets a misspelt key through: why the closed check exists", () => {
    const { config } = carregar(CONFIG_TEXT.replace('\nclient_auth:', '\nclient_ath:'), ambienteCompose);
    expect(validarMotor(config)).toBe(true);
    expect(validarFechado(config)).toBe(false);
  });
});

describe("docker-compose.yml's engine service", () => {
  it('runs the official image at 1.25.x, the unified runner', () => {
    expect(engine.image).toMatch(/^journeyapps\/powersync-service:1\.25\.\d+$/);
    expect(engine.command).toEqual(['start', '-r', 'unified']);
  });

  it('sets every PS_ variable the configuration names, and no other', () => {
    expect(psDe(Object.keys(engine.environment ?? {}))).toEqual(VARIAVEIS);
    expect(VARIAVEIS.filter((v) => !String(engine.environment![v] ?? '').trim())).toEqual([]);
  });

  it('mounts the directory holding powersync.yaml and the sync rules (read-only) and points at powersync.yaml', () => {
    const montagem = (engine.volumes ?? []).map((v) => v.split(':')).find(([origem]) => origem!.replace(/\/$/, '') === './sync-engine');
    expect(montagem, JSON.stringify(engine.volumes)).toBeDefined();
    const [, destino, modo] = montagem!;
    expect(modo).toBe('ro');
    const caminho = engine.environment?.POWERSYNC_CONFIG_PATH ?? engine.command?.[engine.command.indexOf('-c') + 1];
    expect(caminho).toBe(posix.join(destino!, 'powersync.yaml'));
    const { config } = carregar(CONFIG_TEXT, ambienteCompose) as { config: { sync_config: { path: string } } };
    // the sync rules resolve next to the configuration, inside the mounted directory
    expect(posix.join(destino!, config.sync_config.path)).toBe(posix.join(destino!, 'sync-rules.yaml'));
    expect(existsSync(join(projectRoot, 'sync-engine', 'sync-rules.yaml'))).toBe(true);
  });

  it("the app points at the engine and at its storage (the reset's docstore)", () => {
    const app = COMPOSE.services.app!.environment!;
    const storage = new URL(ambienteCompose.PS_STORAGE_URI!);
    const docstore = new URL(app.REPLICATOR_DOCSTORE_URL!);
    expect(`${docstore.host}${docstore.pathname}`).toBe(`${storage.host}${storage.pathname}`);
    expect(docstore.searchParams.get('schema') ?? 'powersync').toBe('powersync');
    expect(app.SYNC_ENGINE_URL).toBe(`http://engine:${ambienteCompose.PS_PORT}`);
  });
});

describe("npm start's child engine and docs/replicacao.md", () => {
  it('npm start sets every PS_ variable the configuration names', () => {
    expect(psDe(Object.keys(ambienteNpmStart))).toEqual(VARIAVEIS);
  });

  it('docs/replicacao.md names the same PS_ variables', () => {
    expect(psDe(DOCS.match(/\bPS_[A-Z][A-Z0-9_]*/g) ?? [])).toEqual(VARIAVEIS);
  });
});
