import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { startEmbeddedObjectStore, type EmbeddedObjectStore } from '../../src/embedded/objstore.js';
import { createObjectStore, ObjectStoreUnavailable } from '../../src/integrations/objstore.js';
import { freePort } from '../../src/embedded/postgres.js';

let s3: EmbeddedObjectStore;
beforeAll(async () => { s3 = await startEmbeddedObjectStore({ directory: mkdtempSync(join(tmpdir(), 'bi-s3-')), bucket: 'teste' }); });
afterAll(async () => { await s3?.stop(); });

describe('object store over the S3 protocol', () => {
  it('puts, checks and gets an object (path-style, no checksum trailers)', async () => {
    const store = createObjectStore({ endpoint: s3.endpoint, region: 'us-east-1', bucket: 'teste', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
    await store.ensureBucket();
    await store.put('2026/11/abc.xlsx', Buffer.from('conteúdo'));
    expect(await store.exists('2026/11/abc.xlsx')).toBe(true);
    expect(await store.exists('2026/11/nao.xlsx')).toBe(false);
    expect(await text(await store.get('2026/11/abc.xlsx'))).toBe('conteúdo');
    store.destroy();
  });

  it('creates a missing bucket', async () => {
    const store = createObjectStore({ endpoint: s3.endpoint, region: 'us-east-1', bucket: 'novo-bucket', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
    await store.ensureBucket();
    await store.put('x', Buffer.from('1'));
    expect(await store.exists('x')).toBe(true);
    store.destroy();
  });

  it('an unreachable store raises ObjectStoreUnavailable', async () => {
    const port = await freePort();
    const store = createObjectStore({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', bucket: 'b', accessKeyId: 'a', secretAccessKey: 's', forcePathStyle: true });
    await expect(store.put('k', Buffer.from('1'))).rejects.toBeInstanceOf(ObjectStoreUnavailable);
    await expect(store.exists('k')).rejects.toBeInstanceOf(ObjectStoreUnavailable);
    store.destroy();
  });
});
