// A stand-in for the sync engine where no engine is installed (CI), run as SYNC_ENGINE_CMD:
//   node test/harness/motor-substituto.mjs <pg_recvlogical> start -c <configuration file>
// Like the engine it reads the PS_* variables of sync-engine/powersync.yaml, holds a slot
// with the engine's prefix active on PS_DATA_SOURCE_URI (pg_recvlogical, plugin
// test_decoding; created again when a reset dropped it), writes, once the slot is active, what
// the engine's storage holds after its initial copy into PS_STORAGE_URI when set
// (armazenamento-substituto.mjs: what the reset's parity check reads), answers GET /probes/liveness on
// PS_PORT, and stops on SIGTERM. It writes what it received (its arguments and the names of
// the PS_* variables, never their values) and its pid to the file PS_SUBSTITUTO_INFO names,
// when set. Plain JavaScript: it runs on a bare node.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { dirname, join } from 'node:path';
import { consultasDoArquivo, escreverArmazenamento } from './armazenamento-substituto.mjs';

const [pgRecvlogical, ...args] = process.argv.slice(2);
const config = args[0] === 'start' && args[1] === '-c' ? args[2] : undefined;
if (!config || !existsSync(config)) {
  process.stderr.write(`substituto: esperava "start -c <arquivo existente>", recebi ${JSON.stringify(args)}\n`);
  process.exit(2);
}
const uri = process.env.PS_DATA_SOURCE_URI;
const port = Number(process.env.PS_PORT);
if (!uri || !port) {
  process.stderr.write('substituto: PS_DATA_SOURCE_URI e PS_PORT são necessárias\n');
  process.exit(2);
}
const database = new URL(uri).pathname.slice(1).toLowerCase().replace(/[^a-z0-9_]/g, '_');
const slot = `powersync_1_${database}`.slice(0, 63);
if (process.env.PS_SUBSTITUTO_INFO) {
  writeFileSync(process.env.PS_SUBSTITUTO_INFO, JSON.stringify({
    pid: process.pid, args, slot,
    ps: Object.keys(process.env).filter((k) => k.startsWith('PS_') && k !== 'PS_SUBSTITUTO_INFO').sort(),
  }) + '\n');
}

const recv = spawn(pgRecvlogical, ['-d', uri, '--slot', slot, '--create-slot', '--if-not-exists', '-P', 'test_decoding',
  '--start', '-f', '/dev/null', '-s', '1', '--no-loop'], { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;
if (process.env.PS_STORAGE_URI) {
  const storage = process.env.PS_STORAGE_URI;
  void (async () => {
    const c = new pg.Client({ connectionString: uri });
    await c.connect();
    try {
      for (;;) {
        const { rows } = await c.query('select active from pg_replication_slots where slot_name = $1', [slot]);
        if (rows[0]?.active) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await c.end();
    }
    // like the engine, it reads the sync configuration next to its configuration file
    await escreverArmazenamento(uri, storage, slot, 0, consultasDoArquivo(readFileSync(join(dirname(config), 'sync-rules.yaml'), 'utf8')));
  })().catch((err) => process.stderr.write(`substituto: armazenamento não escrito: ${err.message}\n`));
}
recv.on('exit', (code) => {
  if (stopping) return;
  process.stderr.write(`substituto: pg_recvlogical saiu (${code})\n`);
  process.exit(1);
});

const server = http.createServer((req, res) => {
  if (req.url === '/probes/liveness') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true}');
  else res.writeHead(404).end();
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`substituto: ouvindo em ${port}, slot ${slot}\n`));

process.on('SIGTERM', () => {
  stopping = true;
  server.close();
  if (recv.exitCode !== null || recv.signalCode !== null) process.exit(0);
  recv.once('exit', () => process.exit(0));
  recv.kill('SIGTERM');
});
