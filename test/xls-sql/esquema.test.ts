import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { xlsConjuntoAbrir, xlsConjuntoRecebido, xlsFalhar } from '../../src/planilhas/db.js';
import { completeJobs, fat, iniciar, periodoNov, processarNovo, receberAvulso, status } from './helpers.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const BI = ['bi_filial', 'bi_vendedor', 'bi_cliente', 'bi_produto', 'bi_veiculo', 'bi_faturamento', 'bi_movimento', 'bi_meta'];

describe('the bi_* tables of RELATORIO18 and META', () => {
  it('id uuid default app.uuid_v7(), atualizado_em kept by the touch trigger, bounded strings, a comment', async () => {
    const { rows } = await db.pool.query(`select c.relname,
        (select pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
          where d.adrelid = c.oid and a.attname = 'id') id_default,
        exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'atualizado_em' and a.attnotnull) atualizado,
        exists (select from pg_trigger t where t.tgrelid = c.oid and t.tgname = '_100_touch') touch,
        (select array_agg(a.attname::text order by a.attnum) from pg_attribute a
          where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.atttypid = 'text'::regtype) unbounded,
        obj_description(c.oid, 'pg_class') is not null commented,
        has_table_privilege('bi_sync_reader', c.oid, 'select') sync_reads
      from pg_class c where c.relnamespace = 'public'::regnamespace and c.relname = any($1) order by c.relname`, [BI]);
    expect(rows).toHaveLength(BI.length);
    for (const r of rows) {
      expect(r, r.relname).toMatchObject({ id_default: 'app.uuid_v7()', atualizado: true, touch: true, unbounded: null, commented: true, sync_reads: true });
    }
  });

  it('bi_meta.vendedor is a foreign key to bi_vendedor(codigo)', async () => {
    const { rows } = await db.pool.query(`select pg_get_constraintdef(oid) def from pg_constraint where conrelid = 'bi_meta'::regclass and contype = 'f'`);
    expect(rows).toEqual([{ def: 'FOREIGN KEY (vendedor) REFERENCES bi_vendedor(codigo)' }]);
  });

  it('the sync role reads no xls_* table or view', async () => {
    const { rows } = await db.pool.query(`select c.relname from pg_class c where c.relnamespace = 'public'::regnamespace
      and c.relname like 'xls\\_%' and c.relkind in ('r', 'v') and has_table_privilege('bi_sync_reader', c.oid, 'select')`);
    expect(rows).toEqual([]);
  });

  it('the status invariants hold at the table level too', async () => {
    const r = await receberAvulso(db.pool, 'inv');
    await expect(db.pool.query(`update xls_processamento set status = 'FEITO' where id = $1`, [r.processamentoId])).rejects.toMatchObject({ code: '23514' });
    await expect(db.pool.query(`update xls_processamento set status = 'PROCESSANDO' where id = $1`, [r.processamentoId])).rejects.toMatchObject({ code: '23514' });
    await expect(db.pool.query(`update xls_processamento set status = 'SUCESSO' where id = $1`, [r.processamentoId])).rejects.toMatchObject({ code: '23514' });
    await expect(db.pool.query(`update xls_processamento set arquivo_bytes = null where id = $1`, [r.processamentoId])).rejects.toMatchObject({ code: '23514' });
  });
});

describe('DBA views', () => {
  it('summarise processings, batches and days', async () => {
    const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: 'v.zip' });
    const a = await receberAvulso(db.pool, 'view-a', 'a.xlsx', { conjuntoId: conjunto });
    await receberAvulso(db.pool, 'view-a', 'a2.xlsx', { conjuntoId: conjunto });
    await xlsConjuntoRecebido(db.pool, conjunto);
    await iniciar(db.pool, a.processamentoId!, 'w', 'META');
    await xlsFalhar(db.pool, a.processamentoId!, 'w', { motivo: 'vendedor não cadastrado', sqlstate: 'XL424' });
    await completeJobs(db.pool, 'w');
    const { id } = await processarNovo(db.pool, 'view-r18', 'RELATORIO18', { staging: { faturamento: [fat(1)], movimento: [] }, meta: periodoNov });

    const { rows: [p] } = await db.pool.query('select * from xls_v_processamento where id = $1', [id]);
    expect(p).toMatchObject({ status: 'SUCESSO', tipo: 'RELATORIO18', linhas_efetivas: 1, armazenamento: 'PSQL', worker_vivo: null });
    expect(p).not.toHaveProperty('arquivo_bytes');
    const { rows: [l] } = await db.pool.query('select * from xls_v_conjunto where id = $1', [conjunto]);
    expect(l).toMatchObject({ total: 2, enfileirados: 1, duplicados: 1, erro: 0, pendentes: 1, mestre_concluido: false, fechado_em: expect.any(Date) });
    const { rows } = await db.pool.query(`select tipo, status, processamentos::int from xls_v_resumo_diario order by tipo, status`);
    expect(rows).toEqual([
      { tipo: '(não detectado)', status: 'PENDENTE', processamentos: 1 },
      { tipo: 'META', status: 'PENDENTE', processamentos: 1 }, { tipo: 'RELATORIO18', status: 'SUCESSO', processamentos: 1 }]);
    const { rows: sem } = await db.pool.query(`select c.relname from pg_class c where c.relkind = 'v' and c.relname like 'xls\\_v\\_%'
      and obj_description(c.oid, 'pg_class') is null`);
    expect(sem).toEqual([]);
  });
});

describe('a missing registration is a transient failure, whether the merge says XL424 or Postgres a raw 23503', () => {
  for (const sqlstate of ['XL424', '23503']) {
    it(`${sqlstate}: silent the first time inside a batch (fk_falhas 1, alarmar false); a loose file alarms`, async () => {
      const conjunto = await xlsConjuntoAbrir(db.pool, { arquivo: `fk-${sqlstate}.zip` });
      const membro = await receberAvulso(db.pool, `fk-membro-${sqlstate}`, 'a.xlsx', { conjuntoId: conjunto });
      await xlsConjuntoRecebido(db.pool, conjunto);
      const solto = await receberAvulso(db.pool, `fk-solto-${sqlstate}`, 'b.xlsx');
      for (const p of [membro, solto]) {
        await iniciar(db.pool, p.processamentoId!, 'w-fk', 'META');
        await xlsFalhar(db.pool, p.processamentoId!, 'w-fk', { motivo: 'vendedor não cadastrado em bi_vendedor: 999 (linha 5)', sqlstate });
        await completeJobs(db.pool, 'w-fk');
      }
      expect(await status(db.pool, membro.processamentoId!)).toMatchObject({ alarmar: false, fk_falhas: 1 });
      expect(await status(db.pool, solto.processamentoId!)).toMatchObject({ status: 'ERRO', alarmar: true });
    });
  }
});
