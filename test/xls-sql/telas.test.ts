/**
 * The SQL behind the processing screens: staff names of the types, the explanation of each
 * kind of failure with its next step, the refused rows an ERRO keeps, the error a resent
 * processing had, the progress a running job reports, the refused uploads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { popularTelas, WORKER_TELAS, type DadosTelas } from '../web/dados-telas.js';

let db: TestDatabase;
let d: DadosTelas;
beforeAll(async () => {
  db = await createTestDatabase();
  d = await popularTelas(db);
});
afterAll(async () => { await db?.drop(); });

async function explicar(id: string) {
  const { rows } = await db.pool.query(`select x.* from xls_processamento p, public.xls_falha_explicar(p.status, p.erro_mensagem, p.erro_codigo, p.linhas_rejeitadas) x where p.id = $1`, [id]);
  return rows[0] ?? null;
}

describe('type names (app.xls_tipo.nome, xls_tipo_nome)', () => {
  it('every type has one pt-BR name; unknown codes show themselves; null stays null', async () => {
    const { rows } = await db.pool.query(`select tipo, public.xls_tipo_nome(tipo) as nome from app.xls_tipo order by ordem`);
    expect(rows.find((r) => r.tipo === 'FLUXO_PAGAR_RECEBER')!.nome).toBe('Contas a pagar e receber');
    expect(rows.find((r) => r.tipo === 'META')!.nome).toBe('Metas por vendedor');
    expect(rows.every((r) => r.nome !== r.tipo && !/_/.test(r.nome))).toBe(true);
    expect(new Set(rows.map((r) => r.nome)).size).toBe(rows.length);
    const { rows: [x] } = await db.pool.query(`select public.xls_tipo_nome('XPTO') as a, public.xls_tipo_nome(null) as b`);
    expect(x).toEqual({ a: 'XPTO', b: null });
  });
});

describe('xls_falha_explicar: each kind of failure with its next step', () => {
  it('missing seller: names it and says to send the RELATORIO18 first', async () => {
    expect(await explicar(d.erroCadastro)).toEqual({
      tipo: 'cadastro',
      resumo: 'Falta cadastro: vendedor 999 (linhas 6, 10) não está cadastrado.',
      proximo_passo: 'Envie primeiro o Relatório 18 (faturamento e movimento) que cadastra o vendedor 999 e depois clique em "Reprocessar este".',
    });
  });
  it('inside a batch that retries by itself: nothing to do', async () => {
    const x = await explicar(d.conjuntoRetidoMeta);
    expect(x.tipo).toBe('cadastro');
    expect(x.proximo_passo).toMatch(/^Nada a fazer agora: o arquivo é refeito sozinho quando o Relatório 18/);
  });
  it('invalid rows: fix rows 6 and 10 and resend', async () => {
    expect(await explicar(d.erroLinhas)).toEqual({
      tipo: 'linhas', resumo: '2 linhas inválidas: nada foi gravado.', proximo_passo: 'Corrija as linhas 6 e 10 na planilha e envie o arquivo de novo.',
    });
    // from the message alone (rows lost) as well
    const { rows: [y] } = await db.pool.query(`select * from public.xls_falha_explicar('ERRO', 'FLUXO_PAGAR_RECEBER recusado, nada gravado: 1 linha(s) inválida(s): linha 7: Valor ''x'' inválido', 'XL422', '[]')`);
    expect(y.proximo_passo).toBe('Corrija a linha 7 na planilha e envie o arquivo de novo.');
  });
  it('unreadable file: save it again from Excel or LibreOffice; no zip internals in the summary', async () => {
    const x = await explicar(d.erroIlegivel);
    expect(x).toMatchObject({ tipo: 'ilegivel', resumo: 'O arquivo não é uma planilha .xlsx legível.' });
    expect(x.proximo_passo).toContain('Excel ou no LibreOffice');
  });
  it('technical failure, refused content, ignored; nothing for other statuses', async () => {
    expect((await explicar(d.erroTecnico)).tipo).toBe('tecnica');
    const { rows: [c] } = await db.pool.query(`select * from public.xls_falha_explicar('ERRO', 'FLUXO_PAGAR_RECEBER recusado: data de posição ausente ou inválida (ausente)', 'XL422', '[]')`);
    expect(c).toMatchObject({ tipo: 'conteudo', resumo: 'FLUXO_PAGAR_RECEBER recusado: data de posição ausente ou inválida (ausente)' });
    expect((await explicar(d.ignorado)).tipo).toBe('ignorado');
    expect(await explicar(d.sucesso)).toBeNull();
  });
});

describe('xls_falhar keeps the refused rows', () => {
  it('the reader rows given, else the rows a missing-registration message names; the code too', async () => {
    const { rows } = await db.pool.query(`select id, erro_codigo, linhas_rejeitadas from xls_processamento where id = any($1::uuid[])`, [[d.erroLinhas, d.erroCadastro, d.erroTecnico]]);
    const by = new Map(rows.map((r) => [r.id, r]));
    expect(by.get(d.erroLinhas)!.erro_codigo).toBe('XL422');
    expect(by.get(d.erroLinhas)!.linhas_rejeitadas.map((l: { linha: number; campo: string }) => [l.linha, l.campo])).toEqual([[6, 'Vencimento'], [10, 'Saldo']]);
    expect(by.get(d.erroCadastro)!.linhas_rejeitadas).toEqual([
      { aba: null, linha: 6, campo: 'vendedor', valor: '999', mensagem: 'vendedor 999 não cadastrado' },
      { aba: null, linha: 10, campo: 'vendedor', valor: '999', mensagem: 'vendedor 999 não cadastrado' },
    ]);
    expect(by.get(d.erroTecnico)!.linhas_rejeitadas).toEqual([]);
    expect(by.get(d.erroTecnico)!.erro_codigo).toBe('57P01');
  });
  it('several codes and lines, "…" and "e mais" ignored', async () => {
    const { rows: [r] } = await db.pool.query(`select app.xls_falha_linhas('cliente não cadastrado em bi_cliente: 10 (linha 4), 7/2 (linhas 5, 9, …) e mais 3', 'XL424') as l`);
    expect(r.l.map((x: { linha: number; valor: string }) => `${x.valor}@${x.linha}`)).toEqual(['10@4', '7/2@5', '7/2@9']);
    const { rows: [n] } = await db.pool.query(`select app.xls_falha_linhas('vendedor não cadastrado em bi_vendedor: 1 (linha 2)', '57P01') as l`);
    expect(n.l).toEqual([]);
  });
});

describe('resent errors (erro_anterior)', () => {
  it('keeps the error it had while it waits; a success clears the code', async () => {
    const { rows: [r] } = await db.pool.query(`select status, erro_mensagem, erro_codigo, erro_anterior from xls_processamento where id = $1`, [d.reenviado]);
    expect(r).toEqual({ status: 'PENDENTE', erro_mensagem: null, erro_codigo: null, erro_anterior: 'cliente não cadastrado em bi_cliente: 40917 (linha 4)' });
  });
});

describe('xls_progresso', () => {
  it('records rows read for the worker holding it; never goes back; a late report is ignored', async () => {
    const ler = async () => (await db.pool.query(`select execucao, linhas_lidas from xls_processamento_progresso where processamento_id = $1`, [d.processando])).rows[0];
    expect(await ler()).toEqual({ execucao: 1, linhas_lidas: 12000 });
    await db.pool.query(`select public.xls_progresso($1, $2, 8000)`, [d.processando, WORKER_TELAS]);
    expect((await ler()).linhas_lidas).toBe(12000);
    const { rows: [o] } = await db.pool.query(`select public.xls_progresso($1, 'outro', 20000) as ok`, [d.processando]);
    expect(o.ok).toBe(false);
    expect((await ler()).linhas_lidas).toBe(12000);
    await expect(db.pool.query(`select public.xls_progresso($1, $2, -1)`, [d.processando, WORKER_TELAS])).rejects.toMatchObject({ code: 'XL400' });
    const { rows: [f] } = await db.pool.query(`select public.xls_progresso($1, $2, 5) as ok`, [d.sucesso, WORKER_TELAS]);
    expect(f.ok).toBe(false);
  });
});

describe('xls_progresso while the merge transaction holds the processing', () => {
  it('lands at once and is visible before the merge commits (no wait on the row lock)', async () => {
    const merge = await db.pool.connect();
    const outro = await db.pool.connect();
    try {
      await merge.query('begin');
      await merge.query('select 1 from xls_processamento where id = $1 for update', [d.processando]); // what app.xls_merge_tipo takes
      await outro.query(`set statement_timeout = '2s'`);
      const { rows: [r] } = await outro.query(`select public.xls_progresso($1, $2, 15000) as ok`, [d.processando, WORKER_TELAS]);
      expect(r.ok).toBe(true);
      const { rows: [g] } = await db.pool.query(`select linhas_lidas from xls_processamento_progresso where processamento_id = $1`, [d.processando]);
      expect(g.linhas_lidas).toBe(15000);
    } finally {
      await merge.query('rollback');
      await outro.query('reset statement_timeout');
      merge.release();
      outro.release();
    }
  });
});

describe('xls_upload_recusar', () => {
  it('records who, when, file name and reason, never bytes', async () => {
    const { rows } = await db.pool.query(`select origem, arquivo, uploader_nome, status_http, codigo, motivo from xls_upload_recusa order by recusado_em, arquivo`);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.arquivo === 'relatorio18-outubro.xlsx')).toMatchObject({ origem: 'importar', uploader_nome: 'Ana Souza', status_http: 400 });
    const { rows: cols } = await db.pool.query(`select data_type from information_schema.columns where table_name = 'xls_upload_recusa'`);
    expect(cols.map((c) => c.data_type)).not.toContain('bytea');
    await expect(db.pool.query(`select public.xls_upload_recusar('ftp', 'a', 1, null, null, null, 400, null, 'x')`)).rejects.toMatchObject({ code: '23514' });
  });
});
