import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import pg from 'pg';
import { createTestDatabase, urlFor, type TestDatabase } from '../harness/db.js';
import {
  xlsConcluir, xlsConjuntoAbrir, xlsConjuntoRecebido, xlsDefinirTipo, xlsFalhar, xlsIgnorar, xlsIniciar,
  xlsRecuperar, xlsReprocessar, xlsReprocessarConjunto, xlsReprocessarErros,
} from '../../src/planilhas/db.js';
import type { TipoPlanilha } from '../../src/xlsx/types.js';
import {
  claimJob, completeJobs, fat, heartbeat, importar, iniciar, periodoNov, receberAvulso, status,
} from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const NAO_EXISTE = '00000000-0000-4000-8000-000000000000';
let seq = 0;
const novo = async (conjuntoId?: string) => (await receberAvulso(db.pool, `t-${++seq}-${Math.random()}`, `f${seq}.xlsx`, { conjuntoId })).processamentoId!;

/** A processing taken to ERRO by worker w (job completed). */
async function emErro(tipo: TipoPlanilha | null = 'META', conjuntoId?: string) {
  const id = await novo(conjuntoId);
  await iniciar(db.pool, id, 'w1', tipo);
  await xlsFalhar(db.pool, id, 'w1', { motivo: 'falhou' });
  await completeJobs(db.pool, 'w1');
  return id;
}

const jobsPendentes = async (id: string) => (await db.pool.query(
  `select unique_key from app.job where kind = 'xls_processar' and status = 'pending' and payload ->> 'id' = $1`, [id])).rows;

describe('PENDENTE -> PROCESSANDO (xls_iniciar)', () => {
  it('claims the processing for the worker; a second (stale) job gets nothing', async () => {
    const id = await novo();
    const p = await iniciar(db.pool, id, 'w1');
    expect(p).toMatchObject({ id, tipo: null, temArquivoBytes: true, execucoes: 1, objetoChave: null });
    expect(p!.logArquivo).toMatch(new RegExp(`^\\d{4}/\\d{2}/${id}\\.log$`));
    expect(await status(db.pool, id)).toMatchObject({ status: 'PROCESSANDO' });
    expect(await xlsIniciar(db.pool, id, 'w2')).toBeNull();
    const { rows: [r] } = await db.pool.query('select worker, iniciado_em is not null iniciado from xls_processamento where id = $1', [id]);
    expect(r).toEqual({ worker: 'w1', iniciado: true });
  });

  it('refusals: unknown id XL404, no worker XL400', async () => {
    await expect(xlsIniciar(db.pool, NAO_EXISTE, 'w1')).rejects.toMatchObject({ code: 'XL404' });
    await expect(xlsIniciar(db.pool, await novo(), ' ')).rejects.toMatchObject({ code: 'XL400' });
  });
});

describe('xls_definir_tipo', () => {
  it('records the type of a processing held by the worker; refuses others', async () => {
    const id = await novo();
    await iniciar(db.pool, id, 'w1');
    await xlsDefinirTipo(db.pool, id, 'w1', 'RELATORIO18');
    expect((await db.pool.query('select tipo from xls_processamento where id = $1', [id])).rows[0].tipo).toBe('RELATORIO18');
    await expect(xlsDefinirTipo(db.pool, id, 'w1', 'NOPE' as TipoPlanilha)).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsDefinirTipo(db.pool, id, 'w2', 'META')).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsDefinirTipo(db.pool, await novo(), 'w1', 'META')).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsDefinirTipo(db.pool, NAO_EXISTE, 'w1', 'META')).rejects.toMatchObject({ code: 'XL404' });
  });
});

describe('PROCESSANDO -> SUCESSO / IGNORADO / ERRO', () => {
  it('SUCESSO keeps warnings and rejected rows normalised', async () => {
    const id = await novo();
    await iniciar(db.pool, id, 'w1', 'META');
    const d = await xlsConcluir(db.pool, id, 'w1', {
      linhasRejeitadas: [{ linha: 9, campo: 'meta_volume', valor: 'abc', mensagem: "linha 9: meta_volume 'abc' inválido" }, { linha: 4, campo: 'competencia', valor: 'x' }],
      avisos: ['texto solto', { motivo: 'com linhas', linhas: [3, { aba: '20', linha: 5, valor: 'v' }] }],
    });
    expect(d).toEqual({ processamentoId: id, status: 'SUCESSO', alarmar: false, motivo: null, conjuntoFechado: false, reprocessados: [] });
    const { rows: [p] } = await db.pool.query('select status, finalizado_em, avisos, linhas_rejeitadas from xls_processamento where id = $1', [id]);
    expect(p.status).toBe('SUCESSO');
    expect(p.finalizado_em).not.toBeNull();
    expect(p.linhas_rejeitadas).toEqual([
      { aba: null, linha: 4, campo: 'competencia', valor: 'x', mensagem: "linha 4: competencia 'x' inválido" },
      { aba: null, linha: 9, campo: 'meta_volume', valor: 'abc', mensagem: "linha 9: meta_volume 'abc' inválido" },
    ]);
    expect(p.avisos).toEqual([
      { categoria: 'geral', motivo: 'texto solto', quantidade: 1, linhas: [] },
      { categoria: 'geral', motivo: 'com linhas', quantidade: 2, linhas: [{ aba: null, linha: 3, valor: null }, { aba: '20', linha: 5, valor: 'v' }] },
    ]);
  });

  it('refusals of SUCESSO: other worker or not PROCESSANDO XL409, unknown XL404, malformed lists XL400 (nothing changes)', async () => {
    const id = await novo();
    await expect(xlsConcluir(db.pool, id, 'w1')).rejects.toMatchObject({ code: 'XL409' });
    await iniciar(db.pool, id, 'w1', 'META');
    await expect(xlsConcluir(db.pool, id, 'w2')).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsConcluir(db.pool, NAO_EXISTE, 'w1')).rejects.toMatchObject({ code: 'XL404' });
    await expect(xlsConcluir(db.pool, id, 'w1', { avisos: [42 as unknown as string] })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsConcluir(db.pool, id, 'w1', { linhasRejeitadas: [{ linha: 'x' as unknown as number }] })).rejects.toMatchObject({ code: 'XL400' });
    expect((await status(db.pool, id)).status).toBe('PROCESSANDO');
    await xlsConcluir(db.pool, id, 'w1');
    await expect(xlsConcluir(db.pool, id, 'w1')).rejects.toMatchObject({ code: 'XL409' });
  });

  it('IGNORADO with its reason; refused without reason or when not held', async () => {
    const id = await novo();
    await iniciar(db.pool, id, 'w1');
    await expect(xlsIgnorar(db.pool, id, 'w1', '')).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsIgnorar(db.pool, id, 'w9', 'tipo não reconhecido')).rejects.toMatchObject({ code: 'XL409' });
    const d = await xlsIgnorar(db.pool, id, 'w1', 'tipo não reconhecido');
    expect(d).toMatchObject({ status: 'IGNORADO', alarmar: false, motivo: 'tipo não reconhecido' });
    expect(await status(db.pool, id)).toMatchObject({ status: 'IGNORADO', erro_mensagem: 'tipo não reconhecido' });
  });

  it('ERRO of a loose file alarms; refused without reason or when not held', async () => {
    const id = await novo();
    await iniciar(db.pool, id, 'w1', 'META');
    await expect(xlsFalhar(db.pool, id, 'w1', { motivo: ' ' })).rejects.toMatchObject({ code: 'XL400' });
    await expect(xlsFalhar(db.pool, id, 'w2', { motivo: 'x' })).rejects.toMatchObject({ code: 'XL409' });
    const d = await xlsFalhar(db.pool, id, 'w1', { motivo: 'formato não suportado: BIFF', sqlstate: null });
    expect(d).toMatchObject({ status: 'ERRO', alarmar: true, motivo: 'formato não suportado: BIFF', reprocessados: [] });
    expect(await status(db.pool, id)).toMatchObject({ status: 'ERRO', alarmar: true, fk_falhas: 0 });
    await expect(xlsFalhar(db.pool, id, 'w1', { motivo: 'x' })).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsFalhar(db.pool, NAO_EXISTE, 'w1', { motivo: 'x' })).rejects.toMatchObject({ code: 'XL404' });
  });
});

describe('reprocess buttons', () => {
  it('one processing: ERRO -> PENDENTE with a job; a double click answers XL409 and changes nothing', async () => {
    const id = await emErro();
    expect(await xlsReprocessar(db.pool, id)).toEqual([id]);
    expect(await status(db.pool, id)).toMatchObject({ status: 'PENDENTE', erro_mensagem: null, alarmar: false });
    expect(await jobsPendentes(id)).toEqual([{ unique_key: id }]);
    await expect(xlsReprocessar(db.pool, id)).rejects.toMatchObject({ code: 'XL409' });
    expect(await jobsPendentes(id)).toHaveLength(1);
  });

  it('XL409 for SUCESSO, PROCESSANDO and IGNORADO; XL404 for an unknown id', async () => {
    const processando = await novo();
    await iniciar(db.pool, processando, 'w1', 'META');
    await expect(xlsReprocessar(db.pool, processando)).rejects.toMatchObject({ code: 'XL409' });
    await xlsConcluir(db.pool, processando, 'w1');
    await expect(xlsReprocessar(db.pool, processando)).rejects.toMatchObject({ code: 'XL409' });
    const ignorado = await novo();
    await iniciar(db.pool, ignorado, 'w1');
    await xlsIgnorar(db.pool, ignorado, 'w1', 'tipo não reconhecido');
    await expect(xlsReprocessar(db.pool, ignorado)).rejects.toMatchObject({ code: 'XL409' });
    await expect(xlsReprocessar(db.pool, NAO_EXISTE)).rejects.toMatchObject({ code: 'XL404' });
    expect((await status(db.pool, processando)).status).toBe('SUCESSO');
    await completeJobs(db.pool, 'w1');
  });

  it("the errors of a batch: only that batch's ERRO; XL404 for an unknown batch", async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'z.zip' });
    const e1 = await novo(conjunto);
    const e2 = await novo(conjunto);
    const ok = await novo(conjunto);
    for (const id of [e1, e2]) { await iniciar(db.pool, id, 'w1', 'META'); await xlsFalhar(db.pool, id, 'w1', { motivo: 'x' }); }
    await iniciar(db.pool, ok, 'w1', 'META');
    await xlsConcluir(db.pool, ok, 'w1');
    await completeJobs(db.pool, 'w1');
    const fora = await emErro();
    expect((await xlsReprocessarConjunto(db.pool, conjunto)).sort()).toEqual([e1, e2].sort());
    expect((await status(db.pool, fora)).status).toBe('ERRO');
    expect((await status(db.pool, ok)).status).toBe('SUCESSO');
    expect(await xlsReprocessarConjunto(db.pool, conjunto)).toEqual([]);
    await expect(xlsReprocessarConjunto(db.pool, NAO_EXISTE)).rejects.toMatchObject({ code: 'XL404' });
  });

  it('all errors, honouring the type filter; XL400 for an unknown type', async () => {
    await xlsReprocessarErros(db.pool); // start clean
    const meta = await emErro('META');
    const r18 = await emErro('RELATORIO18');
    const semTipo = await emErro(null);
    expect(await xlsReprocessarErros(db.pool, 'RELATORIO18')).toEqual([r18]);
    expect((await status(db.pool, meta)).status).toBe('ERRO');
    expect((await xlsReprocessarErros(db.pool)).sort()).toEqual([meta, semTipo].sort());
    expect(await xlsReprocessarErros(db.pool)).toEqual([]);
    await expect(xlsReprocessarErros(db.pool, 'NOPE' as TipoPlanilha)).rejects.toMatchObject({ code: 'XL400' });
  });
});

describe('batch close and the transient-FK retry', () => {
  const metaRows = (vendedor: string) => ({ staging: { meta: [{ linha: 2, competencia: '2026-11-01', vendedor, produto: 'P1', meta_volume: '100', meta_margem: '5' }] } });
  const r18Rows = (vendedor: string) => ({ staging: { faturamento: [fat(1, { vendedor, nome_vendedor: 'Novo' })], movimento: [] }, meta: periodoNov });

  /** Runs a META import; on failure records it with the SQLSTATE, as the handler does. */
  async function rodarMeta(id: string, worker: string, vendedor: string) {
    await iniciar(db.pool, id, worker, 'META');
    try {
      const { desfecho } = await importar(db.pool, id, worker, 'META', metaRows(vendedor));
      return desfecho;
    } catch (err) {
      const e = err as { code?: string; message: string };
      return xlsFalhar(db.pool, id, worker, { motivo: e.message, sqlstate: e.code ?? null });
    }
  }

  it('inside a batch: first FK failure silent, retried when the master report commits; the second alarms', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'ciclo.zip' });
    const meta = await novo(conjunto);
    const r18 = await novo(conjunto);
    const primeira = await rodarMeta(meta, 'w1', 'VX1');
    expect(primeira).toMatchObject({ status: 'ERRO', alarmar: false, reprocessados: [], conjuntoFechado: false });
    expect(primeira.motivo).toMatch(/vendedor não cadastrado em bi_vendedor: VX1 \(linha 2\).*nova tentativa/);
    expect(await status(db.pool, meta)).toMatchObject({ status: 'ERRO', fk_falhas: 1, fk_retentar: true, alarmar: false });
    // the META job is still running when the master commits: a follow-up job is queued
    await iniciar(db.pool, r18, 'w2', 'RELATORIO18');
    const { desfecho } = await importar(db.pool, r18, 'w2', 'RELATORIO18', r18Rows('VX1'));
    expect(desfecho).toMatchObject({ status: 'SUCESSO', conjuntoFechado: true, reprocessados: [meta] });
    expect(await status(db.pool, meta)).toMatchObject({ status: 'PENDENTE', fk_falhas: 1, fk_retentar: false });
    expect(await jobsPendentes(meta)).toEqual([{ unique_key: null }]);
    await completeJobs(db.pool, 'w1');
    await completeJobs(db.pool, 'w2');
    const { rows: [l] } = await db.pool.query('select fechamento_motivo from xls_conjunto where id = $1', [conjunto]);
    expect(l.fechamento_motivo).toContain(r18);
    // the retry succeeds now that the seller exists
    const retry = await rodarMeta(meta, 'w1', 'VX1');
    expect(retry).toMatchObject({ status: 'SUCESSO' });
    // the bot's message names the zip batch as staff call it
    const { rows: [m] } = await db.pool.query('select app.xls_mensagem_bot($1) t', [meta]);
    expect(m.t.split('\n')).toContain(`Conjunto: ${conjunto}`);
    await completeJobs(db.pool, 'w1');

    // a seller truly absent: silent once, then the alarm
    const conjunto2 = await xlsConjuntoAbrir(db.pool, { arquivo: 'ciclo2.zip' });
    const meta2 = await novo(conjunto2);
    const r18b = await novo(conjunto2);
    expect(await rodarMeta(meta2, 'w1', 'FANTASMA')).toMatchObject({ status: 'ERRO', alarmar: false });
    await completeJobs(db.pool, 'w1');
    await iniciar(db.pool, r18b, 'w2', 'RELATORIO18');
    expect((await importar(db.pool, r18b, 'w2', 'RELATORIO18', { ...r18Rows('VX1'), staging: { faturamento: [fat(2)], movimento: [] } })).desfecho.reprocessados).toEqual([meta2]);
    await completeJobs(db.pool, 'w2');
    expect(await jobsPendentes(meta2)).toEqual([{ unique_key: meta2 }]);
    const segunda = await rodarMeta(meta2, 'w1', 'FANTASMA');
    expect(segunda).toMatchObject({ status: 'ERRO', alarmar: true, reprocessados: [] });
    expect(await status(db.pool, meta2)).toMatchObject({ status: 'ERRO', fk_falhas: 2, fk_retentar: false, alarmar: true });
    await completeJobs(db.pool, 'w1');
  });

  it('a loose file alarms at once on its first FK failure', async () => {
    const meta = await novo();
    const d = await rodarMeta(meta, 'w1', 'SOLTO');
    expect(d).toMatchObject({ status: 'ERRO', alarmar: true, reprocessados: [] });
    expect(await status(db.pool, meta)).toMatchObject({ status: 'ERRO', fk_falhas: 1, fk_retentar: false });
    await completeJobs(db.pool, 'w1');
  });

  it('batch already closed: the first FK failure is retried at once (silent), the second alarms', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'tarde.zip' });
    const r18 = await novo(conjunto);
    const meta = await novo(conjunto);
    await iniciar(db.pool, r18, 'w2', 'RELATORIO18');
    expect((await importar(db.pool, r18, 'w2', 'RELATORIO18', r18Rows('VX2'))).desfecho.conjuntoFechado).toBe(true);
    await completeJobs(db.pool, 'w2');
    const d = await rodarMeta(meta, 'w1', 'AINDA-NAO');
    expect(d).toMatchObject({ status: 'PENDENTE', alarmar: false, reprocessados: [meta] });
    expect(await jobsPendentes(meta)).toEqual([{ unique_key: null }]); // its own job still held the key
    await completeJobs(db.pool, 'w1');
    expect(await rodarMeta(meta, 'w1', 'AINDA-NAO')).toMatchObject({ status: 'ERRO', alarmar: true });
    await completeJobs(db.pool, 'w1');
  });

  it('a batch without a master report closes when every processing ended, and then retries its FK failures', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'sem-mestre.zip' });
    const meta = await novo(conjunto);
    const outro = await novo(conjunto);
    expect(await rodarMeta(meta, 'w1', 'NINGUEM')).toMatchObject({ status: 'ERRO', alarmar: false, conjuntoFechado: false });
    await iniciar(db.pool, outro, 'w2');
    const d = await xlsIgnorar(db.pool, outro, 'w2', 'tipo não reconhecido');
    expect(d).toMatchObject({ conjuntoFechado: true, reprocessados: [meta] });
    expect(await status(db.pool, meta)).toMatchObject({ status: 'PENDENTE' });
    await completeJobs(db.pool, 'w1');
    await completeJobs(db.pool, 'w2');
    expect(await rodarMeta(meta, 'w1', 'NINGUEM')).toMatchObject({ status: 'ERRO', alarmar: true });
    await completeJobs(db.pool, 'w1');
  });

  it('a resend puts the record in the new batch with a fresh FK count', async () => {
    const c1 = await xlsConjuntoAbrir(db.pool, { arquivo: '1.zip' });
    const r = await receberAvulso(db.pool, 'meta-reenviada', 'm.xlsx', { conjuntoId: c1 });
    const id = r.processamentoId!;
    // the only processing of its batch: failing closes the batch, which retries it at once
    expect(await rodarMeta(id, 'w1', 'Z1')).toMatchObject({ status: 'PENDENTE', alarmar: false, conjuntoFechado: true, reprocessados: [id] });
    await completeJobs(db.pool, 'w1');
    expect(await rodarMeta(id, 'w1', 'Z1')).toMatchObject({ status: 'ERRO', alarmar: true });
    await completeJobs(db.pool, 'w1');
    const c2 = await xlsConjuntoAbrir(db.pool, { arquivo: '2.zip' });
    const again = await receberAvulso(db.pool, 'meta-reenviada', 'm.xlsx', { conjuntoId: c2 });
    expect(again).toMatchObject({ status: 'REPROCESSANDO', processamentoId: id });
    expect(await status(db.pool, id)).toMatchObject({ conjunto_id: c2, fk_falhas: 0 });
  });

  it('a resend or reprocess of a file waiting for its batch after XL424 keeps waiting, and is retried once when the master commits', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'espera.zip' });
    const meta = (await receberAvulso(db.pool, 'meta-espera', 'meta.xlsx', { conjuntoId: conjunto })).processamentoId!;
    const r18 = await novo(conjunto);
    await iniciar(db.pool, r18, 'w2', 'RELATORIO18'); // the master report is running
    expect(await rodarMeta(meta, 'w1', 'VESP')).toMatchObject({ status: 'ERRO', alarmar: false, conjuntoFechado: false });
    await completeJobs(db.pool, 'w1');
    // the user re-uploads it 0.2 s later, loose: it is not run again before the master commits
    const again = await receberAvulso(db.pool, 'meta-espera', 'meta-de-novo.xlsx');
    expect(again).toMatchObject({ status: 'REPROCESSANDO', processamentoId: meta });
    expect(again.motivo).toMatch(new RegExp(`aguarda o relatório mestre do conjunto ${conjunto}`));
    expect(await status(db.pool, meta)).toMatchObject({ status: 'ERRO', fk_falhas: 1, fk_retentar: true, alarmar: false, conjunto_id: conjunto });
    expect(await jobsPendentes(meta)).toEqual([]);
    // the reprocess buttons (one, the batch's, all of META) say it will be reprocessed, and leave it waiting
    expect(await xlsReprocessar(db.pool, meta)).toEqual([meta]);
    expect(await xlsReprocessarConjunto(db.pool, conjunto)).toEqual([meta]);
    expect(await xlsReprocessarErros(db.pool, 'META')).toContain(meta);
    expect(await status(db.pool, meta)).toMatchObject({ status: 'ERRO', fk_retentar: true });
    expect(await jobsPendentes(meta)).toEqual([]);
    const { rows: [p] } = await db.pool.query('select arquivo from xls_processamento where id = $1', [meta]);
    expect(p.arquivo).toBe('meta-de-novo.xlsx');
    // the master commits: the batch closes and reprocesses it once; the seller now exists
    const { desfecho } = await importar(db.pool, r18, 'w2', 'RELATORIO18', r18Rows('VESP'));
    expect(desfecho).toMatchObject({ status: 'SUCESSO', conjuntoFechado: true, reprocessados: [meta] });
    await completeJobs(db.pool, 'w2');
    expect(await rodarMeta(meta, 'w1', 'VESP')).toMatchObject({ status: 'SUCESSO', alarmar: false });
    await completeJobs(db.pool, 'w1');
    // once the batch is closed, a resend of a file in ERRO runs at once again (the rule above)
    const outro = (await receberAvulso(db.pool, 'meta-espera-2', 'm2.xlsx', { conjuntoId: (await xlsConjuntoAbrir(db.pool, { arquivo: 'x.zip' })) })).processamentoId!;
    expect(await rodarMeta(outro, 'w1', 'NUNCA')).toMatchObject({ status: 'PENDENTE', conjuntoFechado: true });
    await completeJobs(db.pool, 'w1');
  });
});

describe('orphan recovery (startup and every minute)', () => {
  it('PROCESSANDO of dead workers -> ERRO; of live workers with their job -> untouched; PENDENTE without job -> queued', async () => {
    await xlsRecuperar(db.pool); // start from a clean slate
    const vivo = await novo();
    await iniciar(db.pool, vivo, 'vivo');
    const morto = await novo();
    await iniciar(db.pool, morto, 'morto');
    await heartbeat(db.pool, 'morto', 600); // silent for 10 minutes
    const semJob = await novo();
    await iniciar(db.pool, semJob, 'vivo-2');
    await completeJobs(db.pool, 'vivo-2'); // its job ended without concluding (handler crashed)
    const pendente = await novo();
    await db.pool.query(`update app.job set status = 'failed' where payload ->> 'id' = $1`, [pendente]);
    const pendenteComJob = await novo();

    const r = await xlsRecuperar(db.pool);
    expect(r.orfaos.sort()).toEqual([morto, semJob].sort());
    expect(r.reenfileirados).toEqual([pendente]);
    expect(await status(db.pool, vivo)).toMatchObject({ status: 'PROCESSANDO' });
    const m = await status(db.pool, morto);
    expect(m).toMatchObject({ status: 'ERRO', alarmar: true });
    expect(m.erro_mensagem).toContain('morto');
    expect(await jobsPendentes(pendente)).toEqual([{ unique_key: pendente }]);
    expect(await jobsPendentes(pendenteComJob)).toHaveLength(1);
    // the orphan is reprocessable; a second pass changes nothing
    expect(await xlsReprocessar(db.pool, morto)).toEqual([morto]);
    expect(await xlsRecuperar(db.pool)).toEqual({ orfaos: [], reenfileirados: [], conjuntosFechados: [] });
    await xlsConcluir(db.pool, vivo, 'vivo');
    await completeJobs(db.pool, 'vivo');
  });

  it('a job rescued from a dead worker and claimed by another: the processing is an orphan at once', async () => {
    const id = await novo();
    await iniciar(db.pool, id, 'w-a');
    await db.pool.query(`update app.job set status = 'pending', locked_by = null where payload ->> 'id' = $1`, [id]);
    await claimJob(db.pool, id, 'w-b');
    expect(await xlsIniciar(db.pool, id, 'w-b')).toBeNull();
    expect((await xlsRecuperar(db.pool)).orfaos).toEqual([id]);
    await completeJobs(db.pool, 'w-b');
    await completeJobs(db.pool, 'w-a');
  });

  it('recovering the last running item of a batch closes it and retries its FK failures', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'queda.zip' });
    const meta = await novo(conjunto);
    const outro = await novo(conjunto);
    await iniciar(db.pool, meta, 'w1', 'META');
    await xlsFalhar(db.pool, meta, 'w1', { motivo: 'vendedor não cadastrado', sqlstate: 'XL424' });
    await completeJobs(db.pool, 'w1');
    await iniciar(db.pool, outro, 'caiu');
    await heartbeat(db.pool, 'caiu', 3600);
    const r = await xlsRecuperar(db.pool);
    expect(r).toEqual({ orfaos: [outro], reenfileirados: [meta], conjuntosFechados: [conjunto] });
    await completeJobs(db.pool, 'caiu');
  });

  it('is scheduled every minute in the pg_cron database', async () => {
    const c = new pg.Client({ connectionString: urlFor(inject('cronDb')) });
    await c.connect();
    const { rows } = await c.query(`select schedule, command from cron.job where jobname = 'xls_recuperar'`);
    await c.end();
    expect(rows).toEqual([{ schedule: '* * * * *', command: 'select public.xls_recuperar()' }]);
  });
});
