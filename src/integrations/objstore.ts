/**
 * Object store client (S3 protocol). Configured for third-party endpoints: path-style
 * addressing, and checksums only when the operation requires them (S3-compatible servers
 * other than AWS often reject the SDK's default CRC32 trailers).
 */
import { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand, HeadObjectCommand, HeadBucketCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { ObjectStoreConfig } from '../config.js';

export class ObjectStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super(`object store indisponível: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'ObjectStoreUnavailable';
  }
}

export interface ObjectStore {
  readonly bucket: string;
  put(key: string, body: Buffer | Readable, contentLength?: number, contentType?: string): Promise<void>;
  get(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** Removes one object (absent: nothing to do). */
  remove(key: string): Promise<void>;
  ensureBucket(): Promise<void>;
  destroy(): void;
}

export function createObjectStore(cfg: ObjectStoreConfig): ObjectStore {
  const client = new S3Client({
    region: cfg.region,
    endpoint: cfg.endpoint ?? undefined,
    forcePathStyle: cfg.forcePathStyle,
    credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
  });
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try { return await fn(); } catch (err) { throw new ObjectStoreUnavailable(err); }
  };
  return {
    bucket: cfg.bucket,
    put: (key, body, contentLength, contentType = 'application/octet-stream') => wrap(async () => {
      await client.send(new PutObjectCommand({ Bucket: cfg.bucket, Key: key, Body: body, ContentLength: contentLength, ContentType: contentType }));
    }),
    get: (key) => wrap(async () => {
      const res = await client.send(new GetObjectCommand({ Bucket: cfg.bucket, Key: key }));
      return res.Body as Readable;
    }),
    remove: (key) => wrap(async () => {
      await client.send(new DeleteObjectCommand({ Bucket: cfg.bucket, Key: key }));
    }),
    exists: async (key) => {
      try {
        await client.send(new HeadObjectCommand({ Bucket: cfg.bucket, Key: key }));
        return true;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) return false;
        throw new ObjectStoreUnavailable(err);
      }
    },
    ensureBucket: () => wrap(async () => {
      try {
        await client.send(new HeadBucketCommand({ Bucket: cfg.bucket }));
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status !== 404) throw err;
        await client.send(new CreateBucketCommand({ Bucket: cfg.bucket }));
      }
    }),
    destroy: () => client.destroy(),
  };
}
