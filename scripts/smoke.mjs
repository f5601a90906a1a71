#!/usr/bin/env node
// The post-deploy smoke check: npm run smoke -- <base_url> [--commit <sha>]
// Plain Node (18+), no dependencies. Checks, against a running service:
//   1. GET /health answers 200 {status: UP} with the expected commit (--commit, else
//      SMOKE_EXPECTED_COMMIT, else GIT_COMMIT, else this checkout's `git rev-parse HEAD`);
//   2. POST /smoke/session with X-Smoke-Token: $SMOKE_SESSION_TOKEN gives a session, and a
//      screen (/processamentos) answers 200 HTML with it;
//   3. /api/comercial/processamentos without a Bearer answers 401;
//   4. a screen without a session answers 302 (to the login).
// Prints one line per check; exits 0 when all pass, 1 otherwise (2 on bad usage).
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : undefined; };
const base = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--commit');
if (!base || !/^https?:\/\//.test(base)) {
  process.stderr.write('uso: npm run smoke -- <url_base> [--commit <sha>]   (com SMOKE_SESSION_TOKEN no ambiente)\n');
  process.exit(2);
}
const root = base.replace(/\/+$/, '');
let expected = flag('commit') ?? process.env.SMOKE_EXPECTED_COMMIT ?? process.env.GIT_COMMIT;
if (!expected) {
  try { expected = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { /* none */ }
}
const token = process.env.SMOKE_SESSION_TOKEN;
const timeoutMs = Number(process.env.SMOKE_TIMEOUT_MS ?? 10_000);

let failures = 0;
function report(ok, name, detail) {
  if (!ok) failures += 1;
  process.stdout.write(`${ok ? 'ok   ' : 'FALHA'} ${name}${detail ? ` — ${detail}` : ''}\n`);
}
const get = (path, headers = {}, method = 'GET') =>
  fetch(`${root}${path}`, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });

async function check(name, fn) {
  try {
    const [ok, detail] = await fn();
    report(ok, name, detail);
  } catch (err) {
    report(false, name, err instanceof Error ? err.message : String(err));
  }
}

await check('GET /health: UP e commit esperado', async () => {
  const res = await get('/health');
  const body = await res.json().catch(() => null);
  if (res.status !== 200 || body?.status !== 'UP') return [false, `${res.status} ${JSON.stringify(body)}`];
  if (!expected) return [false, `commit ${body.commit}: nenhum commit esperado (use --commit, SMOKE_EXPECTED_COMMIT ou GIT_COMMIT)`];
  return [body.commit === expected, `commit ${body.commit}${body.commit === expected ? '' : `, esperado ${expected}`}`];
});

await check('POST /smoke/session e uma tela com a sessão', async () => {
  if (!token) return [false, 'SMOKE_SESSION_TOKEN não definida'];
  const res = await get('/smoke/session', { 'x-smoke-token': token }, 'POST');
  if (res.status !== 201) return [false, `POST /smoke/session: ${res.status} ${(await res.text()).slice(0, 200)}`];
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  if (!cookies) return [false, 'POST /smoke/session não devolveu cookie de sessão'];
  const tela = await get('/processamentos', { cookie: cookies, accept: 'text/html' });
  const html = (tela.headers.get('content-type') ?? '').includes('text/html');
  return [tela.status === 200 && html, `GET /processamentos com a sessão: ${tela.status} ${tela.headers.get('content-type') ?? ''}`];
});

await check('/api sem Bearer: 401', async () => {
  const res = await get('/api/comercial/processamentos');
  return [res.status === 401, String(res.status)];
});

await check('tela sem sessão: 302', async () => {
  const res = await get('/processamentos', { accept: 'text/html' });
  return [res.status === 302, `${res.status}${res.headers.get('location') ? ` -> ${res.headers.get('location')}` : ''}`];
});

process.stdout.write(failures === 0 ? 'smoke: tudo certo\n' : `smoke: ${failures} verificação(ões) falharam\n`);
process.exit(failures === 0 ? 0 : 1);
