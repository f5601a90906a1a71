/**
 * The spreadsheet pipeline end to end: upload (multipart) -> receipt -> job -> xlsx reader
 * -> COPY -> SQL merge -> outcome -> bot message, on real Postgres, a real S3 server, a
 * local bot API and a local error-tracker ingest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, startS3, type Pipeline } from '../harness/pipeline.js';
import { startFakeBot, type FakeBot } from '../harness/fake-bot.js';
import { startErrtrackerReceiver, type ErrtrackerReceiver } from '../harness/errtracker-receiver.js';
import { bearer } from '../harness/service.js';
import { flushErrtracker, initErrtracker } from '../../src/integrations/errtracker.js';
import { buildMeta, buildRelatorio18, buildWorkbook } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { escrever, fluxoSheets, titulo } from '../fixtures/tipos.js';
import type { EmbeddedObjectStore } from '../../src/embedded/objstore.js';

let db: TestDatabase;
let s3: EmbeddedObjectStore;
let bot: FakeBot;
let tracker: ErrtrackerReceiver;
let p: Pipeline;

beforeAll(async () => {
  [db, s3, bot, tracker] = await Promise.all([createTestDatabase(), startS3(), startFakeBot(), startErrtrackerReceiver()]);
  initErrtracker({ dsn: tracker.dsn, release: 'test', environment: 'test', commit: null });
  p = await startPipeline(db, { s3, env: { BOT_TOKEN: bot.token, BOT_CHAT_ID: '-1', BOT_API_URL: bot.url } });
});
afterAll(async () => {
  await p?.close();
  await Promise.all([db?.drop(), s3?.stop(), bot?.close(), tracker?.close()]);
});

const count = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows[0].n as number;

describe('a monthly batch: RELATORIO18 + META + a stray PDF', () => {
  let r18: Buffer;
  let meta: Buffer;
  let zip: Buffer;

  beforeAll(async () => {
    r18 = await buildRelatorio18({ rows: 400 });
    meta = await buildMeta({ rows: 46 });
    zip = makeZip([{ name: 'novembro/relatorio18.xlsx', data: r18 }, { name: 'novembro/metas.xlsx', data: meta }, { name: 'leia-me.pdf', data: '%PDF-1.4' }]);
  });

  it('is received with one status per entry (202), and both spreadsheets end in SUCESSO', async () => {
    const res = await p.upload('novembro.zip', zip);
    expect(res.statusCode).toBe(202);
    const recibo = res.json();
    expect(recibo.total).toBe(3);
    expect(recibo.itens.map((i: { status: string }) => i.status).sort()).toEqual(['ENFILEIRADO', 'ENFILEIRADO', 'IGNORADO']);
    expect(recibo.itens.find((i: { arquivo: string }) => i.arquivo === 'leia-me.pdf').processamentoId).toBeNull();
    await p.drain();
    const { rows } = await db.pool.query(`select tipo, status, linhas_enviadas, linhas_efetivas, linhas_removidas, conjunto_id
      from xls_processamento order by tipo`);
    expect(rows).toEqual([
      { tipo: 'META', status: 'SUCESSO', linhas_enviadas: 46, linhas_efetivas: 46, linhas_removidas: 0, conjunto_id: recibo.conjuntoId },
      { tipo: 'RELATORIO18', status: 'SUCESSO', linhas_enviadas: 400, linhas_efetivas: 400, linhas_removidas: 0, conjunto_id: recibo.conjuntoId },
    ]);
    expect(await count('select count(*)::int n from bi_faturamento')).toBe(200);
    expect(await count('select count(*)::int n from bi_movimento')).toBe(200);
    expect(await count('select count(*)::int n from bi_meta')).toBe(46);
  });

  it('each run reported its rows read per chunk (xls_progresso), the last report being every row (META ran twice: it waited for its seller)', async () => {
    const { rows } = await db.pool.query(`select p.tipo, g.execucao, g.linhas_lidas from xls_processamento p
      join xls_processamento_progresso g on g.processamento_id = p.id order by p.tipo`);
    expect(rows).toEqual([{ tipo: 'META', execucao: 2, linhas_lidas: 46 }, { tipo: 'RELATORIO18', execucao: 1, linhas_lidas: 400 }]);
  });

  it('keeps the originals in both stores (PSQL_OBJSTORE) under content-addressed keys, and serves the download', async () => {
    const { rows } = await db.pool.query(`select id, arquivo, checksum, objeto_chave, objeto_bucket, arquivo_bytes is not null tem_coluna
      from xls_processamento where tipo = 'RELATORIO18'`);
    expect(rows[0].objeto_chave).toMatch(new RegExp(`^\\d{4}/\\d{2}/${rows[0].checksum}\\.xlsx$`));
    expect(rows[0].objeto_bucket).toBe(s3.bucket);
    expect(rows[0].tem_coluna).toBe(true);
    const dl = await p.app.inject({ url: `/processamentos/${rows[0].id}/arquivo`, headers: bearer() });
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(r18)).toBe(true);
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="relatorio18.xlsx"; filename*=UTF-8''relatorio18.xlsx`);
    // a wrong Bearer is refused (anonymous access follows the screens' security mode: this app
    // runs in bypass, where screens and their download are open; test/web/seguranca.test.ts)
    expect((await p.app.inject({ url: `/processamentos/${rows[0].id}/arquivo`, headers: bearer('errado') })).statusCode).toBe(401);
    expect((await p.app.inject({ url: '/processamentos/00000000-0000-0000-0000-000000000000/arquivo', headers: bearer() })).statusCode).toBe(404);
  });

  it('reports each outcome through the bot, once', async () => {
    await bot.waitFor((m) => m.text.includes('RELATORIO18: SUCESSO'));
    await bot.waitFor((m) => m.text.includes('META: SUCESSO'));
    expect(bot.messages.filter((m) => m.text.includes('SUCESSO'))).toHaveLength(2);
  });

  it('writes an execution log per processing, served as text/plain', async () => {
    const { rows } = await db.pool.query(`select id from xls_processamento where tipo = 'RELATORIO18'`);
    const res = await p.app.inject({ url: `/api/comercial/processamentos/${rows[0].id}/logs`, headers: bearer() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/tipo RELATORIO18/);
    expect(res.body).toMatch(/staging faturamento: 200 linhas copiadas/);
    // XLS_MERGE_CHUNK_LINHAS=64 in the tests: 200 + 200 rows in 4 + 4 chunks, each merged while the next was read
    expect(res.body).toMatch(/leitura concluída: 400 linhas em 8 chunks/);
    expect(res.body).toMatch(/desfecho: SUCESSO/);
  });

  it('the same zip again is DUPLICADO for both spreadsheets (200, nothing re-processed)', async () => {
    const res = await p.upload('novembro-de-novo.zip', zip);
    expect(res.statusCode).toBe(200);
    const itens = res.json().itens as Array<{ status: string; processamentoId: string | null; motivo: string | null }>;
    expect(itens.filter((i) => i.status === 'DUPLICADO')).toHaveLength(2);
    expect(itens.every((i) => i.processamentoId === null)).toBe(true);
    expect(await count('select count(*)::int n from xls_processamento')).toBe(2);
  });

  it('a re-import of the same rows under another checksum writes 0 rows', async () => {
    const again = await buildRelatorio18({ rows: 400, extraColumn: true }); // same data, other bytes
    const res = await p.upload('relatorio18-v2.xlsx', again, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.statusCode).toBe(202);
    expect(res.json().conjuntoId).toBeNull();
    await p.drain();
    const { rows } = await db.pool.query(`select status, linhas_enviadas, linhas_efetivas, linhas_removidas from xls_processamento
      where id = $1`, [res.json().itens[0].processamentoId]);
    expect(rows[0]).toEqual({ status: 'SUCESSO', linhas_enviadas: 400, linhas_efetivas: 0, linhas_removidas: 0 });
  });
});

describe('text cells with blanks around them (the merge is told the staging is trimmed: staging_aparado)', () => {
  it('are stored trimmed, and a cell of blanks only as NULL, as the merge would store them itself', async () => {
    // a month of its own: the other tests' November is not this file's scope
    const base = { filial: '  7 ', serie: '1', item: '1', emissao: new Date(Date.UTC(2025, 2, 10)), quantidade: 1, valor_unitario: 1, valor_total: 1 };
    const r18 = await buildRelatorio18({
      periodo: { inicio: new Date(Date.UTC(2025, 2, 1)), fim: new Date(Date.UTC(2025, 2, 31)) },
      faturamento: [
        { ...base, nota_fiscal: ' 990001\u00a0', cliente: '\u00a0C990 ', nome_cliente: ' Cliente  990 ', vendedor: ' 10', produto: '0001\t', descricao_produto: '\u200b Diesel ', placa: '   ', modelo_veiculo: ' ' },
      ],
      movimento: [],
    });
    const res = await p.upload('aparado.xlsx', r18, 'application/octet-stream');
    expect(res.statusCode).toBe(202);
    await p.drain();
    const { rows: [proc] } = await db.pool.query('select status, linhas_efetivas, erro_mensagem from xls_processamento where id = $1', [res.json().itens[0].processamentoId]);
    expect(proc).toEqual({ status: 'SUCESSO', linhas_efetivas: 1, erro_mensagem: null });
    const { rows } = await db.pool.query(`select f.filial, f.nota_fiscal, f.cliente, f.vendedor, f.produto, f.placa, c.nome, p.descricao
      from bi_faturamento f join bi_cliente c on c.codigo = f.cliente join bi_produto p on p.codigo = f.produto where f.nota_fiscal like '%990001%'`);
    expect(rows).toEqual([{ filial: '7', nota_fiscal: '990001', cliente: 'C990', vendedor: '10', produto: '0001', placa: null, nome: 'Cliente  990', descricao: 'Diesel' }]);
  });
});

describe('failures', () => {
  it('a loose META whose seller does not exist fails at once, with an alarm to the tracker and the bot', async () => {
    const meta = await buildMeta({ linhas: [{ competencia: new Date(Date.UTC(2026, 11, 1)), vendedor: 999, produto: 'P1', meta_volume: 1, meta_margem: 0.1 }] });
    const res = await p.upload('meta-solta.xlsx', meta, 'application/octet-stream');
    expect(res.statusCode).toBe(202);
    await p.drain();
    const id = res.json().itens[0].processamentoId;
    const { rows } = await db.pool.query('select status, alarmar, fk_retentar, erro_codigo, linhas_rejeitadas from xls_processamento where id = $1', [id]);
    expect(rows[0]).toMatchObject({ status: 'ERRO', alarmar: true, fk_retentar: false, erro_codigo: 'XL424' });
    // the refused rows stay on the ERRO: the seller the message names, with its row
    expect(rows[0].linhas_rejeitadas.map((l: { campo: string; valor: string; linha: number }) => [l.campo, l.valor, l.linha > 0])).toEqual([['vendedor', '999', true]]);
    await flushErrtracker();
    await tracker.waitFor((e) => String(e.message ?? '').includes('processamento de planilha falhou'));
    await bot.waitFor((m) => m.text.includes('META: ERRO') && m.text.includes(id));
  });

  it('a FLUXO with two invalid rows ends ERRO keeping both rows (tab, row, column, value) and its code; the screen says what to fix', async () => {
    const fluxo = await escrever(fluxoSheets({
      posicao: '15/11/2026', totalReceber: 300,
      titulos: [titulo({ documento: 'NF-1', saldo: 100 }), titulo({ documento: 'NF-2', saldo: 'mil' }), titulo({ documento: 'NF-3', saldo: 200 }), titulo({ documento: 'NF-4', valor: 'cem' })],
    }), 'exceljs');
    const res = await p.upload('fluxo-invalido.xlsx', fluxo, 'application/octet-stream');
    expect(res.statusCode).toBe(202);
    await p.drain();
    const id = res.json().itens[0].processamentoId;
    const { rows: [r] } = await db.pool.query('select status, erro_codigo, linhas_rejeitadas from xls_processamento where id = $1', [id]);
    expect(r.status).toBe('ERRO');
    expect(r.erro_codigo).toBe('XL422');
    expect(r.linhas_rejeitadas.map((l: { aba: string; linha: number; valor: string }) => [l.aba, l.linha, l.valor])).toEqual([['SemQuebras', 3, 'mil'], ['SemQuebras', 5, 'cem']]);
    const tela = await p.app.inject({ url: `/processamentos/${id}`, headers: { accept: 'text/html' } });
    expect(tela.statusCode).toBe(200);
    expect(tela.body).toContain('Corrija as linhas 3 e 5 na planilha e envie o arquivo de novo.');
    expect(tela.body).toContain('<td data-rotulo="Aba">SemQuebras</td><td data-rotulo="Linha" class="num">3</td>');
    expect(tela.body).not.toContain('Defesa do cadastro de veículos');
    // the execution log in staff words: no worker id, no staging, no chunks, no SQL code
    const log = tela.body.slice(tela.body.indexOf('<ol class="log-amigavel">'), tela.body.indexOf('</ol>', tela.body.indexOf('<ol class="log-amigavel">')));
    expect(log).toMatch(/<time>\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}<\/time> Início do processamento de fluxo-invalido\.xlsx\./);
    expect(log).toContain('Tipo de planilha reconhecido: Contas a pagar e receber.');
    expect(log).toContain('Falhou: 2 linhas inválidas: nada foi gravado.');
    expect(log).toContain('Terminou com erro.');
    expect(log).not.toMatch(/vm:|\[XL\d{3}\]|staging|chunk|desfecho|[0-9a-f]{8}-[0-9a-f]{4}-|\d{4}-\d{2}-\d{2}/);
  });

  it('a file of no known type ends IGNORADO; resending it reprocesses the same record (202)', async () => {
    const other = await buildWorkbook([{ name: 'Plan1', rows: [['Nada', 'Aqui'], [1, 2]] }]);
    const first = await p.upload('outra.xlsx', other, 'application/octet-stream');
    await p.drain();
    const id = first.json().itens[0].processamentoId;
    expect((await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id])).rows[0])
      .toEqual({ status: 'IGNORADO', erro_mensagem: 'tipo não reconhecido' });
    const again = await p.upload('outra.xlsx', other, 'application/octet-stream');
    expect(again.statusCode).toBe(202);
    expect(again.json().itens[0]).toMatchObject({ status: 'REPROCESSANDO', processamentoId: id });
    await p.drain();
    expect((await db.pool.query('select execucoes from xls_processamento where id = $1', [id])).rows[0].execucoes).toBe(2);
  });

  it('a damaged .xls (a CFB header and nothing else) is a processing in ERRO with the reason, its original kept and downloadable as .xls', async () => {
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]);
    const res = await p.upload('antigo.xls', ole, 'application/vnd.ms-excel');
    expect(res.statusCode).toBe(202);
    const id = res.json().itens[0].processamentoId;
    await p.drain();
    const { rows } = await db.pool.query('select status, erro_mensagem from xls_processamento where id = $1', [id]);
    expect(rows[0].status).toBe('ERRO');
    expect(rows[0].erro_mensagem).toBe('formato não suportado: arquivo .xls corrompido (ordem de bytes inválida)');
    const dl = await p.app.inject({ url: `/processamentos/${id}/arquivo`, headers: bearer() });
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(ole)).toBe(true);
    expect(dl.headers['content-disposition']).toMatch(/filename="antigo\.xls"/);
  });
});
