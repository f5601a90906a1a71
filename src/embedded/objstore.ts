/** An embedded S3-compatible object store (s3rver) for `npm start` and the tests. */
import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';

export interface EmbeddedObjectStore {
  endpoint: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  stop(): Promise<void>;
}

export async function startEmbeddedObjectStore(opts: { directory: string; port?: number; bucket?: string }): Promise<EmbeddedObjectStore> {
  mkdirSync(opts.directory, { recursive: true });
  const bucket = opts.bucket ?? 'bi-comercial';
  const server = new S3rver({
    port: opts.port ?? 0,
    address: '127.0.0.1',
    directory: opts.directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    // s3rver accepts these fixed development credentials
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    bucket,
    stop: () => server.close() as Promise<void>,
  };
}
