/**
 * xls_merge_chunk: the edge merges each COPYed chunk while it reads the next. A file merged in
 * chunks must leave the database and the metrics exactly as one xls_merge of every row would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { xlsMerge, xlsMergeChunk, xlsStagingPreparar } from '../../src/planilhas/db.js';
import { copyStagingEmChunks } from '../../src/planilhas/processar.js';
import type { StagingRow } from '../../src/xlsx/index.js';
import { completeJobs, copyStaging, fat, iniciar, mov, periodoNov, processarNovo, receberAvulso, type Row } from './helpers.js';

let one: TestDatabase;
let chunks: TestDatabase;
beforeAll(async () => { [one, chunks] = await Promise.all([createTestDatabase(), createTestDatabase()]); });
afterAll(async () => { await Promise.all([one?.drop(), chunks?.drop()]); });

let n = 0;

/** What a merge leaves behind, without ids and timestamps. */
async function estado(db: TestDatabase) {
  const q = async (sql: string) => (await db.pool.query(sql)).rows;
  return {
    faturamento: await q(`select filial, nota_fiscal, serie, item, emissao::text, cliente, vendedor, produto, quantidade::text, valor_unitario::text, valor_total::text, placa
                            from bi_faturamento order by 1, 2, 3, 4`),
    movimento: await q(`select filial, lancamento, conta, data::text, descricao_conta, historico, debito::text, credito::text, placa from bi_movimento order by 1, 2, 3`),
    filial: await q('select codigo from bi_filial order by 1'),
    vendedor: await q('select codigo, nome, filial from bi_vendedor order by 1'),
    cliente: await q('select codigo, nome from bi_cliente order by 1'),
    produto: await q('select codigo, descricao from bi_produto order by 1'),
    veiculo: await q('select placa, ano_fabricacao, ano_modelo, modelo from bi_veiculo order by 1'),
  };
}

const base = { faturamento: Array.from({ length: 30 }, (_, i) => fat(i)), movimento: Array.from({ length: 12 }, (_, i) => mov(i)) };

/** Changed, identical, new and absent rows; keys repeated inside a chunk and across chunks; rejected rows; vehicle warnings. */
function arquivo(): { faturamento: Row[]; movimento: Row[] } {
  const faturamento: Row[] = [];
  let linha = 2;
  const push = (r: Row) => faturamento.push({ ...r, linha: linha++ });
  for (let i = 0; i < 30; i++) {
    if (i % 10 === 9) continue; // absent: deleted by the scope
    push(i % 4 === 0 ? fat(i, { valor_total: '1.5', nome_cliente: `Novo nome ${i}` }) : fat(i));
  }
  push(fat(40, { placa: 'abc-1d23', ano_veiculo: '2020/2021', modelo_veiculo: 'Scania' }));
  push(fat(41, { placa: 'XX', ano_veiculo: '20/21' }));
  push(fat(3, { valor_total: '99', vendedor: 'V9', nome_vendedor: 'Vendedor novo' })); // repeats a key of the first chunk
  push(fat(42, { nota_fiscal: null }));
  push(fat(43));
  push(fat(43, { valor_total: '43.43' })); // repeats the previous row, same chunk
  push(fat(5, { valor_total: '55' })); // repeats a key of the first chunk, again changed
  push(fat(44, { emissao: null }));
  const movimento: Row[] = [];
  linha = 2;
  for (let i = 0; i < 12; i++) if (i !== 4) movimento.push({ ...mov(i, i === 2 ? { debito: '77' } : {}), linha: linha++ });
  movimento.push({ ...mov(1, { historico: 'repetido' }), linha: linha++ });
  movimento.push({ ...mov(21, { placa: 'BRA2E19', ano_veiculo: '2019/2019' }), linha: linha++ });
  return { faturamento, movimento };
}

describe('xls_merge_chunk', () => {
  it('a file merged in chunks leaves the same rows and the same metrics as one merge', async () => {
    await processarNovo(one.pool, 'base', 'RELATORIO18', { staging: base, meta: periodoNov });
    const input = arquivo();
    const a = await processarNovo(one.pool, 'arquivo', 'RELATORIO18', { staging: input, meta: periodoNov });
    for (const size of [4, 1, 7]) {
      // the same two imports into a fresh database, the file in chunks of `size` rows
      const db = await createTestDatabase();
      try {
        await processarNovo(db.pool, 'base', 'RELATORIO18', { staging: base, meta: periodoNov });
        const b = await processarNovo(db.pool, 'arquivo', 'RELATORIO18', { staging: input, meta: periodoNov, chunk: size });
        expect({ ...b.merge }, `chunks of ${size}`).toEqual({ ...a.merge });
        expect(await estado(db), `chunks of ${size}`).toEqual(await estado(one));
      } finally {
        await db.drop();
      }
    }
    // the metrics are the interesting ones: updates, inserts, deletes, duplicates, rejections
    expect(a.merge.linhasEfetivas).toBeGreaterThan(0);
    // tab 20 had rejected rows: its deletions are suspended; tab 30 deletes its absent row
    expect(a.merge.linhasRemovidas).toBe(1);
    expect(a.merge.tabelas.bi_movimento?.removidas).toBe(1);
    expect(a.merge.avisos.find((x) => x.categoria === 'duplicada')?.quantidade).toBe(4); // 20: 3, 5, 43; 30: 1
    expect(a.merge.linhasRejeitadas.map((r) => `${r.aba}:${r.linha}`)).toEqual(['20:32', '20:36']);
    expect(a.merge.avisos.filter((x) => x.categoria === 'veiculo').length).toBeGreaterThan(0);
  });

  it('a key repeated across chunks counts once in linhas_efetivas, also when its last row changes nothing; its last row wins', async () => {
    const faturamento = [fat(100), fat(101), fat(102), fat(100, { valor_total: '2' }), fat(101, { valor_total: '3' }), fat(102)].map((r, i) => ({ ...r, linha: i + 2 }));
    const { merge } = await processarNovo(chunks.pool, `rep-${++n}`, 'RELATORIO18', { staging: { faturamento, movimento: [] }, meta: { periodo_inicio: '2026-10-01', periodo_fim: '2026-10-31' }, chunk: 3 });
    expect(merge.linhasEnviadas).toBe(6);
    expect(merge.linhasEfetivas).toBe(3);
    expect(merge.tabelas.bi_faturamento).toEqual({ enviadas: 6, efetivas: 3, removidas: 0 });
    expect(merge.avisos).toContainEqual(expect.objectContaining({ categoria: 'duplicada', quantidade: 3, linhas: [2, 3, 4].map((linha) => ({ aba: '20', linha, valor: null })) }));
    const { rows } = await chunks.pool.query(`select nota_fiscal, valor_total::text v from bi_faturamento where nota_fiscal in ('1100', '1101', '1102') order by 1`);
    expect(rows).toEqual([{ nota_fiscal: '1100', v: '2' }, { nota_fiscal: '1101', v: '3' }, { nota_fiscal: '1102', v: fat(102).valor_total }]);
  });

  it('a key repeated between a chunk and the rows left staged for xls_merge is found too (a DBA merging some chunks, then the rest)', async () => {
    const faturamento = [fat(300), fat(301)].map((r, i) => ({ ...r, linha: i + 2 }));
    const movimento = [mov(300), mov(301), mov(302), mov(300, { historico: 'repetido no fim' })].map((r, i) => ({ ...r, linha: i + 2 }));
    const meta = { periodo_inicio: '2026-09-01', periodo_fim: '2026-09-30' };
    const staging = {
      faturamento: faturamento.map((r) => ({ ...r, emissao: '2026-09-10' })),
      movimento: movimento.map((r) => ({ ...r, data: '2026-09-10' })),
    };
    const [emLotes, deUmaVez] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      const a = await processarNovo(emLotes.pool, `fim-${++n}`, 'RELATORIO18', { staging, meta, chunk: 3, ultimoChunkNoMerge: true });
      const b = await processarNovo(deUmaVez.pool, `fim-${++n}`, 'RELATORIO18', { staging, meta });
      expect(a.merge.avisos).toContainEqual(expect.objectContaining({ categoria: 'duplicada', quantidade: 1, linhas: [{ aba: '30', linha: 2, valor: null }] }));
      expect(a.merge.tabelas.bi_movimento).toEqual({ enviadas: 4, efetivas: 3, removidas: 0 });
      expect({ ...a.merge }).toEqual({ ...b.merge });
      expect(await estado(emLotes)).toEqual(await estado(deUmaVez));
      const { rows } = await emLotes.pool.query(`select historico from bi_movimento where lancamento = '5300'`);
      expect(rows).toEqual([{ historico: 'repetido no fim' }]);
    } finally {
      await Promise.all([emLotes.drop(), deUmaVez.drop()]);
    }
  });

  it('reference tables take each value from the last row that has it, across chunks; a row that gave way to a later one gives nothing', async () => {
    // chunks of 3: names only in early chunks, later rows without a name, the seller's filial
    // changing chunk to chunk, a filial seen only in tab 30; with a repeat (the chunks' candidates
    // are rebuilt from the surviving rows) a row that repeats a key across chunks carries the
    // only mention of a seller, client and product
    const linhas = [
      fat(200, { vendedor: 'RV1', nome_vendedor: 'Primeiro nome', filial: '11', cliente: 'RC1', nome_cliente: 'Cliente antigo', produto: 'RP1', descricao_produto: 'Desc antiga' }),
      fat(201, { vendedor: 'RV2', nome_vendedor: 'Só no lote 1', cliente: 'RC2', nome_cliente: null, produto: 'RP2', descricao_produto: null }),
      fat(202, { vendedor: 'RVX', nome_vendedor: 'Perdedor', cliente: 'RCX', nome_cliente: 'Perdedor', produto: 'RPX', descricao_produto: 'Perdedor' }),
      fat(203, { vendedor: 'RV1', nome_vendedor: 'Nome final', filial: '12', cliente: 'RC1', nome_cliente: 'Cliente novo', produto: 'RP1', descricao_produto: null }),
      fat(204, { vendedor: 'RV2', nome_vendedor: null, filial: '13', cliente: 'RC2', nome_cliente: null }),
      fat(205, { vendedor: 'RV1', nome_vendedor: null, filial: '14', cliente: 'RC1', nome_cliente: null, produto: 'RP1', descricao_produto: null }),
      fat(206, { vendedor: 'RV1', nome_vendedor: null, filial: '14', cliente: 'RC1', nome_cliente: null, produto: 'RP1', descricao_produto: null }),
      fat(207, { vendedor: 'RV1', nome_vendedor: null, filial: '14', cliente: 'RC1', nome_cliente: null, produto: 'RP1', descricao_produto: null }),
    ];
    const repeticao = fat(202, { vendedor: 'RV3', nome_vendedor: 'Vencedor', cliente: 'RC3', nome_cliente: null, produto: 'RP3', descricao_produto: null });
    const comum = {
      vendedor: [{ codigo: 'RV1', nome: 'Nome final', filial: '14' }, { codigo: 'RV2', nome: 'Só no lote 1', filial: '13' }],
      cliente: [{ codigo: 'RC1', nome: 'Cliente novo' }, { codigo: 'RC2', nome: null }],
      produto: [{ codigo: 'RP1', descricao: 'Desc antiga' }, { codigo: 'RP2', descricao: null }],
    };
    const cenarios = [
      { nome: 'sem repetição', faturamento: linhas, esperado: {
        vendedor: [...comum.vendedor, { codigo: 'RVX', nome: 'Perdedor', filial: '01' }],
        cliente: [...comum.cliente, { codigo: 'RCX', nome: 'Perdedor' }],
        produto: [...comum.produto, { codigo: 'RPX', descricao: 'Perdedor' }] } },
      { nome: 'com repetição', faturamento: [...linhas, repeticao], esperado: {
        vendedor: [...comum.vendedor, { codigo: 'RV3', nome: 'Vencedor', filial: '01' }],
        cliente: [...comum.cliente, { codigo: 'RC3', nome: null }],
        produto: [...comum.produto, { codigo: 'RP3', descricao: null }] } },
    ];
    const ref = async (pool: TestDatabase['pool']) => {
      const q = async (sql: string) => (await pool.query(sql)).rows;
      return {
        vendedor: await q(`select codigo, nome, filial from bi_vendedor where codigo like 'RV%' order by 1`),
        cliente: await q(`select codigo, nome from bi_cliente where codigo like 'RC%' order by 1`),
        produto: await q(`select codigo, descricao from bi_produto where codigo like 'RP%' order by 1`),
        filial: await q(`select codigo from bi_filial where codigo between '11' and '15' order by 1`),
      };
    };
    const meta = { periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' };
    for (const c of cenarios) {
      const staging = { faturamento: c.faturamento.map((r, i) => ({ ...r, linha: i + 2 })), movimento: [mov(200, { filial: '15' })] };
      const [emLotes, deUmaVez] = await Promise.all([createTestDatabase(), createTestDatabase()]);
      try {
        await processarNovo(emLotes.pool, `ref-${++n}`, 'RELATORIO18', { staging, meta, chunk: 3 });
        await processarNovo(deUmaVez.pool, `ref-${++n}`, 'RELATORIO18', { staging, meta });
        const esperado = { ...c.esperado, filial: ['11', '12', '13', '14', '15'].map((codigo) => ({ codigo })) };
        expect(await ref(emLotes.pool), `${c.nome}, em lotes`).toEqual(esperado);
        expect(await ref(deUmaVez.pool), `${c.nome}, de uma vez`).toEqual(esperado);
      } finally {
        await Promise.all([emLotes.drop(), deUmaVez.drop()]);
      }
    }
  });

  it('the vehicle registry takes each value from the latest row (date, then tab 20, then the last row), in chunks or not', async () => {
    const P = 'QWE1R23';
    const faturamento = [
      fat(300, { emissao: '2026-09-05', placa: P, ano_veiculo: '2015/2016', modelo_veiculo: 'M1' }),
      fat(301, { emissao: '2026-09-20', placa: P, ano_veiculo: '2017/2018' }), // latest date with a year
      fat(302, { emissao: null, placa: P, ano_veiculo: '2019/2020', modelo_veiculo: 'M3' }), // no date: rejected, and last in the order
      fat(303, { emissao: '2026-09-05', placa: P, modelo_veiculo: 'M2' }), // same date as the first, later row: its model wins
    ].map((r, i) => ({ ...r, linha: i + 2 }));
    const movimento = [{ ...mov(300, { data: '2026-09-20', placa: P, ano_veiculo: '2021/2022' }), linha: 2 }]; // same date, tab 30: loses to tab 20
    for (const lote of [undefined, 1, 2]) {
      await chunks.pool.query('delete from bi_veiculo where placa = $1', [P]);
      await processarNovo(chunks.pool, `veic-${++n}`, 'RELATORIO18', { staging: { faturamento, movimento }, meta: { periodo_inicio: '2026-09-01', periodo_fim: '2026-09-30' }, chunk: lote });
      const { rows } = await chunks.pool.query('select ano_fabricacao, ano_modelo, modelo from bi_veiculo where placa = $1', [P]);
      expect(rows, `lote ${lote}`).toEqual([{ ano_fabricacao: 2017, ano_modelo: 2018, modelo: 'M2' }]);
    }
  });

  it('new rows get time-ordered ids (UUID version 7 layout), increasing in the order they were written', async () => {
    const faturamento = [fat(503, { cliente: 'CZ3' }), fat(501, { cliente: 'CZ1' }), fat(502, { cliente: 'CZ2' }), fat(500, { cliente: 'CZ0' })]
      .map((r, i) => ({ ...r, linha: i + 2 }));
    await processarNovo(chunks.pool, `ids-${++n}`, 'RELATORIO18', { staging: { faturamento, movimento: [] }, meta: { periodo_inicio: '2026-08-01', periodo_fim: '2026-08-31' }, chunk: 2 });
    const { rows } = await chunks.pool.query(`select id::text, nota_fiscal from bi_faturamento where nota_fiscal in ('1500', '1501', '1502', '1503') order by id`);
    // the type's own target in the file's order: chunk 1 (1503, 1501), then chunk 2 (1502, 1500)
    expect(rows.map((r) => r.nota_fiscal)).toEqual(['1503', '1501', '1502', '1500']);
    // a reference table, which other types write too, in key order (bi_cliente: once, at the end)
    const clientes = await chunks.pool.query(`select codigo from bi_cliente where codigo like 'CZ_' order by id`);
    expect(clientes.rows.map((r) => r.codigo)).toEqual(['CZ0', 'CZ1', 'CZ2', 'CZ3']);
    for (const r of rows) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = parseInt(r.id.replace(/-/g, '').slice(0, 12), 16);
      expect(Math.abs(ms - Date.now())).toBeLessThan(10 * 60_000);
    }
  });

  it('refusals: unknown XL404, no type or not PROCESSANDO XL409, bad period XL422, another period in a later chunk XL409', async () => {
    await expect(xlsMergeChunk(chunks.pool, '00000000-0000-0000-0000-000000000000')).rejects.toMatchObject({ code: 'XL404' });
    const semTipo = await receberAvulso(chunks.pool, `sem-tipo-${++n}`);
    await expect(xlsMergeChunk(chunks.pool, semTipo.processamentoId!)).rejects.toMatchObject({ code: 'XL409' }); // PENDENTE
    await iniciar(chunks.pool, semTipo.processamentoId!, 'w-l', null);
    await expect(xlsMergeChunk(chunks.pool, semTipo.processamentoId!)).rejects.toMatchObject({ code: 'XL409', message: expect.stringMatching(/sem tipo/) });
    await completeJobs(chunks.pool, 'w-l');

    const r = await receberAvulso(chunks.pool, `periodo-${++n}`);
    await iniciar(chunks.pool, r.processamentoId!, 'w-l', 'RELATORIO18');
    const client = await chunks.pool.connect();
    try {
      await client.query('begin');
      const [tf] = await xlsStagingPreparar(client, 'RELATORIO18');
      await client.query('savepoint s');
      await expect(xlsMergeChunk(client, r.processamentoId!, { periodo_inicio: '2026-11-30', periodo_fim: '2026-11-01' })).rejects.toMatchObject({ code: 'XL422' });
      await client.query('rollback to savepoint s');
      await copyStaging(client, tf!.tabela, tf!.colunas, [fat(200)]);
      expect(await xlsMergeChunk(client, r.processamentoId!, periodoNov)).toBe(1);
      await client.query('savepoint s');
      await expect(xlsMergeChunk(client, r.processamentoId!, { periodo_inicio: '2026-12-01', periodo_fim: '2026-12-31' })).rejects.toMatchObject({ code: 'XL409' });
      await client.query('rollback to savepoint s');
      // a new merge in the same transaction starts from nothing: the chunk above is not counted
      await xlsStagingPreparar(client, 'RELATORIO18');
      await copyStaging(client, tf!.tabela, tf!.colunas, [fat(201), fat(202)]);
      expect(await xlsMergeChunk(client, r.processamentoId!, periodoNov)).toBe(2);
      expect((await xlsMerge(client, r.processamentoId!, periodoNov)).linhasEnviadas).toBe(2);
    } finally {
      await client.query('rollback');
      client.release();
      await completeJobs(chunks.pool, 'w-l');
    }
  });

  it('META gets chunks from the declarative merge: each chunk is written and the staging emptied; the end adds the scope deletes', async () => {
    await chunks.pool.query(`insert into bi_vendedor (codigo) values ('V1') on conflict do nothing`);
    const r = await receberAvulso(chunks.pool, `meta-${++n}`);
    await iniciar(chunks.pool, r.processamentoId!, 'w-l', 'META');
    const client = await chunks.pool.connect();
    try {
      await client.query('begin');
      const [tm] = await xlsStagingPreparar(client, 'META');
      await copyStaging(client, tm!.tabela, tm!.colunas, [{ linha: 2, competencia: '2026-11-01', vendedor: 'V1', produto: 'P1', meta_volume: '10', meta_margem: '1' }]);
      expect(await xlsMergeChunk(client, r.processamentoId!)).toBe(1);
      expect((await client.query('select count(*)::int n from pg_temp.xls_stg_meta')).rows[0].n).toBe(0);
      expect((await client.query(`select meta_volume from bi_meta where vendedor = 'V1' and produto = 'P1'`)).rows).toEqual([{ meta_volume: '10' }]);
      await copyStaging(client, tm!.tabela, tm!.colunas, [{ linha: 3, competencia: '2026-11-01', vendedor: 'V1', produto: 'P1', meta_volume: '12', meta_margem: '1' }]);
      const m = await xlsMerge(client, r.processamentoId!);
      expect([m.linhasEnviadas, m.linhasEfetivas]).toEqual([2, 1]);
      expect(m.avisos).toContainEqual(expect.objectContaining({ categoria: 'duplicada', linhas: [{ aba: null, linha: 2, valor: null }] }));
      expect((await client.query(`select meta_volume from bi_meta where vendedor = 'V1' and produto = 'P1'`)).rows).toEqual([{ meta_volume: '12' }]);
    } finally {
      await client.query('rollback');
      client.release();
      await completeJobs(chunks.pool, 'w-l');
    }
  });
});

describe('copyStagingEmChunks (the edge)', () => {
  async function* linhas(): AsyncGenerator<StagingRow> {
    for (let i = 0; i < 5; i++) yield { staging: 'faturamento', linha: i + 2, values: { filial: '01', nota_fiscal: `N${i}`, nome_cliente: 'tab\tnova\nlinha \\' } };
    for (let i = 0; i < 3; i++) yield { staging: 'movimento', linha: i + 2, values: { filial: '01', lancamento: `L${i}` } };
  }

  it('chunks of at most N rows (the first a fifth of N), never mixing tables; each chunk merged after its COPY, one query at a time', async () => {
    const client = await chunks.pool.connect();
    try {
      await client.query('begin');
      const tabelas = await xlsStagingPreparar(client, 'RELATORIO18');
      const seen: string[] = [];
      const copied = await copyStagingEmChunks(client, tabelas, linhas(), 2, async () => {
        const { rows } = await client.query(`select (select count(*) from pg_temp.xls_stg_faturamento)::int f, (select count(*) from pg_temp.xls_stg_movimento)::int m`);
        seen.push(`${rows[0].f}/${rows[0].m}`);
        await client.query('truncate pg_temp.xls_stg_faturamento, pg_temp.xls_stg_movimento');
      });
      expect(Object.fromEntries(copied)).toEqual({ faturamento: 5, movimento: 3 });
      expect(seen).toEqual(['1/0', '2/0', '2/0', '0/2', '0/1']);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('values keep tabs, new lines and backslashes; a failing chunk merge fails the copy with its error', async () => {
    const client = await chunks.pool.connect();
    try {
      await client.query('begin');
      const tabelas = await xlsStagingPreparar(client, 'RELATORIO18');
      let calls = 0;
      const err = await copyStagingEmChunks(client, tabelas, linhas(), 2, async () => {
        calls += 1;
        if (calls === 1) {
          const { rows } = await client.query(`select nome_cliente from pg_temp.xls_stg_faturamento order by linha limit 1`);
          expect(rows[0].nome_cliente).toBe('tab\tnova\nlinha \\');
          return;
        }
        await client.query(`select 1/0`);
      }).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: '22012' });
      expect(calls).toBe(2);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
