/**
 * The eight types besides RELATORIO18 and META end to end: upload → job → reader → COPY → SQL merge →
 * outcome, on real Postgres, with fixtures from both writers (exceljs and hand-made XML).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { buildRelatorio18 } from '../fixtures/builder.js';
import { makeZip } from '../fixtures/zip.js';
import { ESCRITORES, H, escrever, fluxoSheets, tabela, titulo, utc, type Escritor, type TSheet } from '../fixtures/tipos.js';
import { planilhasJobHandler } from '../../src/planilhas/processar.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let db: TestDatabase;
let p: Pipeline;
beforeAll(async () => {
  db = await createTestDatabase();
  p = await startPipeline(db, { env: { S3_FILE_STORAGE: 'PSQL' } });
});
afterAll(async () => {
  await p?.close();
  await db?.drop();
});

const rows = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows;

/** Uploads one loose xlsx, waits for the queue, returns its processing row. */
async function enviar(nome: string, sheets: TSheet[] | Buffer, escritor: Escritor) {
  const res = await p.upload(nome, Buffer.isBuffer(sheets) ? sheets : await escrever(sheets, escritor), XLSX);
  expect(res.statusCode).toBe(202);
  const id = res.json().itens[0].processamentoId as string;
  await p.drain();
  const [r] = await rows(`select id, tipo, status, erro_mensagem, linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas
    from xls_processamento where id = $1`, [id]);
  return r;
}

describe.each(ESCRITORES)('written by %s', (escritor) => {
  it('MARGEM_CONSOLIDADA and MARGEM_DIA', async () => {
    const mc = await enviar(`mc-${escritor}.xlsx`, [{ name: 'Plan1', rows: tabela(H.MARGEM_CONSOLIDADA, [
      ['nov/26', `F-${escritor}`, 'P1', 1000, '5.000,50', 4000, { f: 'E4-F4', v: 1000.5 }, 1.0005],
    ], { total: true }) }], escritor);
    expect(mc).toMatchObject({ tipo: 'MARGEM_CONSOLIDADA', status: 'SUCESSO', linhas_enviadas: 1, linhas_efetivas: 1 });
    expect(await rows(`select to_char(competencia, 'YYYY-MM-DD') c, receita_liquida::text r, margem_total::text m from bi_margem_consolidada where filial = $1`, [`F-${escritor}`]))
      .toEqual([{ c: '2026-11-01', r: '5000.5', m: '1000.5' }]);
    expect(await rows(`select codigo from bi_filial where codigo = $1`, [`F-${escritor}`])).toEqual([{ codigo: `F-${escritor}` }]);

    const cliente = `CL-${escritor}`;
    await db.pool.query(`insert into bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf) values ($1, 'Antigo', '11111111000111', 'A', 'Sinop', 'MT')`, [cliente]);
    const dia = utc(2026, 11, escritor === 'exceljs' ? 3 : 4);
    const md = await enviar(`md-${escritor}.xlsx`, [{ name: 'Dia', rows: tabela([...H.MARGEM_DIA, 'Prazo', 'Classe'], [
      [dia, '01', cliente, 'Novo Nome', 'V1', 'P1', 100, 6.1, 5.5, 60, null, null],
    ]) }], escritor);
    expect(md).toMatchObject({ tipo: 'MARGEM_DIA', status: 'SUCESSO', linhas_efetivas: 1 });
    expect(await rows(`select nome, cnpj_cpf, classe, municipio, uf from bi_cliente where codigo = $1`, [cliente]))
      .toEqual([{ nome: 'Novo Nome', cnpj_cpf: '11111111000111', classe: 'A', municipio: 'Sinop', uf: 'MT' }]);
    expect(await rows(`select prazo, margem::text from bi_margem_dia where cliente = $1`, [cliente])).toEqual([{ prazo: null, margem: '60' }]);
  });

  it('POSTOS then TRR: each file is the whole registry', async () => {
    const cnpj = escritor === 'exceljs' ? '12.345.678/0001-90' : '98.765.432/0001-10';
    const postos = await enviar(`postos-${escritor}.xlsx`, [{ name: 'Postos', rows: tabela(H.POSTOS, [
      [cnpj, 'Auto Posto', 'Posto', 'Shell', 'Rua 1', 'Centro', 'Cuiabá', 'MT', '78005-100', null],
    ]) }], escritor);
    expect(postos).toMatchObject({ tipo: 'POSTOS', status: 'SUCESSO', linhas_efetivas: 1 });
    // the other writer's file replaced the registry: only this file's station is left
    expect(await rows(`select cnpj, bandeira, cep from bi_posto`)).toEqual([{ cnpj: cnpj.replace(/\D/g, ''), bandeira: 'Shell', cep: '78005100' }]);
    const trr = await enviar(`trr-${escritor}.xlsx`, [{ name: 'TRR', rows: tabela(['CNPJ', 'Razão Social', 'Município', 'UF', 'Qualificação da Empresa', 'Capacidade (m³)'], [
      [cnpj, 'TRR Ltda', 'Sinop', 'MT', 'TRR', '45,5'],
    ]) }], escritor);
    expect(trr).toMatchObject({ tipo: 'TRR', status: 'SUCESSO', linhas_efetivas: 1 });
    expect(await rows(`select cnpj, qualificacao_empresa, capacidade_m3::text c from bi_trr`)).toEqual([{ cnpj: cnpj.replace(/\D/g, ''), qualificacao_empresa: 'TRR', c: '45.5' }]);
  });

  it('COMPRAS: fuels only, the others counted in the detail; resending the same file is a duplicate', async () => {
    const mes = escritor === 'exceljs' ? 7 : 8;
    const sheets: TSheet[] = [{ name: 'COMPRAS', rows: tabela(H.COMPRAS, [
      [utc(2026, mes, 5), '55.555.555/0001-55', 'Distribuidora', 9001, 'Diesel S10', 1202, 5000, 29500.5],
      [utc(2026, mes, 6), '55.555.555/0001-55', 'Distribuidora', 9002, 'Graxa', 1830, 1, 1],
    ]) }];
    const bytes = await escrever(sheets, escritor); // the same bytes twice (exceljs stamps the time it wrote)
    const c = await enviar(`compras-${escritor}.xlsx`, bytes, escritor);
    expect(c).toMatchObject({ tipo: 'COMPRAS', status: 'SUCESSO', linhas_enviadas: 2, linhas_efetivas: 1, linhas_rejeitadas: [] });
    expect(c.avisos).toEqual([expect.objectContaining({ categoria: 'filtrada', quantidade: 1, linhas: [{ aba: 'Compras', linha: 5, valor: '1830' }] })]);
    expect(await rows(`select nota_fiscal, codigo_onu, quantidade::text q from bi_compra where extract(month from data) = $1`, [mes]))
      .toEqual([{ nota_fiscal: '9001', codigo_onu: 1202, q: '5000' }]);
    const again = await p.upload(`compras-${escritor}-de-novo.xlsx`, bytes, XLSX);
    expect(again.json().itens[0]).toMatchObject({ status: 'DUPLICADO', processamentoId: null });
  });

  it('COTA_FORNECEDOR: the matrix of every year tab replaces the stored one; Diesel R5', async () => {
    const c = await enviar(`cota-${escritor}.xlsx`, [
      { name: 'Leia-me', rows: [['POLO', 'PRODUTO'], ['ignorado', 'x']] },
      { name: '2026', rows: tabela(H.COTA, [['Paulínia', 'Diesel R5', 100, 110, null, null, null, null, null, null, null, null, null, escritor === 'exceljs' ? 1 : 2]]) },
      { name: '2027', rows: tabela(H.COTA_NUMEROS, [['Betim', 'Gasolina C', 7]]) },
    ], escritor);
    expect(c).toMatchObject({ tipo: 'COTA_FORNECEDOR', status: 'SUCESSO', linhas_enviadas: 4 });
    expect(await rows(`select ano, polo, produto, mes, quantidade::text q from bi_cota_fornecedor order by ano, mes`)).toEqual([
      { ano: 2026, polo: 'Paulínia', produto: 'Diesel R5', mes: 1, q: '100' },
      { ano: 2026, polo: 'Paulínia', produto: 'Diesel R5', mes: 2, q: '110' },
      { ano: 2026, polo: 'Paulínia', produto: 'Diesel R5', mes: 12, q: escritor === 'exceljs' ? '1' : '2' },
      { ano: 2027, polo: 'Betim', produto: 'Gasolina C', mes: 1, q: '7' },
    ]);
    const vazio = await enviar(`cota-vazia-${escritor}.xlsx`, [{ name: '2028', rows: tabela(H.COTA, [], { total: escritor === 'handmade' }) }], escritor);
    expect(vazio).toMatchObject({ tipo: 'COTA_FORNECEDOR', status: 'SUCESSO', linhas_enviadas: 0, linhas_removidas: 0 });
    expect(vazio.avisos.map((a: { motivo: string }) => a.motivo)).toEqual(['envio vazio: nada removido de bi_cota_fornecedor']);
    expect(await rows(`select count(*)::int n from bi_cota_fornecedor`)).toEqual([{ n: 4 }]);
  });

  it('FLUXO_PAGAR_RECEBER: written with the Grupo warning; summary per tipo with overdue amounts', async () => {
    const dia = escritor === 'exceljs' ? 10 : 11;
    const f = await enviar(`fluxo-${escritor}.xlsx`, fluxoSheets({
      posicao: `${dia}/01/2027`, totalReceber: 150,
      titulos: [
        titulo({ documento: 'R1', vencimento: utc(2027, 1, 2), saldo: 100 }),
        titulo({ documento: 'R2', vencimento: utc(2027, 2, 2), saldo: '40,00' }),
        titulo({ tipo: 'Pagar', documento: 'P1', vencimento: utc(2027, 1, 1), saldo: 30 }),
        titulo({ tipo: 'Pagar', documento: 'P2', vencimento: utc(2027, 1, 1), saldo: 0 }),
      ],
    }), escritor);
    expect(f).toMatchObject({ tipo: 'FLUXO_PAGAR_RECEBER', status: 'SUCESSO', linhas_enviadas: 4, linhas_efetivas: 4 });
    expect(f.avisos.map((a: { motivo: string }) => a.motivo)).toEqual(['total a receber difere da aba Grupo: soma do Saldo 140,00, Total da aba Grupo 150,00']);
    expect(await rows(`select tipo, to_char(posicao, 'DD/MM/YYYY') p, atual, titulos, total::text, titulos_vencidos, vencido::text from xls_fluxo_resumo($1)`, [f.id])).toEqual([
      { tipo: 'PAGAR', p: `${dia}/01/2027`, atual: true, titulos: 2, total: '30', titulos_vencidos: 1, vencido: '30' },
      { tipo: 'RECEBER', p: `${dia}/01/2027`, atual: true, titulos: 2, total: '140', titulos_vencidos: 1, vencido: '100' },
    ]);
    expect(await rows(`select to_char(posicao, 'DD/MM/YYYY') p from bi_titulo where atual group by 1`)).toEqual([{ p: `${dia}/01/2027` }]);
    expect(await rows(`select codigo, descricao from bi_centro_custo`)).toEqual([{ codigo: '101', descricao: 'Vendas Diesel' }]);
  });

  it('FLUXO_PAGAR_RECEBER total refusal: every invalid row listed, nothing written; no SemQuebras; no position date', async () => {
    const antes = await rows('select count(*)::int n from bi_titulo');
    const r = await enviar(`fluxo-ruim-${escritor}.xlsx`, fluxoSheets({
      posicao: '20/01/2027',
      titulos: [titulo({ documento: 'OK' }), titulo({ saldo: 'abc' }), titulo({ tipo: 'X', vencimento: '31/02/2027' })],
    }), escritor);
    expect(r).toMatchObject({ tipo: 'FLUXO_PAGAR_RECEBER', status: 'ERRO' });
    expect(r.erro_mensagem).toBe("FLUXO_PAGAR_RECEBER recusado, nada gravado: 2 linha(s) inválida(s): linha 3: saldo 'abc' inválido; "
      + "linha 4: tipo 'X' inválido; linha 4: vencimento '31/02/2027' inválido");
    const semAba = await enviar(`fluxo-sem-aba-${escritor}.xlsx`, fluxoSheets({ posicao: '21/01/2027', titulos: [], semQuebras: null }), escritor);
    expect(semAba).toMatchObject({ status: 'ERRO', erro_mensagem: "FLUXO_PAGAR_RECEBER: aba 'SemQuebras' ausente" });
    const semData = await enviar(`fluxo-sem-data-${escritor}.xlsx`, fluxoSheets({ fluxo: [['Fluxo'], ['Posição', 'a definir']], titulos: [titulo()] }), escritor);
    expect(semData).toMatchObject({ status: 'ERRO' });
    expect(semData.erro_mensagem).toContain('data de posição não encontrada');
    expect(await rows('select count(*)::int n from bi_titulo')).toEqual(antes);
    await expect(rows('select * from xls_fluxo_resumo($1)', [r.id])).resolves.toEqual([]);
  });
});

describe('META_CARTEIRA inside a batch', () => {
  it('before its master report: the first failure (XL424) is silent, and it succeeds once the batch closes', async () => {
    const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
    const carteira = await escrever([{ name: 'Carteira', rows: tabela(H.META_CARTEIRA, [['nov/2026', 1001, 'P1', 500], ['nov/2026', 1002, 'P2', 600]]) }], 'handmade');
    const db2 = await createTestDatabase();
    const p2 = await startPipeline(db2, { env: { S3_FILE_STORAGE: 'PSQL' }, autostart: false });
    try {
      const zip = makeZip([{ name: 'carteira.xlsx', data: carteira }, { name: 'r18.xlsx', data: await buildRelatorio18({ rows: 100 }) }]);
      const recibo = (await p2.upload('lote.zip', zip)).json();
      const id = recibo.itens.find((i: { arquivo: string }) => i.arquivo === 'carteira.xlsx').processamentoId;
      await planilhasJobHandler(p2.ctx)({ id: 0, kind: 'xls_processar', payload: { id }, attempts: 1, max_attempts: 5 },
        { workerId: 'adiantado', log, signal: new AbortController().signal });
      const first = (await db2.pool.query('select status, alarmar, fk_retentar, erro_mensagem from xls_processamento where id = $1', [id])).rows[0];
      expect(first).toMatchObject({ status: 'ERRO', alarmar: false, fk_retentar: true });
      expect(first.erro_mensagem).toContain('cliente não cadastrado em bi_cliente: 1001 (linha 4), 1002 (linha 5)');
      for (const r of p2.runners) await r.start(null);
      await p2.drain();
      expect((await db2.pool.query('select tipo, status, execucoes from xls_processamento order by tipo')).rows).toEqual([
        { tipo: 'META_CARTEIRA', status: 'SUCESSO', execucoes: 2 }, { tipo: 'RELATORIO18', status: 'SUCESSO', execucoes: 1 },
      ]);
      expect((await db2.pool.query(`select cliente, produto, meta_volume::text v from bi_meta_carteira order by cliente`)).rows).toEqual([
        { cliente: '1001', produto: 'P1', v: '500' }, { cliente: '1002', produto: 'P2', v: '600' },
      ]);
    } finally {
      await p2.close();
      await db2.drop();
    }
  });
});
