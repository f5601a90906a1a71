#!/usr/bin/env node
// Quick-start bootstrap: plain Node, no dependencies, so it runs on a fresh clone.
// `npm start` / `npm test` / `npm run bench` call it; it installs what is missing, then hands over.
//   node scripts/bootstrap.mjs start             -> tsx src/embedded/start.ts
//   node scripts/bootstrap.mjs test              -> vitest run
//   node scripts/bootstrap.mjs bench <name> ...  -> bench/<name>.ts (docs/benchmarks.md)
import { existsSync, statSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchNames } from './bench-names.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2] ?? 'start';
const extra = process.argv.slice(3);

function log(msg) { process.stderr.write(`[bootstrap] ${msg}\n`); }

if (mode === 'bench') {
  const names = benchNames();
  if (!names.includes(extra[0] ?? '')) {
    process.stderr.write(`${extra[0] ? `unknown benchmark '${extra[0]}'. ` : ''}Usage: npm run bench -- <name> [args]\n`
      + `benchmarks (docs/benchmarks.md): ${names.join(', ')}\n`);
    process.exit(2);
  }
}

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
}

// 1. npm packages: install when node_modules is missing or older than the lock file.
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000)) {
  // the lock names every platform's optional builds (`npm run lock:refresh`), so npm ci
  // needs nothing but package.json and package-lock.json. On a machine whose own Node is
  // older than 24, npm would warn (EBADENGINE) about the project and a few packages: they run
  // on the Node 24 that this install brings (devDependency "node"), not on the machine's, so
  // the engine check is off and npm prints errors only (its warnings are not the newcomer's).
  const ownMajor = Number(process.versions.node.split('.')[0]);
  if (ownMajor < 24) {
    log(`installing npm packages (npm ci); this machine's Node is ${process.version}: the project runs on the Node 24 it installs…`);
    run('npm', ['ci', '--no-audit', '--no-fund', '--engine-strict=false', '--loglevel=error']);
  } else {
    log('installing npm packages (npm ci)…');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
}

// 2. Debian packages, only when we start our own cluster.
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
// the benchmarks start their clusters as the tests do (test/harness/cluster.ts)
const needsOwnCluster = mode === 'start' ? !process.env.DATABASE_URL : !process.env.TEST_DATABASE_URL;
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

// 3. Hand over, on Node 24: the devDependency `node` installs a Node 24 binary in
// node_modules/.bin (first on the PATH of npm scripts, but this script may have been
// started by the machine's older Node before node_modules existed). The entry points
// are run by that binary explicitly, not through their `#!/usr/bin/env node` line.
// Signals go to the child; its exit code is ours.
const nodeBin = join(root, 'node_modules', '.bin', 'node');
const node = existsSync(nodeBin) ? nodeBin : process.execPath;
const version = execFileSync(node, ['-p', 'process.versions.node']).toString().trim();
const major = Number(version.split('.')[0]);
if (mode === 'bench') log(`bench ${extra[0]} on Node ${version}`);
if (major < 24) log(`aviso: Node ${major} em uso; o projeto requer Node 24 (devDependency "node")`);
const entry = (pkg, file) => join(root, 'node_modules', pkg, file);
const [cmd, args] = mode === 'test'
  ? [node, [entry('vitest', 'vitest.mjs'), 'run', ...extra]]
  : mode === 'bench'
    // tsx as a loader (not its CLI): a bench's child processes started with
    // process.execPath + process.execArgv run on the same Node with the same loader
    ? [node, ['--import', 'tsx', join('bench', `${extra[0]}.ts`), ...extra.slice(1)]]
    // start: tsx as a loader too, the service in this child itself. tsx's CLI would run it in
    // a grandchild and, on Ctrl-C, SIGKILL it (exit 130) when it did not acknowledge the
    // signal within ~60 ms — a service busy for that long at that instant (a boot's jobs, a
    // merge) was killed instead of shutting down.
    : [node, ['--import', 'tsx', 'src/embedded/start.ts', ...extra]];
// PATH: node_modules/.bin first, so that whatever the child spawns by name (node, tsc,
// dbmate) is the project's
const PATH = `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`;
const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, PATH } });
// A terminal's Ctrl-C reaches the child directly (same process group); a signal sent to
// this process alone is passed on. The service treats a repeat within 2 s as the same one.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
