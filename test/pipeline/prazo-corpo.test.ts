/**
 * Issue 33 §5: a request body that never finishes was held open for Node's default 300 s.
 * Every route answers 408 problem+json (and closes) a body that stalls for HTTP_CORPO_OCIOSO_MS
 * or trickles under HTTP_CORPO_TAXA_MIN_BYTES a second; a prompt request is untouched. The
 * limits are made tiny here; what is asserted is the answer, not a duration.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { API_TOKEN } from '../harness/service.js';
import { buildMeta } from '../fixtures/builder.js';

let db: TestDatabase;
let p: Pipeline;
let port: number;
beforeAll(async () => {
  db = await createTestDatabase();
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL', HTTP_CORPO_OCIOSO_MS: '400', HTTP_CORPO_TAXA_MIN_BYTES: '2048' } });
  const address = await p.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  await p?.close();
  await db?.drop();
});

/**
 * Sends `head` and then `partes` (one every `intervaloMs`), never the rest of the announced
 * body; resolves with what the server answered once it closes the connection.
 */
function enviarIncompleto(head: string, partes: Buffer[], intervaloMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const recebido: Buffer[] = [];
    let i = 0;
    let t: NodeJS.Timeout | undefined;
    const proxima = () => {
      if (i < partes.length && !sock.destroyed) { sock.write(partes[i++]!); t = setTimeout(proxima, intervaloMs); }
    };
    sock.on('connect', () => { sock.write(head); proxima(); });
    sock.on('data', (d) => recebido.push(d));
    sock.on('error', () => undefined);
    sock.on('close', () => { clearTimeout(t); resolve(Buffer.concat(recebido).toString('utf8')); });
    setTimeout(() => { sock.destroy(); reject(new Error('o servidor não encerrou a requisição')); }, 20_000).unref();
  });
}

function respostaDe(raw: string): { status: number; headers: string; corpo: Record<string, unknown> } {
  const [cabecalho, ...resto] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(cabecalho ?? '')?.[1]), headers: cabecalho ?? '', corpo: JSON.parse(resto.join('\r\n\r\n')) };
}

describe('a body that does not arrive is answered 408 on every route', () => {
  it('an upload whose body stalls: 408 problem+json, connection closed, the refusal recorded as a 408, nothing stored', async () => {
    const boundary = '----bi-prazo';
    const inicio = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="arquivo"; filename="parado.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const raw = await enviarIncompleto(
      `POST /api/xls/processar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_TOKEN}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n`,
      [inicio, (await buildMeta({ rows: 3 })).subarray(0, 500)]);
    const r = respostaDe(raw);
    expect(r.status, raw).toBe(408);
    expect(r.headers).toMatch(/content-type: application\/problem\+json/i);
    expect(r.headers).toMatch(/connection: close/i);
    expect(r.corpo).toMatchObject({ status: 408, title: 'Tempo esgotado', instance: '/api/xls/processar',
      detail: 'o corpo da requisição ficou 0,4 s sem receber dados (limite HTTP_CORPO_OCIOSO_MS); nada foi gravado — envie de novo' });
    // the route saw its body cut: its refusal trace says 408
    let recusa: { status_http: number; arquivo: string } | undefined;
    for (let i = 0; i < 50 && !recusa; i++) {
      recusa = (await db.pool.query('select status_http, arquivo from xls_upload_recusa where arquivo = $1', ['parado.xlsx'])).rows[0];
      if (!recusa) await new Promise((res) => setTimeout(res, 100));
    }
    expect(recusa).toEqual({ status_http: 408, arquivo: 'parado.xlsx' });
    expect((await db.pool.query('select count(*)::int n from xls_processamento')).rows[0].n).toBe(0);
  });

  it('a JSON body that stalls: 408', async () => {
    const raw = await enviarIncompleto('POST /webhook/partner HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n', [Buffer.from('{"items":')]);
    expect(respostaDe(raw)).toMatchObject({ status: 408, corpo: { status: 408, instance: '/webhook/partner' } });
  });

  it('a request answered before its body (POST /sync/erp without a token: 401) whose body stalls: its connection is closed', async () => {
    const raw = await enviarIncompleto('POST /sync/erp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n', [Buffer.from('{"items":')]);
    expect(respostaDe(raw).status).toBe(401);
  });

  it('a body that trickles (a few bytes every 100 ms, under the minimum rate): 408 with the reason', async () => {
    const partes = Array.from({ length: 100 }, () => Buffer.from('{"a":1}'));
    const raw = await enviarIncompleto('POST /webhook/partner HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n', partes, 100);
    const r = respostaDe(raw);
    expect(r.status, raw).toBe(408);
    expect(r.corpo.detail).toBe('o corpo da requisição chega devagar demais (menos de 2 KiB/s em média; limite HTTP_CORPO_TAXA_MIN_BYTES); nada foi gravado — envie de novo de uma conexão melhor');
  });

  it('a prompt request under the same limits is untouched', async () => {
    const form = new FormData();
    form.append('arquivo', new Blob([await buildMeta({ rows: 3 })]), 'pronta.xlsx');
    const res = await fetch(`http://127.0.0.1:${port}/api/xls/processar`, { method: 'POST', headers: { authorization: `Bearer ${API_TOKEN}` }, body: form });
    expect(res.status).toBe(202);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  it('an injected upload (app.inject, the tests\' way) is no longer watched once its body is read: nothing fires after the limit', async () => {
    const erros: unknown[] = [];
    const capturar = (e: unknown) => { erros.push(e); };
    process.on('uncaughtException', capturar);
    try {
      const res = await p.upload('injetada.xlsx', await buildMeta({ rows: 5 }), 'application/octet-stream');
      expect(res.statusCode, res.body).toBe(202);
      // past the idle limit (400 ms) and the rate's window: a watch left running would act now
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      process.off('uncaughtException', capturar);
    }
    expect(erros).toEqual([]);
  });
});
