/**
 * `npm run celular` (src/celular/cli.ts): its arguments, where it takes the engine's URL and
 * key from, and its refusals — one pt-BR line and an exit code, never a stack trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths.js';
import { executar, lerArgumentos, lerConfiguracao, Recusa, SAIDA } from '../../src/celular/cli.js';

const run = promisify(execFile);
const SEGREDO = Buffer.alloc(32, 7).toString('base64url');
const pastas: string[] = [];
afterEach(() => { for (const p of pastas.splice(0)) rmSync(p, { recursive: true, force: true }); });
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'bi-celular-cli-'));
  pastas.push(d);
  return d;
}

function recusa(f: () => unknown): Recusa {
  try { f(); } catch (e) { if (e instanceof Recusa) return e; throw e; }
  throw new Error('não recusou');
}

/** A port nobody listens on (taken and released). */
async function portaFechada(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const porta = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return porta;
}

async function capturar(argv: string[], env: NodeJS.ProcessEnv): Promise<{ codigo: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const codigo = await executar(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { codigo, out, err };
}

describe('arguments', () => {
  it('defaults: usuario suporte, a single look, 120 s', () => {
    expect(lerArgumentos([])).toEqual({ usuario: 'suporte', seguir: false, json: false, limiteS: 120, ajuda: false });
  });

  it('reads --usuario X, --usuario=X, --seguir, --json, --limite', () => {
    expect(lerArgumentos(['--usuario', 'ana.souza', '--seguir'])).toMatchObject({ usuario: 'ana.souza', seguir: true });
    expect(lerArgumentos(['--usuario=bruno@filial', '--json', '--limite', '30'])).toMatchObject({ usuario: 'bruno@filial', json: true, limiteS: 30 });
    expect(lerArgumentos(['--ajuda']).ajuda).toBe(true);
  });

  it('refuses, with exit 2 and the usage: an unknown flag, a missing value, a bad user or limit, --seguir with --json', () => {
    const r = recusa(() => lerArgumentos(['--bogus']));
    expect(r.codigo).toBe(SAIDA.uso);
    expect(r.message).toMatch(/^argumento desconhecido: --bogus\nuso: npm run celular/);
    expect(recusa(() => lerArgumentos(['--usuario'])).message).toMatch(/^--usuario precisa de um valor/);
    expect(recusa(() => lerArgumentos(['--usuario', '--json'])).message).toMatch(/^--usuario precisa de um valor/);
    expect(recusa(() => lerArgumentos(['--usuario', '../../etc/x'])).message).toMatch(/^usuário inválido/);
    expect(recusa(() => lerArgumentos(['--limite', '0'])).message).toMatch(/^--limite deve ser/);
    expect(recusa(() => lerArgumentos(['--json=1'])).message).toMatch(/^--json não recebe valor/);
    expect(recusa(() => lerArgumentos(['--seguir', '--json'])).message).toMatch(/^--seguir e --json não combinam/);
    expect(recusa(() => lerArgumentos(['suporte'])).message).toMatch(/^argumento desconhecido: suporte/);
  });
});

describe('settings', () => {
  it('from the environment first; the phone file under APP_DATA_DIR/celular', () => {
    const d = dataDir();
    const cfg = lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'http://motor:8080/', SYNC_ENGINE_JWT_SECRET: SEGREDO }, 'ana');
    expect(cfg).toEqual({ url: 'http://motor:8080', segredo: SEGREDO, arquivo: join(d, 'celular', 'ana.db') });
  });

  it("else npm start's development values: .data/motor-url and dev-secrets.json", () => {
    const d = dataDir();
    writeFileSync(join(d, 'motor-url'), 'http://127.0.0.1:8089\n');
    writeFileSync(join(d, 'dev-secrets.json'), JSON.stringify({ BI_COMERCIAL_XLS_API_TOKEN: 'dev-x', SYNC_ENGINE_JWT_SECRET: SEGREDO }));
    expect(lerConfiguracao({ APP_DATA_DIR: d }, 'suporte')).toEqual({ url: 'http://127.0.0.1:8089', segredo: SEGREDO, arquivo: join(d, 'celular', 'suporte.db') });
    // the environment wins over the files; without APP_DATA_DIR, the repository's .data/
    expect(lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'https://motor.exemplo' }, 'suporte').url).toBe('https://motor.exemplo');
    expect(lerConfiguracao({ SYNC_ENGINE_URL: 'http://m', SYNC_ENGINE_JWT_SECRET: SEGREDO }, 'suporte').arquivo).toBe(join(projectRoot, '.data', 'celular', 'suporte.db'));
  });

  it('refuses with exit 78 and what to set: no URL, a bad URL, no key, a key that is not base64url', () => {
    const d = dataDir();
    const semUrl = recusa(() => lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_JWT_SECRET: SEGREDO }, 'x'));
    expect(semUrl.codigo).toBe(SAIDA.config);
    expect(semUrl.message).toMatch(/^SYNC_ENGINE_URL não definida e .*motor-url não existe: defina SYNC_ENGINE_URL/);
    expect(recusa(() => lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'motor:8080', SYNC_ENGINE_JWT_SECRET: SEGREDO }, 'x')).message).toMatch(/^URL do motor inválida/);
    const semChave = recusa(() => lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'http://motor' }, 'x'));
    expect(semChave.codigo).toBe(SAIDA.config);
    expect(semChave.message).toMatch(/^sem a chave do motor: SYNC_ENGINE_JWT_SECRET não definida e .*dev-secrets\.json não a tem/);
    writeFileSync(join(d, 'dev-secrets.json'), JSON.stringify({ BI_COMERCIAL_XLS_API_TOKEN: 'dev-x' }));
    expect(recusa(() => lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'http://motor' }, 'x')).message).toMatch(/^sem a chave do motor/);
    expect(recusa(() => lerConfiguracao({ APP_DATA_DIR: d, SYNC_ENGINE_URL: 'http://motor', SYNC_ENGINE_JWT_SECRET: 'não é base64!' }, 'x')).message)
      .toMatch(/^SYNC_ENGINE_JWT_SECRET inválida/);
  });
});

describe('the command', () => {
  it('--ajuda prints the usage and exits 0', async () => {
    const r = await capturar(['--ajuda'], {});
    expect(r.codigo).toBe(0);
    expect(r.out.join('\n')).toMatch(/^uso: npm run celular -- \[--usuario X\] \[--seguir \| --json\]/);
  });

  it('an engine that does not answer: exit 69, one line naming the URL', async () => {
    const d = dataDir();
    const url = `http://127.0.0.1:${await portaFechada()}`;
    const r = await capturar(['--json'], { APP_DATA_DIR: d, SYNC_ENGINE_URL: url, SYNC_ENGINE_JWT_SECRET: SEGREDO });
    expect(r.codigo).toBe(SAIDA.motor);
    expect(r.out).toEqual([]); // --json: nothing on stdout unless it is the object
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(new RegExp(`^celular: motor de sincronização inacessível em ${url.replace(/[.]/g, '\\.')} \\(`));
  });

  it('the real entry point: exit code and one message, no stack trace (unknown flag; no key)', async () => {
    const d = dataDir();
    mkdirSync(d, { recursive: true });
    const entrada = (args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', 'src/celular/cli.ts', ...args], {
      cwd: projectRoot, env: { PATH: process.env.PATH, APP_DATA_DIR: d, ...env },
    }).then(() => ({ code: 0, stderr: '', stdout: '' }), (e: { code: number; stderr: string; stdout: string }) => e);
    const [desconhecido, semChave] = await Promise.all([
      entrada(['--bogus'], {}),
      entrada(['--json'], { SYNC_ENGINE_URL: 'http://127.0.0.1:9' }),
    ]);
    expect(desconhecido.code).toBe(2);
    expect(desconhecido.stderr).toMatch(/^argumento desconhecido: --bogus\n/);
    expect(semChave.code).toBe(78);
    expect(semChave.stderr.trim()).toMatch(/^sem a chave do motor: SYNC_ENGINE_JWT_SECRET não definida/);
    expect(semChave.stdout).toBe('');
    for (const e of [desconhecido, semChave]) expect(e.stderr).not.toMatch(/\n\s+at /);
  });
});
