/**
 * The declarative merge's description (docs/xls-merge.md): one list of types in TS and SQL,
 * every reader's fields = its staging columns, every description row agrees with the catalog,
 * and the rejected-row rules of the shared procedure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { xlsStagingPreparar } from '../../src/planilhas/db.js';
import { TIPOS_PLANILHA, type TipoPlanilha } from '../../src/xlsx/types.js';
import { READERS } from '../../src/xlsx/readers/index.js';
import { stagingDefinicao } from '../../src/xlsx/readers/engine.js';
import { snakeCase } from '../../src/xlsx/headers.js';
import { code, text } from '../../src/xlsx/cells.js';
import { STAGING_VIEW_FILE, stagingViewSql } from '../../scripts/staging-view.js';
import { completeJobs, fat, iniciar, mov, processarNovo, receberAvulso, stagingComLeitores } from './helpers.js';
import { readFileSync } from 'node:fs';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

let n = 0;

describe('one list of types', () => {
  it('TIPOS_PLANILHA is app.xls_tipo in detection order; xls_tipo_valido and xls_processamento.tipo follow the table', async () => {
    const { rows } = await db.pool.query('select tipo, public.xls_tipo_valido(tipo) as valido from app.xls_tipo order by ordem');
    expect(rows.map((r) => r.tipo)).toEqual([...TIPOS_PLANILHA]);
    expect(rows.every((r) => r.valido)).toBe(true);
    const valido = async (t: string) => (await db.pool.query('select public.xls_tipo_valido($1) as v', [t])).rows[0].v;
    expect(await valido('NOPE')).toBe(false);
    // one list: a processing's type must be a row of app.xls_tipo (foreign key)
    const r = await receberAvulso(db.pool, `tipo-${++n}`);
    await expect(db.pool.query(`update xls_processamento set tipo = 'NOPE' where id = $1`, [r.processamentoId])).rejects.toMatchObject({ code: '23503' });
    const { rows: [m] } = await db.pool.query(`select array_agg(tipo) as mestres from app.xls_tipo where mestre`);
    expect(m.mestres).toEqual(['RELATORIO18']);
    expect((await db.pool.query(`select public.xls_tipo_mestre('RELATORIO18') a, public.xls_tipo_mestre('META') b, public.xls_tipo_mestre(null) c`)).rows[0])
      .toEqual({ a: true, b: false, c: false });
  });
});

describe('reader fields = staging columns, for every type', () => {
  it('the staging columns are generated from the readers: the view file is current (npm run db:generate), no row is written beside it', async () => {
    expect(readFileSync(STAGING_VIEW_FILE, 'utf8') === stagingViewSql(), 'db/views/app.xls_staging_coluna.sql desatualizado: rode npm run db:generate').toBe(true);
    await expect(db.pool.query(`insert into app.xls_staging_coluna values ('META', 'meta', 99, 'a_mao', 'text')`)).rejects.toThrow(/view/);
    const { rows } = await db.pool.query(`select tipo, staging, ordem, coluna, tipo_sql from app.xls_staging_coluna order by tipo, staging, ordem`);
    const esperadas = Object.values(READERS).flatMap((spec) => stagingDefinicao(spec!).flatMap((d) =>
      d.colunas.map((c, i) => ({ tipo: spec!.tipo, staging: d.staging, ordem: i + 1, coluna: c.coluna, tipo_sql: c.tipoSql }))));
    expect(rows).toEqual(esperadas.sort((a, b) => a.tipo.localeCompare(b.tipo) || a.staging.localeCompare(b.staging) || a.ordem - b.ordem));
    expect(rows).toHaveLength(111);
    expect(rows.find((r) => r.tipo === 'COTA_FORNECEDOR' && r.coluna === 'mes')).toMatchObject({ ordem: 5, tipo_sql: 'integer' });
  });

  it('every table a reader fills has exactly the columns of its staging table (and every staging table a reader)', async () => {
    const { rows } = await db.pool.query(`select tipo, staging, array_agg(coluna order by ordem) as colunas
                                            from app.xls_staging_coluna group by tipo, staging order by tipo, staging`);
    const sql = new Map(rows.map((r) => [`${r.tipo}/${r.staging}`, r.colunas as string[]]));
    const lidas = new Map<string, string[]>();
    for (const [tipo, spec] of Object.entries(READERS)) {
      const tables = [...(spec!.tabs ?? []), ...(spec!.anySheet ? [spec!.anySheet] : [])];
      expect(tables.length, tipo).toBeGreaterThan(0);
      for (const t of tables) {
        // an unpivoted matrix stages key and value instead of its columns; sheetField stages the tab's name
        const unpivoted = new Set(t.unpivot?.fields.map((f) => f.field) ?? []);
        const campos = t.columns.map((c) => c.field ?? snakeCase(c.header)).filter((f) => !unpivoted.has(f));
        if (t.sheetField) campos.push(t.sheetField);
        if (t.unpivot) campos.push(t.unpivot.key, t.unpivot.value);
        lidas.set(`${tipo}/${t.staging}`, campos);
      }
    }
    expect([...lidas.keys()].sort()).toEqual([...sql.keys()].sort());
    for (const [k, campos] of lidas) {
      const colunas = sql.get(k)!;
      expect(colunas[0], k).toBe('linha');
      expect([...campos].sort(), k).toEqual(colunas.slice(1).sort());
    }
  });

  it('every described type has staging columns, and xls_staging_preparar creates them typed', async () => {
    const { rows } = await db.pool.query(`select c.tipo, c.staging, array_agg(c.coluna order by c.ordem) as colunas, array_agg(c.tipo_sql order by c.ordem) as tipos
                                            from app.xls_staging_coluna c group by 1, 2 order by 1, 2`);
    const { rows: alvos } = await db.pool.query(`select tipo, staging from app.xls_alvo where fonte is null`);
    expect(alvos.length).toBeGreaterThan(0);
    for (const a of alvos) expect(rows.some((r) => r.tipo === a.tipo && r.staging === a.staging), `${a.tipo}/${a.staging}`).toBe(true);
    for (const tipo of [...new Set(rows.map((r) => r.tipo as string))]) {
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        const tabelas = await xlsStagingPreparar(client, tipo as TipoPlanilha);
        for (const r of rows.filter((x) => x.tipo === tipo)) {
          expect(tabelas.map((t) => t.staging), tipo).toContain(r.staging);
          const { rows: cols } = await client.query(`select a.attname::text c, format_type(a.atttypid, a.atttypmod) t from pg_attribute a
              where a.attrelid = to_regclass('pg_temp.xls_stg_' || $1) and a.attnum > 0 and not a.attisdropped order by a.attnum`, [r.staging]);
          expect(cols.map((c) => c.c), `${tipo}/${r.staging}`).toEqual(r.colunas);
          expect(cols.map((c) => c.t), `${tipo}/${r.staging}`).toEqual(r.tipos);
        }
      } finally {
        await client.query('rollback');
        client.release();
      }
    }
  });
});

describe('description rows agree with the catalog', () => {
  it('every type of app.xls_alvo prepares: natural key from the UNIQUE constraint, lengths from varchar(n), scope column written', async () => {
    const { rows } = await db.pool.query(`select distinct tipo from app.xls_alvo order by tipo`);
    for (const { tipo } of rows) {
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        await xlsStagingPreparar(client, tipo as TipoPlanilha);
        // the parameters each type's hook checks at its start (RELATORIO18's period, FLUXO's position date)
        await client.query(`select app.xls_merge_preparar($1, '{"periodo_inicio": "2026-01-01", "periodo_fim": "2026-01-31", "posicao": "2026-01-31"}')`, [tipo]);
        const { rows: e } = await client.query(`select tabela, chave from pg_temp.xls_merge_estado order by ordem`);
        for (const x of e) {
          const { rows: [u] } = await client.query(`select array_agg(a.attname::text order by k.o) as chave
              from pg_constraint c cross join lateral unnest(c.conkey) with ordinality k (n, o)
              join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n
             where c.conrelid = ('public.' || $1)::regclass and c.contype = 'u'`, [x.tabela]);
          expect(x.chave, `${tipo} ${x.tabela}`).toEqual(u.chave);
        }
      } finally {
        await client.query('rollback');
        client.release();
      }
    }
  });

  it('a description the catalog contradicts is refused with XL500, naming the problem', async () => {
    const casos: Array<[string, RegExp]> = [
      [`insert into app.xls_alvo (tipo, staging, tabela, ordem, escopo) values ('POSTOS', 'teste_x', 'bi_nao_existe', 99, 'tudo')`, /não existe/],
      [`insert into app.xls_alvo (tipo, staging, tabela, ordem, escopo) values ('POSTOS', 'teste_x', 'bi_meta', 99, 'tudo')`, /chave natural/],
      [`insert into app.xls_alvo (tipo, staging, tabela, ordem, escopo, escopo_coluna) values ('POSTOS', 'teste_x', 'bi_filial', 99, 'valores', 'municipio')`, /coluna de escopo/],
    ];
    for (const [sql, msg] of casos) {
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        await stagingComLeitores(client, [{ tipo: 'POSTOS', tabs: [{ sheet: 'x', staging: 'teste_x', columns: [{ header: 'codigo', parse: code }] }] }]);
        await client.query(sql);
        await xlsStagingPreparar(client, 'POSTOS');
        await expect(client.query(`select app.xls_merge_preparar('POSTOS', '{}')`)).rejects.toMatchObject({ code: 'XL500', message: expect.stringMatching(msg) });
      } finally {
        await client.query('rollback');
        client.release();
      }
    }
  });

  it('a type described by rows only (no hook) merges: cut to varchar(n), a key over its length or empty rejected, scope tudo, diff-aware', async () => {
    // bi_filial as a whole-table target of a scratch description, inside one transaction
    const r = await receberAvulso(db.pool, `desc-${++n}`);
    await iniciar(db.pool, r.processamentoId!, 'w-d', 'POSTOS');
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`insert into bi_filial (codigo, municipio) values ('F-OLD', 'Recife'), ('F1', 'Natal')`);
      await stagingComLeitores(client, [{ tipo: 'POSTOS', tabs: [{ sheet: 'f', staging: 'teste_f', columns: [
        { header: 'codigo', parse: code }, { header: 'uf', parse: text }] }] }]);
      await client.query(`insert into app.xls_alvo (tipo, staging, tabela, ordem, escopo, expressoes) values ('POSTOS', 'teste_f', 'bi_filial', 99, 'tudo', '{"uf": "upper(uf)"}')`);
      await xlsStagingPreparar(client, 'POSTOS');
      await client.query(`insert into pg_temp.xls_stg_teste_f values (2, ' F1 ', 'rn'), (3, '', 'pb'), (4, 'F2', 'paraiba'), (5, 'F${'x'.repeat(30)}', null)`);
      const { rows: [{ m }] } = await client.query(`select xls_merge($1, '{}') as m`, [r.processamentoId]);
      expect(m.linhas_rejeitadas).toEqual([
        { aba: null, linha: 3, campo: 'codigo', valor: '', mensagem: "linha 3: codigo '' inválido" },
        { aba: null, linha: 5, campo: 'codigo', valor: 'F' + 'x'.repeat(30), mensagem: `linha 5: codigo 'F${'x'.repeat(30)}' longo demais` },
      ]);
      // a rejected row without (readable) key suspends the deletes of its target: F-OLD stays
      expect(m.tabelas.bi_filial).toEqual({ enviadas: 4, efetivas: 2, removidas: 0 });
      expect(m.avisos).toContainEqual(expect.objectContaining({ categoria: 'remocao', motivo: expect.stringMatching(/sem chave legível .*linhas 3, 5.*bi_filial suspensas/) }));
      const { rows } = await client.query(`select codigo, municipio, uf from bi_filial order by codigo`);
      expect(rows).toEqual([
        { codigo: 'F-OLD', municipio: 'Recife', uf: null },
        { codigo: 'F1', municipio: 'Natal', uf: 'RN' },
        { codigo: 'F2', municipio: null, uf: 'PA' },
      ]);
    } finally {
      await client.query('rollback');
      client.release();
      await completeJobs(db.pool, 'w-d');
    }
  });
});

describe('rejected rows in the shared procedure', () => {
  const metaRow = (linha: number, vendedor: string, produto: string, meta_volume: string) =>
    ({ linha, competencia: '2026-10-01', vendedor, produto, meta_volume, meta_margem: '1' });

  it('a rejected row with a readable key protects that key; the other absent rows of the scope are deleted', async () => {
    await db.pool.query(`insert into bi_vendedor (codigo) values ('RV1') on conflict do nothing`);
    await processarNovo(db.pool, `rej-${++n}`, 'META', { staging: { meta: [metaRow(2, 'RV1', 'A', '1'), metaRow(3, 'RV1', 'B', '2'), metaRow(4, 'RV1', 'C', '3')] } });
    // B's row is now invalid (meta_volume unreadable) but its key is readable: B stays as stored; C is absent: deleted
    const { merge } = await processarNovo(db.pool, `rej-${++n}`, 'META', {
      staging: { meta: [metaRow(2, 'RV1', 'A', '1')] },
      meta: { linhas_rejeitadas: [{ aba: 'Metas', staging: 'meta', linha: 3, campo: 'meta_volume', valor: 'x', valores: { competencia: '2026-10-01', vendedor: ' RV1 ', produto: 'B', meta_margem: '1' } }] },
    });
    expect(merge.linhasRemovidas).toBe(1);
    expect(merge.linhasRejeitadas).toEqual([{ aba: 'Metas', linha: 3, campo: 'meta_volume', valor: 'x', mensagem: "linha 3: meta_volume 'x' inválido" }]);
    expect(merge.avisos.filter((a) => a.categoria === 'remocao')).toEqual([]);
    const { rows } = await db.pool.query(`select produto, meta_volume from bi_meta where vendedor = 'RV1' and competencia = '2026-10-01' order by produto`);
    expect(rows).toEqual([{ produto: 'A', meta_volume: '1' }, { produto: 'B', meta_volume: '2' }]);
  });

  it('a rejected row whose key cannot be read suspends the deletes of its own tab only, and says which and why', async () => {
    const meta = { periodo_inicio: '2026-09-01', periodo_fim: '2026-09-30' };
    const f = (i: number) => fat(i, { emissao: '2026-09-10', nota_fiscal: String(9000 + i) });
    const m = (i: number) => mov(i, { data: '2026-09-10', lancamento: String(9000 + i) });
    await processarNovo(db.pool, `rej-${++n}`, 'RELATORIO18', { staging: { faturamento: [f(1), f(2), f(3)], movimento: [m(1), m(2)] }, meta });
    const { merge } = await processarNovo(db.pool, `rej-${++n}`, 'RELATORIO18', {
      staging: { faturamento: [f(1)], movimento: [m(1)] },
      meta: { ...meta, linhas_rejeitadas: [
        // tab 20: the key (nota_fiscal) is the invalid field: deletes of bi_faturamento suspended
        { aba: '20', staging: 'faturamento', linha: 40, campo: 'nota_fiscal', valor: '#N/A', valores: { filial: '01', serie: '1', item: '1', emissao: '2026-09-10' } },
        // tab 30: a readable key (m(2)'s) protects that row; tab 30 deletes still run
        { aba: '30', staging: 'movimento', linha: 41, campo: 'debito', valor: '-', valores: { filial: '01', data: '2026-09-10', lancamento: String(9002), conta: m(2).conta } },
      ] },
    });
    expect(merge.tabelas.bi_faturamento).toEqual({ enviadas: 1, efetivas: 0, removidas: 0 });
    expect(merge.tabelas.bi_movimento).toEqual({ enviadas: 1, efetivas: 0, removidas: 0 });
    const remocoes = merge.avisos.filter((a) => a.categoria === 'remocao');
    expect(remocoes).toEqual([{
      categoria: 'remocao', quantidade: 1, linhas: [{ aba: '20', linha: 40, valor: null }],
      motivo: 'há linhas rejeitadas sem chave legível na aba 20 (linha 40): remoções de bi_faturamento suspensas; corrija e reenvie',
    }]);
    expect((await db.pool.query(`select count(*)::int n from bi_faturamento where emissao between '2026-09-01' and '2026-09-30'`)).rows[0].n).toBe(3);
    expect((await db.pool.query(`select lancamento from bi_movimento where data between '2026-09-01' and '2026-09-30' order by 1`)).rows)
      .toEqual([{ lancamento: '9001' }, { lancamento: '9002' }]);
    // the same file with an unreadable row in tab 30 too: both tabs suspended; without the rejection, tab 30 deletes 9002
    const sem = await processarNovo(db.pool, `rej-${++n}`, 'RELATORIO18', { staging: { faturamento: [f(1), f(2), f(3)], movimento: [m(1)] }, meta });
    expect(sem.merge.tabelas.bi_movimento).toEqual({ enviadas: 1, efetivas: 0, removidas: 1 });
  });
});
