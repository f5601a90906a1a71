#!/usr/bin/env node
// Quick-start bootstrap: plain Node, no dependencies, so it runs on a fresh clone.
// `npm start` / `npm test` call it; it installs what is missing, then hands over.
//   node scripts/bootstrap.mjs start   -> tsx src/embedded/start.ts
//   node scripts/bootstrap.mjs test    -> vitest run
import { existsSync, statSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2] ?? 'start';
const extra = process.argv.slice(3);

function log(msg) { process.stderr.write(`[bootstrap] ${msg}\n`); }

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
}

// 1. npm packages: install when node_modules is missing or older than the lock file.
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000)) {
  log('installing npm packages (npm ci)…');
  try {
    run('npm', ['ci', '--no-audit', '--no-fund']);
  } catch {
    // npm 11 may record a lock without other platforms' optional packages and then
    // refuse `npm ci`; install from package.json + lock without rewriting them.
    log('npm ci refused the lock file; falling back to npm install --no-save');
    run('npm', ['install', '--no-save', '--no-audit', '--no-fund']);
  }
}

// 2. Debian packages, only when we start our own cluster.
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const needsOwnCluster = mode === 'test' ? !process.env.TEST_DATABASE_URL : !process.env.DATABASE_URL;
const missing = [];
if (needsOwnCluster) {
  let pkglib = '/usr/lib/postgresql/15/lib';
  try {
    pkglib = execFileSync('/usr/lib/postgresql/15/bin/pg_config', ['--pkglibdir']).toString().trim();
  } catch { /* keep the Debian default */ }
  if (!existsSync('/usr/lib/postgresql/15/bin/postgres')) missing.push('postgresql-15');
  if (!existsSync(join(pkglib, 'pg_cron.so'))) missing.push('postgresql-15-cron');
}
// The browser tests (test/web/navegador.test.ts) drive Debian's chromium: no browser is
// installed until a run selects them (the whole suite, or a filter naming that file/folder).
const filters = extra.filter((a) => !a.startsWith('-'));
const browserTests = 'test/web/navegador.test.ts';
const needsBrowser = mode === 'test' && (filters.length === 0
  || filters.some((f) => browserTests.includes(f.replace(/^\.\//, '').replace(/\/$/, '')) || f.includes('navegador')));
if (needsBrowser && !existsSync('/usr/bin/chromium')) missing.push('chromium');
if (missing.length > 0) {
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (!isRoot) {
    log(`missing Debian packages: ${missing.join(', ')}. Run as root:\n\n  sudo sh -c '${cmd}'\n`);
    process.exit(1);
  }
  log(`installing Debian packages: ${missing.join(', ')}…`);
  run('sh', ['-c', `DEBIAN_FRONTEND=noninteractive ${cmd}`]);
}

// 3. Hand over. Signals go to the child; its exit code is ours.
const bin = (name) => join(root, 'node_modules', '.bin', name);
const [cmd, args] = mode === 'test'
  ? [bin('vitest'), ['run', ...extra]]
  : [bin('tsx'), ['src/embedded/start.ts', ...extra]];
const child = spawn(cmd, args, { stdio: 'inherit', cwd: root });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
