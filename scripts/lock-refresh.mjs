#!/usr/bin/env node
// `npm run lock:refresh`: rebuilds package-lock.json from package.json so that `npm ci`
// passes on any platform with only package.json + package-lock.json (what the Dockerfile
// copies). Plain Node, no dependencies.
//
//   1. deletes the lock and resolves it again from package.json alone
//      (`npm install --package-lock-only --ignore-scripts`: node_modules is not read, so
//      a partial tree cannot leave other platforms' packages out of the lock);
//   2. completes the lock: every optional dependency that a package names with an exact
//      version (the per-platform binaries of dbmate, rollup, esbuild...) gets its entry.
//      npm leaves such an entry out when the registry it resolved against has no build of
//      that platform at that version (the registry mirror of the development machines
//      does not carry every platform), and npm 11's `npm ci` then refuses the whole lock
//      ("Missing: @dbmate/darwin-arm64@ from lock file"). The entry added carries the
//      version, os/cpu/libc read from the package's name (so npm skips it on other
//      platforms without asking the registry) and no integrity (the registry's is used);
//   3. checks the result with `npm ci --dry-run` in an empty directory.
//
//   node scripts/lock-refresh.mjs            # steps 1 to 3
//   node scripts/lock-refresh.mjs --complete # step 2 and 3 only (keep the resolved versions)
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockFile = join(root, 'package-lock.json');
const log = (msg) => process.stderr.write(`[lock] ${msg}\n`);
const npm = (args, cwd) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['x64', 'arm64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el', 'wasm32'];

/** os/cpu/libc of a per-platform package, from its name (`@rollup/rollup-linux-arm-musleabihf`). */
export function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => OS.includes(t));
  const cpu = tokens.find((t) => CPU.includes(t));
  if (!os || !cpu) return null;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') {
    if (tokens.some((t) => t.startsWith('musl'))) entry.libc = ['musl'];
    else if (tokens.some((t) => t.startsWith('gnu'))) entry.libc = ['glibc'];
  }
  return entry;
}

/** Adds the missing per-platform optional entries; returns their paths. */
export function completeLock(lock) {
  const pkgs = lock.packages;
  const added = [];
  for (const [path, meta] of Object.entries(pkgs)) {
    if (!path || !meta.optionalDependencies) continue;
    for (const [name, spec] of Object.entries(meta.optionalDependencies)) {
      // resolved the way Node does: nested first, then each ancestor's node_modules
      let found = false;
      for (let base = path; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
        if (pkgs[`${base ? `${base}/` : ''}node_modules/${name}`]) { found = true; break; }
        if (!base) break;
      }
      if (found) continue;
      const platform = platformOf(name);
      if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) {
        throw new Error(`${path} names optional ${name}@${spec}, absent from the lock and not a per-platform build with an exact version: resolve it on a machine whose registry has it`);
      }
      // the dependency flags of a sibling build npm did record (same parent, same edge)
      const sibling = Object.keys(meta.optionalDependencies).map((n) => pkgs[`node_modules/${n}`] ?? pkgs[`${path}/node_modules/${n}`])
        .find((m) => m && m.optional);
      const flags = sibling
        ? Object.fromEntries(['dev', 'optional', 'devOptional', 'peer'].filter((f) => sibling[f]).map((f) => [f, true]))
        : { ...(meta.dev ? { dev: true } : {}), optional: true };
      const target = pkgs[`node_modules/${name}`] ? `${path}/node_modules/${name}` : `node_modules/${name}`;
      pkgs[target] = { version: spec, ...flags, ...platform };
      added.push(target);
    }
  }
  lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
  return added;
}

/** `npm ci --dry-run` on package.json + package-lock.json alone; throws with npm's output. */
export function checkLock(dir = root) {
  const tmp = mkdtempSync(join(tmpdir(), 'bi-lock-'));
  try {
    copyFileSync(join(dir, 'package.json'), join(tmp, 'package.json'));
    copyFileSync(join(dir, 'package-lock.json'), join(tmp, 'package-lock.json'));
    npm(['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const isEntry = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isEntry) {
  try {
    if (!process.argv.includes('--complete')) {
      log('resolving package-lock.json again from package.json…');
      if (existsSync(lockFile)) rmSync(lockFile);
      npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], root);
    }
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    const added = completeLock(lock);
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
    log(added.length ? `${added.length} per-platform entries completed: ${added.map((p) => p.replace(/^.*node_modules\//, '')).join(', ')}` : 'no entry missing');
    checkLock();
    log('npm ci --dry-run on package.json + package-lock.json alone: ok');
  } catch (err) {
    log(String(err.stderr || err.message || err));
    process.exit(1);
  }
}
