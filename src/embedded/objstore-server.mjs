// The embedded S3-compatible object store (s3rver) as a process of its own, started by
// src/embedded/objstore.ts: node objstore-server.mjs <directory> <port> <bucket>.
// Prints {"port": n} on its first stdout line once it listens; stops on SIGTERM, SIGINT is
// ignored (the terminal's Ctrl-C is for the service, which stops this afterwards), and it
// stops by itself when its stdin closes (the parent died). Plain JavaScript: it runs on a
// bare node, without the TypeScript loader.
import S3rver from 's3rver';

const [directory, port, bucket] = process.argv.slice(2);
const server = new S3rver({
  port: Number(port) || 0,
  address: '127.0.0.1',
  directory,
  silent: true,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port: listening } = await server.run();
process.stdout.write(`${JSON.stringify({ port: listening })}\n`);

let closing = false;
async function stop() {
  if (closing) return;
  closing = true;
  await server.close().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', () => undefined);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
