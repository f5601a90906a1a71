import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import {
  xlsConjuntoAbrir, xlsConjuntoRecebido, xlsFalhar, xlsIgnorar, xlsReceber, xlsReceberIgnorado,
} from '../../src/planilhas/db.js';
import { completeJobs, importar, iniciar, receberAvulso, sha, status } from './helpers.js';
import { backendPid, waitUntilBlocked } from '../harness/wait.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const jobs = async (id: string) => (await db.pool.query(
  `select status, unique_key from app.job where kind = 'xls_processar' and payload ->> 'id' = $1 order by id`, [id])).rows;

describe('xls_receber: a new file', () => {
  it('ENFILEIRADO: PENDENTE record with the bytes, log path, and its job queued in the same transaction', async () => {
    const r = await receberAvulso(db.pool, 'novo-1');
    expect(r).toMatchObject({ arquivo: 'novo-1.xlsx', status: 'ENFILEIRADO', motivo: null, objetoChave: null, armazenarObjeto: false });
    const { rows: [p] } = await db.pool.query(`select status, checksum, arquivo_bytes, objeto_chave, objeto_tamanho_bytes, log_arquivo,
        to_char(recebido_em at time zone 'America/Sao_Paulo', 'YYYY/MM') mes from xls_processamento where id = $1`, [r.processamentoId]);
    expect(p).toMatchObject({ status: 'PENDENTE', checksum: sha('novo-1'), objeto_chave: null, objeto_tamanho_bytes: 6 });
    expect(Buffer.from(p.arquivo_bytes).toString()).toBe('novo-1');
    expect(p.log_arquivo).toBe(`${p.mes}/${r.processamentoId}.log`);
    expect(await jobs(r.processamentoId!)).toEqual([{ status: 'pending', unique_key: r.processamentoId }]);
  });

  it('object-store mode: content-addressed key <yyyy>/<mm>/<checksum>.xlsx that the edge must store', async () => {
    const r = await receberAvulso(db.pool, 'novo-s3', 'x.xlsx', { objetoBucket: 'planilhas', bytes: false });
    expect(r.armazenarObjeto).toBe(true);
    expect(r.objetoChave).toMatch(new RegExp(`^\\d{4}/\\d{2}/${sha('novo-s3')}\\.xlsx$`));
    const { rows: [p] } = await db.pool.query('select objeto_bucket, objeto_chave, arquivo_bytes from xls_processamento where id = $1', [r.processamentoId]);
    expect(p).toEqual({ objeto_bucket: 'planilhas', objeto_chave: r.objetoChave, arquivo_bytes: null });
  });

  it('a receipt rolled back (object store down -> 503) leaves nothing', async () => {
    const c = await db.pool.connect();
    await c.query('begin');
    const r = await receberAvulso(c, 'rollback-1');
    await c.query('rollback');
    c.release();
    expect((await db.pool.query('select count(*)::int n from xls_processamento where checksum = $1', [sha('rollback-1')])).rows[0].n).toBe(0);
    expect(await jobs(r.processamentoId!)).toEqual([]);
  });

  it('refuses bad arguments with XL400 (nothing stored)', async () => {
    const base = { arquivo: 'a.xlsx', checksum: sha('bad'), tamanhoBytes: 3, arquivoBytes: Buffer.from('bad') };
    await expect(xlsReceber(db.pool, { ...base, checksum: 'abc' })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsReceber(db.pool, { ...base, checksum: sha('bad').toUpperCase() + '0' })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsReceber(db.pool, { ...base, arquivo: '  ' })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsReceber(db.pool, { ...base, arquivoBytes: null })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsReceber(db.pool, { ...base, tamanhoBytes: -1 })).rejects.toMatchObject({ code: 'XL400' });
    expect((await db.pool.query('select count(*)::int n from xls_processamento where checksum = $1', [sha('bad')])).rows[0].n).toBe(0);
  });

  it('accepts an uppercase checksum and stores it lowercase (same file, same record)', async () => {
    const r = await xlsReceber(db.pool, { arquivo: 'u.xlsx', checksum: sha('upper').toUpperCase(), tamanhoBytes: 5, arquivoBytes: Buffer.from('upper') });
    const again = await receberAvulso(db.pool, 'upper');
    expect(again.status).toBe('DUPLICADO');
    expect(again.motivo).toContain(r.processamentoId!);
  });
});

describe('xls_receber: the same checksum again (spec status table)', () => {
  it('PENDENTE -> DUPLICADO: processamentoId null, motivo names the existing id, no new job', async () => {
    const first = await receberAvulso(db.pool, 'dup-pendente');
    const again = await receberAvulso(db.pool, 'dup-pendente', 'outro-nome.xlsx');
    expect(again).toMatchObject({ status: 'DUPLICADO', processamentoId: null, objetoChave: null, armazenarObjeto: false });
    expect(again.motivo).toContain(first.processamentoId!);
    expect(again.motivo).toContain('PENDENTE');
    expect(await jobs(first.processamentoId!)).toHaveLength(1);
    expect((await db.pool.query('select arquivo from xls_processamento where id = $1', [first.processamentoId])).rows[0].arquivo).toBe('dup-pendente.xlsx');
  });

  it('PROCESSANDO and SUCESSO -> DUPLICADO', async () => {
    const a = await receberAvulso(db.pool, 'dup-processando');
    await iniciar(db.pool, a.processamentoId!, 'w1', 'META');
    expect((await receberAvulso(db.pool, 'dup-processando')).status).toBe('DUPLICADO');
    await importar(db.pool, a.processamentoId!, 'w1', 'META', { staging: {} });
    expect((await status(db.pool, a.processamentoId!)).status).toBe('SUCESSO');
    const again = await receberAvulso(db.pool, 'dup-processando');
    expect(again.status).toBe('DUPLICADO');
    expect(again.motivo).toContain('SUCESSO');
    await completeJobs(db.pool, 'w1');
  });

  it('ERRO -> REPROCESSANDO: the same record back to PENDENTE, results cleared, new job', async () => {
    const a = await receberAvulso(db.pool, 'reenvio-erro');
    const id = a.processamentoId!;
    await iniciar(db.pool, id, 'w1', 'META');
    await xlsFalhar(db.pool, id, 'w1', { motivo: 'formato não suportado: teste', avisos: ['x'], linhasRejeitadas: [{ linha: 3, campo: 'a', valor: 'b' }] });
    await completeJobs(db.pool, 'w1');
    const again = await receberAvulso(db.pool, 'reenvio-erro', 'renomeado.xlsx');
    expect(again).toMatchObject({ status: 'REPROCESSANDO', processamentoId: id });
    expect(again.motivo).toContain('ERRO');
    const { rows: [p] } = await db.pool.query('select * from xls_processamento where id = $1', [id]);
    expect(p).toMatchObject({
      status: 'PENDENTE', arquivo: 'renomeado.xlsx', erro_mensagem: null, avisos: [], linhas_rejeitadas: [],
      iniciado_em: null, finalizado_em: null, worker: null, tipo: 'META', execucoes: 1,
    });
    expect((await jobs(id)).map((j) => j.status)).toEqual(['done', 'pending']);
    expect((await db.pool.query('select count(*)::int n from xls_processamento where checksum = $1', [sha('reenvio-erro')])).rows[0].n).toBe(1);
  });

  it('IGNORADO -> REPROCESSANDO', async () => {
    const a = await receberAvulso(db.pool, 'reenvio-ignorado');
    await iniciar(db.pool, a.processamentoId!, 'w1');
    await xlsIgnorar(db.pool, a.processamentoId!, 'w1', 'tipo não reconhecido');
    await completeJobs(db.pool, 'w1');
    const again = await receberAvulso(db.pool, 'reenvio-ignorado');
    expect(again).toMatchObject({ status: 'REPROCESSANDO', processamentoId: a.processamentoId });
    expect((await status(db.pool, a.processamentoId!)).status).toBe('PENDENTE');
  });

  it('a resend in object-store mode of a file kept only in the database stores it in the object store too', async () => {
    const a = await receberAvulso(db.pool, 'migra-s3');
    await iniciar(db.pool, a.processamentoId!, 'w1');
    await xlsFalhar(db.pool, a.processamentoId!, 'w1', { motivo: 'x' });
    await completeJobs(db.pool, 'w1');
    const again = await receberAvulso(db.pool, 'migra-s3', 'm.xlsx', { objetoBucket: 'b', bytes: false });
    expect(again.armazenarObjeto).toBe(true);
    const { rows: [p] } = await db.pool.query(`select objeto_bucket, objeto_chave, arquivo_bytes is not null tem_bytes,
        to_char(recebido_em at time zone 'America/Sao_Paulo', 'YYYY/MM') mes from xls_processamento where id = $1`, [a.processamentoId]);
    expect(p).toMatchObject({ objeto_bucket: 'b', objeto_chave: `${p.mes}/${sha('migra-s3')}.xlsx`, tem_bytes: true });
    expect(again.objetoChave).toBe(p.objeto_chave);
  });
});

describe('batches', () => {
  it('entries in zip order with their receipt status; total counts every entry; a file twice in one zip is DUPLICADO', async () => {
    const antigo = await receberAvulso(db.pool, 'lote-antigo');
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'ciclo.zip', uploaderNome: 'Ana' });
    const c = await db.pool.connect();
    await c.query('begin');
    const e1 = await receberAvulso(c, 'lote-a', 'a.xlsx', { conjuntoId: conjunto });
    await xlsReceberIgnorado(c, conjunto, 'leia-me.pdf', 'não é .xlsx');
    await receberAvulso(c, 'lote-antigo', 'b.xlsx', { conjuntoId: conjunto });
    await receberAvulso(c, 'lote-a', 'a-copia.xlsx', { conjuntoId: conjunto });
    const recibo = await xlsConjuntoRecebido(c, conjunto);
    await c.query('commit');
    c.release();
    expect(recibo.total).toBe(4);
    expect(recibo.enfileirados).toBe(1);
    expect(recibo.itens).toEqual([
      { arquivo: 'a.xlsx', processamentoId: e1.processamentoId, status: 'ENFILEIRADO', motivo: null },
      { arquivo: 'leia-me.pdf', processamentoId: null, status: 'IGNORADO', motivo: 'não é .xlsx' },
      { arquivo: 'b.xlsx', processamentoId: null, status: 'DUPLICADO', motivo: expect.stringContaining(antigo.processamentoId!) },
      { arquivo: 'a-copia.xlsx', processamentoId: null, status: 'DUPLICADO', motivo: expect.stringContaining(e1.processamentoId!) },
    ]);
    expect((await status(db.pool, e1.processamentoId!)).conjunto_id).toBe(conjunto);
    const { rows: [l] } = await db.pool.query('select total, fechado_em, arquivo, uploader_nome from xls_conjunto where id = $1', [conjunto]);
    expect(l).toMatchObject({ total: 4, fechado_em: null, arquivo: 'ciclo.zip', uploader_nome: 'Ana' });
  });

  it('a batch whose entries generated no processing closes at once', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'vazio.zip' });
    await xlsReceberIgnorado(db.pool, conjunto, '__MACOSX/._a.xlsx', 'metadados do macOS');
    const recibo = await xlsConjuntoRecebido(db.pool, conjunto);
    expect(recibo).toMatchObject({ total: 1, enfileirados: 0 });
    const { rows: [l] } = await db.pool.query('select fechado_em, fechamento_motivo from xls_conjunto where id = $1', [conjunto]);
    expect(l.fechado_em).not.toBeNull();
  });

  it('refusals: unknown batch XL404, closed batch XL409, ignored entry without batch or reason XL400', async () => {
    const desconhecido = '00000000-0000-4000-8000-000000000000';
    await expect(receberAvulso(db.pool, 'sem-lote', 'a.xlsx', { conjuntoId: desconhecido })).rejects.toMatchObject({ code: 'XL404' });
    await expect(xlsConjuntoRecebido(db.pool, desconhecido)).rejects.toMatchObject({ code: 'XL404' });
    const fechado = await xlsConjuntoAbrir(db.pool, { arquivo: 'f.zip' });
    await xlsConjuntoRecebido(db.pool, fechado);
    await expect(receberAvulso(db.pool, 'lote-fechado', 'a.xlsx', { conjuntoId: fechado })).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsReceberIgnorado(db.pool, null as unknown as string, 'a.pdf', 'x')).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsReceberIgnorado(db.pool, fechado, 'a.pdf', ' ')).rejects.toMatchObject({ code: 'XL400' });
    expect((await db.pool.query('select count(*)::int n from xls_processamento where checksum in ($1, $2)', [sha('sem-lote'), sha('lote-fechado')])).rows[0].n).toBe(0);
  });
});

describe('race-free dedup across replicas', () => {
  async function twoConnections() {
    const a = new pg.Client({ connectionString: db.url });
    const b = new pg.Client({ connectionString: db.url });
    await a.connect();
    await b.connect();
    return { a, b, end: async () => { await a.end(); await b.end(); } };
  }

  it('the same checksum received at once on two connections: one ENFILEIRADO, the other waits and gets DUPLICADO', async () => {
    const { a, b, end } = await twoConnections();
    await a.query('begin');
    await b.query('begin');
    const ra = await receberAvulso(a, 'corrida');
    let settled = false;
    const pb = receberAvulso(b, 'corrida').finally(() => { settled = true; });
    await waitUntilBlocked(db.pool, { pid: backendPid(b) });
    expect(settled).toBe(false); // blocked on the unique index
    await a.query('commit');
    const rb = await pb;
    await b.query('commit');
    await end();
    expect(ra.status).toBe('ENFILEIRADO');
    expect(rb.status).toBe('DUPLICADO');
    expect(rb.motivo).toContain(ra.processamentoId!);
    expect((await db.pool.query('select count(*)::int n from xls_processamento where checksum = $1', [sha('corrida')])).rows[0].n).toBe(1);
    expect(await jobs(ra.processamentoId!)).toHaveLength(1);
  });

  it('when the first receipt rolls back, the waiting one creates the record', async () => {
    const { a, b, end } = await twoConnections();
    await a.query('begin');
    await b.query('begin');
    await receberAvulso(a, 'corrida-2');
    const pb = receberAvulso(b, 'corrida-2');
    await waitUntilBlocked(db.pool, { pid: backendPid(b) });
    await a.query('rollback');
    const rb = await pb;
    await b.query('commit');
    await end();
    expect(rb.status).toBe('ENFILEIRADO');
    expect((await status(db.pool, rb.processamentoId!)).status).toBe('PENDENTE');
  });

  it('two replicas resending the same file in ERRO: exactly one reprocesses it', async () => {
    const r = await receberAvulso(db.pool, 'corrida-erro');
    await iniciar(db.pool, r.processamentoId!, 'w1');
    await xlsFalhar(db.pool, r.processamentoId!, 'w1', { motivo: 'x' });
    await completeJobs(db.pool, 'w1');
    const { a, b, end } = await twoConnections();
    await a.query('begin');
    await b.query('begin');
    const ra = await receberAvulso(a, 'corrida-erro');
    const pb = receberAvulso(b, 'corrida-erro');
    await waitUntilBlocked(db.pool, { pid: backendPid(b) });
    await a.query('commit');
    const rb = await pb;
    await b.query('commit');
    await end();
    expect([ra.status, rb.status]).toEqual(['REPROCESSANDO', 'DUPLICADO']);
    expect((await jobs(r.processamentoId!)).filter((j) => j.status === 'pending')).toHaveLength(1);
  });
});
