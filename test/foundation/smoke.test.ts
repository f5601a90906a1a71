/**
 * `npm run smoke -- <base_url>`, the post-deploy smoke check, against a running service
 * (login enabled, as deployed): passes with the right commit and token; each broken
 * expectation fails it with exit 1, naming the check.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import { oidcEnv, SMOKE_TOKEN } from '../web/helpers.js';
import { startService, type RunningService } from '../../src/main.js';
import { projectRoot } from '../../src/paths.js';

const run = promisify(execFile);
let db: TestDatabase;
let svc: RunningService;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  svc = await startService(testEnv(db, { ...oidcEnv(), SMOKE_SESSION_TOKEN: SMOKE_TOKEN, GIT_COMMIT: 'abc123def' }), { migrate: false });
  base = svc.url;
});
afterAll(async () => {
  await svc?.stop();
  await db?.drop();
});

async function smoke(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return run('npm', ['run', '--silent', 'smoke', '--', ...args], { cwd: projectRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } })
    .then((r) => ({ code: 0, out: r.stdout }), (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }));
}

describe('npm run smoke', () => {
  it('passes against the service with the expected commit and the smoke token', async () => {
    const r = await smoke([base, '--commit', 'abc123def'], { SMOKE_SESSION_TOKEN: SMOKE_TOKEN });
    expect(r.out).toContain('ok    GET /health: UP e commit esperado — commit abc123def');
    expect(r.out).toContain('ok    POST /smoke/session e uma tela com a sessão — GET /processamentos com a sessão: 200 text/html');
    expect(r.out).toContain('ok    /api sem Bearer: 401');
    expect(r.out).toMatch(/ok {4}tela sem sessão: 302 — 302 -> \/login/);
    expect(r.code).toBe(0);
  });

  it('fails on another commit, on a wrong token, and says which check', async () => {
    const commit = await smoke([base], { SMOKE_SESSION_TOKEN: SMOKE_TOKEN, SMOKE_EXPECTED_COMMIT: 'outro' });
    expect(commit.code).toBe(1);
    expect(commit.out).toContain('FALHA GET /health: UP e commit esperado — commit abc123def, esperado outro');
    expect(commit.out).toContain('smoke: 1 verificação(ões) falharam');
    const token = await smoke([base, '--commit', 'abc123def'], { SMOKE_SESSION_TOKEN: 'errado' });
    expect(token.code).toBe(1);
    expect(token.out).toContain('FALHA POST /smoke/session e uma tela com a sessão — POST /smoke/session: 401');
    expect((await smoke(['nao-e-url'])).code).toBe(2);
  });

  it('fails when the service is down', async () => {
    const r = await smoke(['http://127.0.0.1:9', '--commit', 'x'], { SMOKE_SESSION_TOKEN: SMOKE_TOKEN, SMOKE_TIMEOUT_MS: '2000' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('smoke: 4 verificação(ões) falharam');
  });
});
