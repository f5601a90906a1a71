/** Storage modes, object store down (503, nothing left), startup backfill, upload refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { silentLog, startPipeline, startS3 } from '../harness/pipeline.js';
import { bearer } from '../harness/service.js';
import { buildRelatorio18, buildMeta } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { freePort } from '../../src/embedded/postgres.js';
import { createObjectStore, type ObjectStore } from '../../src/integrations/objstore.js';
import { backfillStorage } from '../../src/planilhas/backfill.js';
import type { EmbeddedObjectStore } from '../../src/embedded/objstore.js';
import type { AppContext } from '../../src/context.js';

let s3: EmbeddedObjectStore;
let r18: Buffer;
beforeAll(async () => { s3 = await startS3(); r18 = await buildRelatorio18({ rows: 20 }); });
afterAll(async () => { await s3?.stop(); });

const s3cfg = () => ({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function withDb<T>(fn: (db: TestDatabase) => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  try { return await fn(db); } finally { await db.drop(); }
}

describe('storage modes', () => {
  it('PSQL: the file stays in the column only; processing and download work without an object store', () => withDb(async (db) => {
    const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' } });
    const res = await p.upload('r18.xlsx', r18, XLSX);
    expect(res.statusCode).toBe(202);
    await p.drain();
    const { rows } = await db.pool.query('select id, status, objeto_chave, objeto_bucket, arquivo_bytes is not null tem from xls_processamento');
    expect(rows[0]).toMatchObject({ status: 'SUCESSO', objeto_chave: null, objeto_bucket: null, tem: true });
    const dl = await p.app.inject({ url: `/processamentos/${rows[0].id}/arquivo`, headers: bearer() });
    expect(dl.rawPayload.equals(r18)).toBe(true);
    await p.close();
  }));

  it('OBJSTORE: the column stays NULL; processing reads from the store', () => withDb(async (db) => {
    // no local copy of the received file (originais-locais): the processing downloads it
    const p = await startPipeline(db, { s3, env: { S3_FILE_STORAGE: 'OBJSTORE', XLS_ORIGINAIS_LOCAIS: 'off' } });
    const res = await p.upload('r18-obj.xlsx', await buildRelatorio18({ rows: 10 }), XLSX);
    expect(res.statusCode).toBe(202);
    await p.drain();
    const { rows } = await db.pool.query('select id, status, objeto_chave, arquivo_bytes is null vazio from xls_processamento');
    expect(rows[0]).toMatchObject({ status: 'SUCESSO', vazio: true });
    expect(await p.ctx.objstore!.exists(rows[0].objeto_chave)).toBe(true);
    await p.close();
  }));

  it('object store down while receiving: 503 problem and nothing left behind', () => withDb(async (db) => {
    const dead = createObjectStore({ ...s3cfg(), endpoint: `http://127.0.0.1:${await freePort()}` });
    const p = await startPipeline(db, { s3, objstore: dead });
    const zip = makeZip([{ name: 'a.xlsx', data: r18 }, { name: 'b.xlsx', data: await buildMeta({ rows: 3 }) }]);
    const res = await p.upload('lote.zip', zip);
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    const counts = await db.pool.query(`select (select count(*) from xls_processamento)::int p, (select count(*) from xls_conjunto)::int c,
      (select count(*) from app.job where kind = 'xls_processar')::int j`);
    expect(counts.rows[0]).toEqual({ p: 0, c: 0, j: 0 });
    await p.close();
  }));
});

describe('startup backfill of legacy blobs', () => {
  it('moves column-only originals to the store, is idempotent, and one failing row does not stop the others', () => withDb(async (db) => {
    // legacy rows: received in PSQL mode
    const legacy = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' }, autostart: false });
    const files = [r18, await buildRelatorio18({ rows: 12 }), await buildRelatorio18({ rows: 14 })];
    for (const [i, f] of files.entries()) expect((await legacy.upload(`legado-${i}.xlsx`, f, XLSX)).statusCode).toBe(202);
    await legacy.close();
    const { rows: ids } = await db.pool.query('select id, checksum from xls_processamento order by id');

    const real = createObjectStore(s3cfg());
    let failOnce = ids[1].checksum as string;
    const flaky: ObjectStore = { ...real, bucket: real.bucket,
      put: async (key, body, len, ct) => {
        if (key.includes(failOnce)) { failOnce = '-'; throw new Error('falha simulada do store'); }
        return real.put(key, body, len, ct);
      } };
    const ctx = { config: { storage: { mode: 'OBJSTORE' } }, pool: db.pool, objstore: flaky } as unknown as AppContext;
    expect(await backfillStorage(ctx, silentLog)).toEqual({ copiados: 2, falhas: 1 });
    expect(await backfillStorage(ctx, silentLog)).toEqual({ copiados: 1, falhas: 0 });
    expect(await backfillStorage(ctx, silentLog)).toEqual({ copiados: 0, falhas: 0 });
    const { rows } = await db.pool.query('select objeto_chave, arquivo_bytes is null vazio from xls_processamento order by id');
    expect(rows.every((r) => r.vazio && r.objeto_chave)).toBe(true);
    expect(await real.exists(rows[0].objeto_chave)).toBe(true);

    const psqlCtx = { config: { storage: { mode: 'PSQL' } }, pool: db.pool, objstore: real } as unknown as AppContext;
    expect(await backfillStorage(psqlCtx, silentLog)).toEqual({ copiados: 0, falhas: 0 });
    real.destroy();
  }));
});

describe('upload refusals', () => {
  let db: TestDatabase;
  beforeAll(async () => { db = await createTestDatabase(); });
  afterAll(async () => { await db?.drop(); });

  it('415 when the body is not multipart; 400 without the `arquivo` part; 401 without Bearer; 413 over the limit', async () => {
    const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', XLS_UPLOAD_MAX_BYTES: '4096' }, autostart: false });
    const json = await p.app.inject({ method: 'POST', url: '/api/xls/processar', headers: bearer(), payload: { arquivo: 'x' } });
    expect(json.statusCode).toBe(415);
    expect(json.headers['content-type']).toMatch(/problem\+json/);
    const boundary = 'b0undary';
    const wrongField = await p.app.inject({ method: 'POST', url: '/api/xls/processar',
      headers: { ...bearer(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="outro"; filename="a.xlsx"\r\n\r\nabc\r\n--${boundary}--\r\n` });
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json().detail).toMatch(/arquivo/);
    const anon = await p.app.inject({ method: 'POST', url: '/api/xls/processar', payload: 'x' });
    expect(anon.statusCode).toBe(401);
    const big = await p.upload('grande.xlsx', Buffer.alloc(10_000, 1), XLSX);
    expect(big.statusCode).toBe(413);
    expect(big.headers['content-type']).toMatch(/problem\+json/);
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(0);
    await p.close();
  });
});

describe('refusals around stored originals', () => {
  it('an empty file is refused with 400 and nothing stored', () => withDb(async (db) => {
    const p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' }, autostart: false });
    const res = await p.upload('vazio.xlsx', Buffer.alloc(0), XLSX);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/vazio/);
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(0);
    await p.close();
  }));

  it('download: 503 when the store is down (OBJSTORE), 404 when this storage mode cannot reach the original', () => withDb(async (db) => {
    const p = await startPipeline(db, { s3, env: { S3_FILE_STORAGE: 'OBJSTORE' }, autostart: false });
    const id = (await p.upload('so-no-store.xlsx', await buildRelatorio18({ rows: 2 }), XLSX)).json().itens[0].processamentoId;
    await p.close();
    const down = await startPipeline(db, { s3, env: { S3_FILE_STORAGE: 'OBJSTORE' }, autostart: false,
      objstore: createObjectStore({ ...s3cfg(), endpoint: `http://127.0.0.1:${await freePort()}` }) });
    const r503 = await down.app.inject({ url: `/processamentos/${id}/arquivo`, headers: bearer() });
    expect(r503.statusCode).toBe(503);
    expect(r503.headers['content-type']).toMatch(/problem\+json/);
    await down.close();
    const psql = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' }, autostart: false });
    const r404 = await psql.app.inject({ url: `/processamentos/${id}/arquivo`, headers: bearer() });
    expect(r404.statusCode).toBe(404);
    expect(r404.json().detail).toMatch(/modo de armazenamento/);
    await psql.close();
  }));

  it('an original whose size differs from the recorded one fails the processing (ERRO), it is not read half', () => withDb(async (db) => {
    const p = await startPipeline(db, { s3, env: { S3_FILE_STORAGE: 'OBJSTORE' }, autostart: false });
    const id = (await p.upload('tamanho.xlsx', await buildRelatorio18({ rows: 4 }), XLSX)).json().itens[0].processamentoId;
    await db.pool.query('update xls_processamento set objeto_tamanho_bytes = objeto_tamanho_bytes - 10 where id = $1', [id]);
    for (const r of p.runners) await r.start(null);
    await p.drain();
    const { rows } = await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id]);
    expect(rows[0].status).toBe('ERRO');
    expect(rows[0].erro_mensagem).toMatch(/bytes registrados/);
    await p.close();
  }));
});
