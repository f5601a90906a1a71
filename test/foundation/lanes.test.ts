// @lane unit
/**
 * Test lanes (test/harness/lanes.ts): every test file is in one of unit, db, service or
 * engine, found from its imports; a run of unit files alone starts no database; without
 * SYNC_ENGINE_CMD the engine lane is left out and the run says so in one line.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Vitest } from 'vitest/node';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { countTests, laneOf, lanes, selectedBy, testFiles } from '../harness/lanes.js';
import { MotorAusente, linhaSemMotor } from '../harness/motor-ausente.js';

describe('test lanes', () => {
  it('puts every test file in exactly one lane, by what it uses', () => {
    const all = lanes(projectRoot);
    expect([...all.unit, ...all.db, ...all.service, ...all.engine].sort()).toEqual(testFiles(projectRoot).sort());
    expect(laneOf(projectRoot, 'test/xlsx/cells.test.ts')).toBe('unit');
    expect(laneOf(projectRoot, 'test/xls-sql/merge.test.ts')).toBe('db');
    expect(laneOf(projectRoot, 'test/foundation/quickstart.test.ts')).toBe('service');
    expect(laneOf(projectRoot, 'test/deploy/dockerfile.test.ts')).toBe('service');
    expect(laneOf(projectRoot, 'test/foundation/lanes.test.ts')).toBe('unit');
    expect(laneOf(projectRoot, 'test/foundation/runtime.test.ts')).toBe('unit');
    // the real sync engine (test/harness/motor), though it uses the cluster too
    expect(laneOf(projectRoot, 'test/motor/importacoes.test.ts')).toBe('engine');
    expect(all.engine.length).toBeGreaterThan(0);
    expect(all.engine.every((f) => f.startsWith('test/motor/'))).toBe(true);
  });

  it('counts the tests a run without the engine leaves out, and which files a run\'s filters select', () => {
    const raiz = mkdtempSync(join(tmpdir(), 'bi-lanes-'));
    mkdirSync(join(raiz, 'test'));
    // a focused test among them counts too (its modifier assembled here, so that no focused
    // test appears in the repository's own text)
    const focado = ['it', 'only'].join('.');
    writeFileSync(join(raiz, 'test', 'x.test.ts'), `// it('a comment')\ndescribe('d', () => {\n  it('a', () => {});\n  test('b', () => {});\n  ${focado}('c', () => {});\n  expect(fit(1)).toBe(1);\n});\n`);
    expect(countTests(raiz, ['test/x.test.ts'])).toBe(3);
    expect(selectedBy(projectRoot, 'test/motor/importacoes.test.ts', [])).toBe(true);
    expect(selectedBy(projectRoot, 'test/motor/importacoes.test.ts', ['test/motor'])).toBe(true);
    expect(selectedBy(projectRoot, 'test/motor/importacoes.test.ts', ['./test/motor/'])).toBe(true);
    expect(selectedBy(projectRoot, 'test/motor/importacoes.test.ts', ['importacoes'])).toBe(true);
    expect(selectedBy(projectRoot, 'test/motor/importacoes.test.ts', ['test/xlsx', 'test/pipeline'])).toBe(false);
    expect(linhaSemMotor(9)).toBe('motor de sincronização: 9 testes de ponta a ponta não rodaram (SYNC_ENGINE_CMD não definida)');
    expect(linhaSemMotor(1)).toBe('motor de sincronização: 1 teste de ponta a ponta não rodou (SYNC_ENGINE_CMD não definida)');
  });

  it('the notice: a whole run (no filter) prints it once; a run of other files or another project does not', () => {
    const arquivos = lanes(projectRoot).engine;
    const linhas = (filenamePattern: string[] | undefined, project: string[] = []): string[] => {
      const escrito: string[] = [];
      const espia = vi.spyOn(process.stdout, 'write').mockImplementation((t: string | Uint8Array) => { escrito.push(String(t)); return true; });
      try {
        const r = new MotorAusente(projectRoot, arquivos);
        r.onInit({ config: { project }, filenamePattern } as unknown as Vitest);
        r.onTestRunEnd();
      } finally {
        espia.mockRestore();
      }
      return escrito;
    };
    const linha = `${linhaSemMotor(countTests(projectRoot, arquivos))}\n`;
    expect(linhas(undefined)).toEqual([linha]);
    expect(linhas(['test/motor/'], ['engine'])).toEqual([linha]);
    expect(linhas(['test/xlsx'])).toEqual([]);
    expect(linhas(undefined, ['unit', 'db'])).toEqual([]);
    expect(linhas(['importacoes'])).toEqual([`${linhaSemMotor(countTests(projectRoot, arquivos.filter((f) => f.includes('importacoes'))))}\n`]);
  });

  /** vitest run with `args`, no engine, an unreachable database: its output and exit code. */
  async function vitestSemMotor(args: string[]): Promise<{ out: string; code: unknown }> {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
      cwd: projectRoot,
      env: { ...process.env, SYNC_ENGINE_CMD: '', TEST_DATABASE_URL: 'postgres://ninguem@127.0.0.1:1/nada', TEST_DOCKER: '0', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const code = await new Promise((r) => child.on('exit', r));
    return { out, code };
  }

  it('a unit file alone starts no database (an unreachable TEST_DATABASE_URL is never used)', async () => {
    const { out, code } = await vitestSemMotor(['test/xlsx/cells.test.ts']);
    expect(out).toMatch(/Test Files\s+1 passed/);
    expect(out).not.toContain('motor de sincronização');
    expect(code).toBe(0);
  }, 60_000);

  it('without SYNC_ENGINE_CMD, a run that selects the engine lane leaves it out and says in one line how many tests did not run', async () => {
    const { out, code } = await vitestSemMotor(['test/xlsx/cells.test.ts', 'test/motor/']);
    const motor = lanes(projectRoot).engine;
    expect(out.split('\n').filter((l) => l.includes('motor de sincronização'))).toEqual([linhaSemMotor(countTests(projectRoot, motor))]);
    expect(countTests(projectRoot, motor)).toBeGreaterThanOrEqual(motor.length);
    expect(out).toMatch(/Test Files\s+1 passed \(1\)/);
    expect(out).not.toMatch(/skipped/);
    expect(code).toBe(0);
  }, 60_000);
});
