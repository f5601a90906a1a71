/**
 * The image, without a Docker engine: the Dockerfile's own steps replayed in a temporary
 * directory (test/harness/dockerfile.ts): its COPY lines copy exactly what they name from
 * the build context, its RUN lines run there (npm ci on package.json + package-lock.json
 * alone, the build, the prune), then the service boots the way CMD says, with the image's
 * ENV, against a test database, and answers /health and the image's HEALTHCHECK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { freePort } from '../../src/embedded/postgres.js';
import { commandOf, parseDockerfile, replayDockerfile, type ReplayedStage } from '../harness/dockerfile.js';

const API_TOKEN = 'token-da-imagem-0123456789';

describe('Dockerfile parsing', () => {
  it('reads stages, continuations and the exec form', () => {
    const stages = parseDockerfile('# syntax=docker/dockerfile:1\nFROM a:1 AS build\nRUN x \\\n  && y\nFROM b\nCMD ["node", "m.js"]\n');
    expect(stages.map((s) => [s.from, s.name])).toEqual([['a:1', 'build'], ['b', null]]);
    expect(stages[0]!.instructions[0]).toMatchObject({ op: 'RUN', args: 'x  && y' });
    expect(commandOf(stages[1]!.instructions[0]!.args)).toEqual(['node', 'm.js']);
  });

  it('refuses a COPY of a file the context does not have', () => {
    const work = mkdtempSync(join(tmpdir(), 'bi-replay-'));
    try {
      const ctx = mkdtempSync(join(tmpdir(), 'bi-ctx-'));
      const df = join(ctx, 'Dockerfile');
      writeFileSync(df, 'FROM node:24\nWORKDIR /app\nCOPY patches ./patches\n');
      expect(() => replayDockerfile({ context: ctx, workRoot: work, basePath: process.env.PATH ?? '' }))
        .toThrow(/line 3 \(COPY\): patches does not exist in the build context/);
      rmSync(ctx, { recursive: true, force: true });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('the image, replayed', () => {
  let db: TestDatabase;
  let work: string;
  let stages: ReplayedStage[];

  beforeAll(async () => {
    db = await createTestDatabase();
    work = mkdtempSync(join(tmpdir(), 'bi-image-'));
    // the base image node:24 is this Node 24 (and its npm)
    const basePath = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
    stages = replayDockerfile({ context: projectRoot, workRoot: work, basePath });
  }, 900_000);

  afterAll(async () => {
    await db?.drop();
    if (work) await promisify(execFile)('rm', ['-rf', work]);
  }, 300_000);

  it('the build stage copied only what its COPY lines name, and built dist/ with production packages only', () => {
    const [build, runtime] = [stages[0]!, stages.at(-1)!];
    expect(build.fromContext).toEqual(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src']);
    expect(existsSync(join(runtime.workdir, 'dist', 'src', 'main.js'))).toBe(true);
    expect(existsSync(join(runtime.workdir, 'node_modules', 'fastify'))).toBe(true);
    expect(existsSync(join(runtime.workdir, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(runtime.workdir, 'test'))).toBe(false);
    expect(runtime.user).toBe('node');
    expect(runtime.env.GIT_COMMIT).toBe('');
  });

  it('boots the way CMD says against the test database: /health (commit null) and the HEALTHCHECK answer', async () => {
    const runtime = stages.at(-1)!;
    expect(runtime.cmd).toEqual(['node', 'dist/src/main.js']);
    const port = await freePort();
    const env = {
      ...runtime.env,
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      BI_COMERCIAL_XLS_API_TOKEN: API_TOKEN,
      S3_FILE_STORAGE: 'PSQL',
      LOG_LEVEL: 'warn',
      // a cloned test database: pg_cron serves the cluster's bi_cron database only
      PG_CRON_OBRIGATORIO: 'false',
    };
    const [cmd, ...args] = runtime.cmd!;
    const child = spawn(cmd === 'node' ? process.execPath : cmd!, args, { cwd: runtime.workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 60_000;
      let health: Response | null = null;
      while (!health) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`a imagem não subiu:\n${out}`);
        health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
        if (!health) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health.status).toBe(200);
      const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
      expect(await health.json()).toEqual({ status: 'UP', versao: version, commit: null });
      const api = await fetch(`http://127.0.0.1:${port}/api/comercial/processamentos`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
      expect(api.status).toBe(200);

      const [hcmd, ...hargs] = runtime.healthcheck!;
      const hc = spawn(hcmd === 'node' ? process.execPath : hcmd!, hargs, { env, stdio: 'ignore' });
      expect(await new Promise((r) => hc.on('exit', r))).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);
});
