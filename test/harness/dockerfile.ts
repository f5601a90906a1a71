/**
 * Replays a Dockerfile without a Docker engine: its stages (FROM … AS), ARG, ENV, WORKDIR,
 * COPY (from the build context, honouring .dockerignore, or --from an earlier stage), RUN,
 * USER, VOLUME and CMD, each stage in a directory of its own that stands for the image's
 * root. What it cannot reproduce, it states:
 * - the base image is the host (the `node:24` of the FROM lines is this Node 24, which the
 *   RUN lines find first on the PATH, with npm);
 * - absolute paths of the image outside the system directories (`/app`, `/data`) are
 *   mapped into the stage's directory, in RUN lines and in ENV values;
 * - the image's users are the current user (`chown node:node` changes nothing);
 * - RUN lines get the host's network settings (hostNetwork: CA bundle, proxies, npm's
 *   configuration files), as a build on this machine gets them.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';

export interface Instruction { op: string; args: string; line: number }
export interface Stage { name: string | null; from: string; instructions: Instruction[] }

/** Instructions by stage; line continuations joined, comments and parser directives dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i += 1;
      const next = lines[i]!;
      line = line.replace(/\\\s*$/, ' ') + (/^\s*#/.test(next) ? '' : next.trim());
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${line}`);
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === 'FROM') {
      const f = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!f) throw new Error(`Dockerfile line ${start + 1}: FROM ${args}`);
      stages.push({ from: f[1]!, name: f[2] ?? null, instructions: [] });
    } else {
      if (!stages.length) {
        if (op === 'ARG') continue; // a global ARG before the first FROM
        throw new Error(`Dockerfile line ${start + 1}: ${op} before FROM`);
      }
      stages.at(-1)!.instructions.push({ op, args, line: start + 1 });
    }
  }
  return stages;
}

/** `k=v k2="v 2"` (ENV, ARG) into pairs. */
export function parseAssignments(args: string): Array<[string, string | undefined]> {
  const out: Array<[string, string | undefined]> = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)(?:=("(?:[^"\\]|\\.)*"|'[^']*'|\S*))?/g;
  for (let m = re.exec(args); m; m = re.exec(args)) {
    let v = m[2];
    if (v !== undefined && /^["']/.test(v)) v = v.slice(1, -1);
    out.push([m[1]!, v]);
  }
  return out;
}

function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, a: string | undefined, def: string | undefined, b: string | undefined) => vars[(a ?? b)!] || def || '');
}

/** The exec form (`["node", "x.js"]`) or the shell form of CMD/ENTRYPOINT/HEALTHCHECK CMD. */
export function commandOf(args: string): string[] {
  const t = args.trim();
  return t.startsWith('[') ? (JSON.parse(t) as string[]) : ['sh', '-c', t];
}

/** A minimal .dockerignore: one pattern a line, `*` within a path segment, leading `/` ignored. */
export function dockerignore(context: string): (rel: string) => boolean {
  const file = join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    : [];
  const res = patterns.map((p) => new RegExp(`^${p.replace(/^\//, '').replace(/\/$/, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`));
  return (rel) => res.some((r) => r.test(rel));
}

/**
 * The host's network settings, passed to RUN lines as a build on this machine would get
 * them (build args): CA bundle, proxies, and npm's configuration files (registry, cafile).
 * Nothing else of the host's environment leaks in (no npm_config_local_prefix, which would
 * point npm at the repository).
 */
export function hostNetwork(): Record<string, string> {
  const keep = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy|npm_config_(globalconfig|userconfig|cafile|registry))$/i;
  const out = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => keep.test(k) && v !== undefined)) as Record<string, string>;
  // npm run on another Node binary looks for its global npmrc next to that binary: name the host's
  // (an npm run by the Node 24 of node_modules looks for it under node_modules/node/etc)
  if (!out.npm_config_globalconfig) {
    const found = ['/usr/etc/npmrc', '/etc/npmrc', '/usr/local/etc/npmrc'].find((f) => existsSync(f));
    if (found) out.npm_config_globalconfig = found;
  }
  return out;
}

const SYSTEM_DIRS = new Set(['bin', 'dev', 'etc', 'lib', 'lib64', 'opt', 'proc', 'sbin', 'sys', 'tmp', 'usr', 'var', 'root', 'home', 'run']);

export interface ReplayedStage {
  name: string | null;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | null;
  cmd: string[] | null;
  healthcheck: string[] | null;
  /** files and folders this stage copied from the build context (relative paths) */
  fromContext: string[];
}

export interface ReplayOptions {
  context: string;
  dockerfile?: string;
  workRoot: string;
  buildArgs?: Record<string, string>;
  /** PATH of the base image (node and npm first) */
  basePath: string;
  log?: (msg: string) => void;
}

/** Replays every stage in order; returns them (the last is the image). Throws on the first failing step. */
export function replayDockerfile(opts: ReplayOptions): ReplayedStage[] {
  const text = readFileSync(opts.dockerfile ?? join(opts.context, 'Dockerfile'), 'utf8');
  const ignored = dockerignore(opts.context);
  const done: ReplayedStage[] = [];
  parseDockerfile(text).forEach((stage, index) => {
    const root = join(opts.workRoot, `stage-${index}${stage.name ? `-${stage.name}` : ''}`);
    mkdirSync(root, { recursive: true });
    const inImage = (p: string) => (p.startsWith('/') ? join(root, p) : p);
    const mapAbsolute = (s: string) => s.replace(/(^|[\s=:'"])\/([A-Za-z0-9_.-]+)(?=[/\s'";]|$)/g,
      (m, pre: string, top: string) => (SYSTEM_DIRS.has(top) ? m : `${pre}${join(root, top)}`));
    const st: ReplayedStage = { name: stage.name, root, workdir: root, env: {}, user: null, cmd: null, healthcheck: null, fromContext: [] };
    const args: Record<string, string> = {};
    const vars = () => ({ ...args, ...st.env });
    for (const ins of stage.instructions) {
      const where = `Dockerfile line ${ins.line} (${ins.op})`;
      switch (ins.op) {
        case 'ARG':
          for (const [k, v] of parseAssignments(ins.args)) args[k] = opts.buildArgs?.[k] ?? v ?? '';
          break;
        case 'ENV':
          for (const [k, v] of parseAssignments(ins.args)) st.env[k] = mapAbsolute(substitute(v ?? '', vars()));
          break;
        case 'WORKDIR':
          st.workdir = resolve(st.workdir, inImage(substitute(ins.args, vars())));
          mkdirSync(st.workdir, { recursive: true });
          break;
        case 'COPY': {
          const words = ins.args.trim().startsWith('[') ? (JSON.parse(ins.args) as string[]) : ins.args.split(/\s+/);
          const flags = words.filter((w) => w.startsWith('--'));
          const paths = words.filter((w) => !w.startsWith('--'));
          const dest = paths.pop()!;
          const fromFlag = flags.find((f) => f.startsWith('--from='))?.slice(7);
          const source = fromFlag === undefined ? null
            : (done.find((d) => d.name === fromFlag) ?? done[Number(fromFlag)]);
          if (fromFlag !== undefined && !source) throw new Error(`${where}: no stage ${fromFlag}`);
          const destAbs = resolve(st.workdir, inImage(dest));
          const intoDir = dest.endsWith('/') || paths.length > 1;
          for (const p of paths) {
            const src = source ? join(source.root, p.startsWith('/') ? p : relative(source.root, resolve(source.workdir, p))) : join(opts.context, p);
            if (!source && (relative(opts.context, src).startsWith('..') || ignored(relative(opts.context, src)))) {
              throw new Error(`${where}: ${p} is outside the context or excluded by .dockerignore`);
            }
            if (!existsSync(src)) throw new Error(`${where}: ${p} does not exist${source ? ` in stage ${fromFlag}` : ' in the build context'}`);
            const target = statSync(src).isDirectory() ? destAbs : intoDir ? join(destAbs, p.split('/').pop()!) : destAbs;
            mkdirSync(statSync(src).isDirectory() ? target : dirname(target), { recursive: true });
            if (source) {
              // between stages (node_modules): cp -a is many times faster than cpSync
              execFileSync('cp', ['-a', statSync(src).isDirectory() ? `${src}/.` : src, target]);
            } else {
              cpSync(src, target, { recursive: true, filter: (f) => !ignored(relative(opts.context, f)) });
            }
            if (!source) st.fromContext.push(relative(opts.context, src));
          }
          break;
        }
        case 'RUN': {
          const cmd = mapAbsolute(ins.args).replace(/\bchown\s+(-R\s+)?[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+)?\s/g, 'chown $1$(id -u):$(id -g) ');
          opts.log?.(`RUN ${ins.args}`);
          try {
            execFileSync('sh', ['-c', cmd], {
              cwd: st.workdir,
              env: { ...hostNetwork(), HOME: process.env.HOME, ...st.env, ...args, PATH: st.env.PATH ?? opts.basePath },
              stdio: ['ignore', 'pipe', 'pipe'],
              maxBuffer: 64 * 1024 * 1024,
            });
          } catch (err) {
            const e = err as { stdout?: Buffer; stderr?: Buffer };
            throw new Error(`${where} failed: ${ins.args}\n${String(e.stdout ?? '')}\n${String(e.stderr ?? '')}`);
          }
          break;
        }
        case 'USER': st.user = ins.args; break;
        case 'VOLUME':
          for (const v of ins.args.trim().startsWith('[') ? (JSON.parse(ins.args) as string[]) : ins.args.split(/\s+/)) {
            mkdirSync(inImage(v), { recursive: true });
          }
          break;
        case 'CMD': case 'ENTRYPOINT': st.cmd = commandOf(ins.args); break;
        case 'HEALTHCHECK': {
          const m = /\bCMD\s+(.*)$/.exec(ins.args);
          st.healthcheck = m ? commandOf(m[1]!) : null;
          break;
        }
        case 'EXPOSE': case 'LABEL': case 'SHELL': case 'STOPSIGNAL': case 'ONBUILD': break;
        default: throw new Error(`${where}: instruction not replayed`);
      }
    }
    done.push(st);
  });
  return done;
}
