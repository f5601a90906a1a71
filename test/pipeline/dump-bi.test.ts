/**
 * Regression of the declarative merge: the fixtures of all ten types, through the whole
 * pipeline (reader → COPY → SQL merge), in an order that exercises inserts, changes, deletes,
 * reference tables ("keep the stored value when the sheet's is empty"), repeated keys and
 * rejected rows; then an ordered dump of every bi_* table (without ids and timestamps) and of
 * each processing's outcome is compared with test/pipeline/esperado/dump-bi.json, captured
 * from the merge before it was simplified. `DUMP_BI_GRAVAR=1` rewrites the expected file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { startPipeline, type Pipeline } from '../harness/pipeline.js';
import { buildMeta, buildRelatorio18 } from '../fixtures/builder.js';
import { H, escrever, fluxoSheets, tabela, titulo, utc, type Escritor, type TSheet } from '../fixtures/tipos.js';

const ESPERADO = new URL('./esperado/dump-bi.json', import.meta.url);
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

async function enviar(nome: string, conteudo: TSheet[] | Buffer, escritor: Escritor = 'exceljs') {
  const res = await p.upload(nome, Buffer.isBuffer(conteudo) ? conteudo : await escrever(conteudo, escritor), XLSX);
  expect(res.statusCode).toBe(202);
  const id = res.json().itens[0].processamentoId as string;
  await p.drain();
  const [r] = await rows(`select arquivo, tipo, status, erro_mensagem, linhas_enviadas, linhas_efetivas, linhas_removidas, avisos, linhas_rejeitadas
    from xls_processamento where id = $1`, [id]);
  return r;
}

/** Every bi_* table but bi_configuracao, its columns but id and atualizado_em, rows in the order of all columns. */
async function dump(): Promise<Record<string, unknown[]>> {
  const tabelas = await rows(`select c.relname as t, array_agg(a.attname::text order by a.attnum) as cols
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attname not in ('id', 'atualizado_em')
     where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'bi\\_%' and c.relname <> 'bi_configuracao'
     group by c.relname order by c.relname`);
  const out: Record<string, unknown[]> = {};
  for (const { t, cols } of tabelas as Array<{ t: string; cols: string[] }>) {
    const lista = cols.map((c) => `"${c}"::text as "${c}"`).join(', ');
    out[t] = await rows(`select ${lista} from public."${t}" order by ${cols.map((_, i) => i + 1).join(', ')}`);
  }
  return out;
}

it('the fixtures of all ten types give the same bi_* rows and outcomes as before the merge was simplified', async () => {
  const desfechos: unknown[] = [];
  const passo = async (nome: string, conteudo: TSheet[] | Buffer, escritor: Escritor = 'exceljs') => {
    desfechos.push(await enviar(nome, conteudo, escritor));
  };

  // the master report: branches, sellers, customers, products, vehicles; a second one changes and deletes
  await passo('r18-a.xlsx', await buildRelatorio18({ rows: 240 }));
  await passo('r18-b.xlsx', await buildRelatorio18({
    rows: 200,
    faturamento: [
      { filial: 1, nota_fiscal: 100000, serie: '1', item: 1, emissao: utc(2026, 11, 1), cliente: 1000, nome_cliente: null, vendedor: 10,
        nome_vendedor: null, produto: '000100', descricao_produto: null, quantidade: 1, valor_unitario: 2, valor_total: 2, placa: 'ABC1D01', ano_veiculo: '2021/2022' },
      { filial: 9, nota_fiscal: 777, serie: '2', item: 1, emissao: utc(2026, 11, 2), cliente: 5555, nome_cliente: 'Cliente Novo', vendedor: 99,
        nome_vendedor: 'Vendedor Novo', produto: '000999', descricao_produto: 'Arla 32', quantidade: 3, valor_unitario: 4, valor_total: 12 },
      { filial: 9, nota_fiscal: null, serie: '2', item: 1, emissao: utc(2026, 11, 2), cliente: 5556, quantidade: 1, valor_unitario: 1, valor_total: 1 },
    ],
  }));
  await passo('meta.xlsx', await buildMeta({ rows: 30 }));
  await passo('meta-2.xlsx', await buildMeta({ rows: 10, linhas: [{ competencia: utc(2026, 11, 15), vendedor: 99, produto: '000999', meta_volume: 5, meta_margem: 0.1 }] }));

  for (const escritor of ['exceljs', 'handmade'] as const) {
    await passo(`mc-${escritor}.xlsx`, [{ name: 'Plan1', rows: tabela(H.MARGEM_CONSOLIDADA, [
      ['nov/26', `F-${escritor}`, 'P1', 1000, '5.000,50', 4000, { f: 'E4-F4', v: 1000.5 }, 1.0005],
      ['nov/26', '1', 'P2', 10, 20, 5, 15, 1.5],
      ['out/26', 'F-novo', 'P1', 1, 2, 1, 1, 1],
    ], { total: true }) }], escritor);
    await db.pool.query(`insert into bi_cliente (codigo, nome, cnpj_cpf, classe, municipio, uf) values ($1, 'Antigo', '11111111000111', 'A', 'Sinop', 'MT')
                         on conflict do nothing`, [`CL-${escritor}`]);
    await passo(`md-${escritor}.xlsx`, [{ name: 'Dia', rows: tabela([...H.MARGEM_DIA, ...H.MARGEM_DIA_OPCIONAIS], [
      [utc(2026, 11, 3), '01', `CL-${escritor}`, 'Novo Nome', 'V1', 'P1', 100, 6.1, 5.5, 60, null, null, 'Cuiabá', 'mt', 30],
      [utc(2026, 11, 3), '01', '1000', null, 'V1', 'P2', 100, 6.1, 5.5, 60, '12.345.678/0001-90', 'B', null, null, null],
      [utc(2026, 11, 3), '02', 'CL-X', 'Cliente X', 'V2', 'P1', 1, 1, 1, 0, '123.456.789-01', 'C', 'Sorriso', 'MT', null],
      [utc(2026, 11, 3), '02', 'CL-X', null, 'V2', 'P1', 2, 1, 1, 1, null, 'D', null, 'MT', null],
    ]) }], escritor);
    await passo(`carteira-${escritor}.xlsx`, [{ name: 'Carteira', rows: tabela(H.META_CARTEIRA, [['nov/2026', 1001, 'P1', 500], ['15/11/2026', 1002, 'P2', 600]]) }], escritor);
    const cnpj = escritor === 'exceljs' ? '12.345.678/0001-90' : '98.765.432/0001-10';
    await passo(`postos-${escritor}.xlsx`, [{ name: 'Postos', rows: tabela(H.POSTOS, [
      [cnpj, 'Auto Posto', 'Posto', 'Shell', 'Rua 1', 'Centro', 'Cuiabá', 'MT', '78005-100', null],
      ['11.111.111/0001-11', 'Outro Posto', null, 'BR', null, null, 'Sinop', 'MT', null, 'Posto revendedor'],
    ]) }], escritor);
    await passo(`trr-${escritor}.xlsx`, [{ name: 'TRR', rows: tabela(['CNPJ', 'Razão Social', 'Município', 'UF', 'Qualificação da Empresa', 'Capacidade (m³)'], [
      [cnpj, 'TRR Ltda', 'Sinop', 'MT', 'TRR', '45,5'],
    ]) }], escritor);
    const mes = escritor === 'exceljs' ? 7 : 8;
    await passo(`compras-${escritor}.xlsx`, [{ name: 'COMPRAS', rows: tabela(H.COMPRAS, [
      [utc(2026, mes, 5), '55.555.555/0001-55', 'Distribuidora', 9001, 'Diesel S10', 1202, 5000, 29500.5],
      [utc(2026, mes, 6), '55.555.555/0001-55', 'Distribuidora', 9002, 'Graxa', 1830, 1, 1],
      [utc(2026, mes, 7), '66.666.666/0001-66', null, 9003, 'Gasolina', 1203, 10, 60],
      [utc(2026, mes, 8), '55.555.555/0001-55', null, 9004, 'Etanol', '1170', 10, 40],
    ]) }], escritor);
    await passo(`cota-${escritor}.xlsx`, [
      { name: 'Leia-me', rows: [['POLO', 'PRODUTO'], ['ignorado', 'x']] },
      { name: '2026', rows: tabela(H.COTA, [['Paulínia', 'Diesel R5', 100, 110, null, null, null, null, null, null, null, null, null, escritor === 'exceljs' ? 1 : 2]]) },
      { name: '2027', rows: tabela(H.COTA_NUMEROS, [['Betim', 'Gasolina C', 7]]) },
    ], escritor);
    const dia = escritor === 'exceljs' ? 10 : 11;
    await passo(`fluxo-${escritor}.xlsx`, fluxoSheets({
      posicao: `${dia}/01/2027`, totalReceber: 150,
      titulos: [
        titulo({ documento: 'R1', vencimento: utc(2027, 1, 2), saldo: 100 }),
        titulo({ documento: 'R2', vencimento: utc(2027, 2, 2), saldo: '40,00', cc: '102', ccDescricao: null }),
        titulo({ tipo: 'P', documento: 'P1', vencimento: utc(2027, 1, 1), saldo: 30, cc: '103', ccDescricao: 'Frota' }),
        titulo({ tipo: 'Pagar', documento: 'P2', vencimento: utc(2027, 1, 1), saldo: 0, cc: '103', ccDescricao: null }),
      ],
    }), escritor);
  }
  // an older position enters the history only; a refused one writes nothing
  await passo('fluxo-antigo.xlsx', fluxoSheets({ posicao: '05/01/2027', titulos: [titulo({ documento: 'A1', cc: '104', ccDescricao: 'Antigo' })] }));
  await passo('fluxo-ruim.xlsx', fluxoSheets({ posicao: '20/01/2027', titulos: [titulo({ documento: 'OK' }), titulo({ saldo: 'abc' })] }));
  // a smaller master report of the same period deletes what it no longer has
  await passo('r18-c.xlsx', await buildRelatorio18({ rows: 60 }));

  const atual = { desfechos, tabelas: await dump() };
  const texto = JSON.stringify(atual, null, 1) + '\n';
  if (process.env.DUMP_BI_GRAVAR === '1' || !existsSync(ESPERADO)) writeFileSync(ESPERADO, texto);
  expect(JSON.parse(texto)).toEqual(JSON.parse(readFileSync(ESPERADO, 'utf8')));
}, 120_000);
