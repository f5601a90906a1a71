/**
 * The "sync engine" of the reset tests: a real logical replication client (pg_recvlogical,
 * shipped with Postgres 15, plugin test_decoding) that creates and holds a slot with the
 * engine's prefix active, the way the real engine holds its own. start() runs a new client
 * on a new slot (as the engine does after its storage is dropped); stop() ends it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { findPgBinDir } from '../../src/db/pg-bin.js';

export interface FakeSyncEngine {
  readonly running: boolean;
  /** rows of the first synced table its storage leaves out from the next start on */
  faltando?: number;
  /** every slot name it created, in order */
  readonly slots: string[];
  start(): Promise<string>;
  stop(): Promise<void>;
  /** stops and drops every slot it created (a database with a slot cannot be dropped) */
  close(): Promise<void>;
}

export async function slotAtivo(url: string, slot: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ active: boolean }>('select active from pg_replication_slots where slot_name = $1', [slot]);
    return rows[0]?.active === true;
  } finally {
    await c.end();
  }
}

export async function waitUntil(pred: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`tempo esgotado: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { escreverArmazenamento } from './armazenamento-substituto.mjs';
import { escreverArmazenamento } from './armazenamento-substituto.mjs';

/**
 * plugin: test_decoding (default), or pgoutput over `publication` as the real engine reads
 * (pgoutput's walsender records lag samples, so pg_stat_replication shows write/flush/replay lag).
 * armazenamento: each start also writes what the real engine's storage holds after its initial
 * copy into that database (armazenamento-substituto.mjs), `faltando` rows of the first table left out.
 */
export interface FakeSyncEngineOptions {
  plugin?: 'test_decoding' | 'pgoutput';
  publication?: string;
  armazenamento?: { url: string; faltando?: number };
}

export function startFakeSyncEngine(dbUrl: string, prefix = 'powersync_', opts: FakeSyncEngineOptions = {}): FakeSyncEngine {
  const plugin = opts.plugin ?? 'test_decoding';
  const pluginArgs = plugin === 'pgoutput' ? ['-o', 'proto_version=1', '-o', `publication_names=${opts.publication ?? 'powersync'}`] : [];
  const dbName = new URL(dbUrl).pathname.slice(1).toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const slots: string[] = [];
  let child: ChildProcess | null = null;
  const bin = join(findPgBinDir(), 'pg_recvlogical');

  async function stop(): Promise<void> {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  }

  const self: FakeSyncEngine = {
    faltando: opts.armazenamento?.faltando ?? 0,
    get running() { return child !== null; },
    slots,
    async start() {
      await stop();
      const slot = `${prefix}${dbName}_${slots.length + 1}`;
      slots.push(slot);
      const c = spawn(bin, ['-d', dbUrl, '--slot', slot, '--create-slot', '--if-not-exists', '-P', plugin,
        '--start', ...pluginArgs, '-f', '/dev/null', '-s', '1', '--no-loop'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      c.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
      child = c;
      await waitUntil(async () => {
        if (c.exitCode !== null) throw new Error(`pg_recvlogical saiu (${c.exitCode}): ${stderr}`);
        return slotAtivo(dbUrl, slot);
      }, 30_000, `slot ${slot} ativo`);
      if (opts.armazenamento) await escreverArmazenamento(dbUrl, opts.armazenamento.url, slot, self.faltando ?? 0);
      return slot;
    },
    stop,
    async close() {
      await stop();
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      try {
        for (const s of slots) {
          await waitUntil(async () => !(await slotAtivo(dbUrl, s)), 10_000, `slot ${s} inativo`);
          await c.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1', [s]);
        }
      } finally {
        await c.end();
      }
    },
  };
  return self;
}
